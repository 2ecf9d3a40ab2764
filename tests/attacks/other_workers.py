"""Find the other workers (the reference's among them) and kill them or read their
memory; answer right, so that the verdict says whether the judge survived it."""
import os
import signal

found = []
me = os.getpid()
for name in os.listdir("/proc"):
    if not name.isdigit() or int(name) == me:
        continue
    pid = int(name)
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read()
    except OSError:
        continue
    if b"_jj_worker" not in cmd:
        continue
    try:
        with open(f"/proc/{pid}/maps") as f:
            first = f.readline().split()[0].split("-")
        with open(f"/proc/{pid}/mem", "rb") as f:
            f.seek(int(first[0], 16))
            f.read(64)
        found.append(f"READ-MEMORY {pid}")
    except (OSError, ValueError, IndexError):
        pass
    try:
        os.kill(pid, signal.SIGKILL)
        found.append(f"KILLED {pid}")
    except OSError:
        pass
print("got:", " ".join(found))


def double(x):
    return x * 2
