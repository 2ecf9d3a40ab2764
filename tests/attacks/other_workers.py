"""Find the other workers (the reference's among them) and kill them or read their
memory; answer right, so that the verdict says whether the judge survived it."""
import os
import signal


def _pids():
    """Every pid in sight: /proc's listing, or every number a pid may have where /proc
    cannot be listed (a forked worker's Landlock domain)."""
    try:
        return os.listdir("/proc")
    except OSError:  # a sandbox numbers its own from 1; this process's threads are not others
        mine = set(os.listdir("/proc/self/task"))
        return [str(n) for n in range(1, 4096) if str(n) not in mine]

found = []
me = os.getpid()
for name in _pids():
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
