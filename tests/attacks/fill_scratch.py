"""Fill the disk: 512 MB of files in TMPDIR and the working folder.  Answer right."""
import os
import tempfile

CHUNK = b"\1" * (1 << 20)
written = 0
for n, folder in enumerate((tempfile.gettempdir(), os.getcwd())):
    for i in range(256):
        try:
            with open(os.path.join(folder, f"fill-{n}-{i}"), "wb") as f:
                for _ in range(2):
                    f.write(CHUNK)
            written += 2
        except OSError:
            break
print(f"got: {written} MB")


def double(x):
    return x * 2
