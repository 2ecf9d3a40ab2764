"""Memory beyond the limit where the judge may not look: 1.5 GB in /dev/shm, /tmp and
/var/tmp (files in a tmpfs are memory), kept after the run.  Answer right."""
import os

CHUNK = b"\1" * (1 << 20)
written = {}
for folder in ("/dev/shm", "/tmp", "/var/tmp"):
    n = 0
    try:
        with open(os.path.join(folder, "jj-trust-hoard"), "wb") as f:
            for _ in range(1536):
                f.write(CHUNK)
                n += 1
    except OSError:
        pass
    written[folder] = n
print("got:", " ".join(f"{k}={v}MB" for k, v in written.items()))


def double(x):
    return x * 2
