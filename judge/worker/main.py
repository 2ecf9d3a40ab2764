"""Inside the worker process: set the process up and hand it to the request loop.

Started by judge/sandbox/handle.py as ``python -s -P -B -c <bootstrap> <worker dir> <config>``
with an environment of its own; the bootstrap loads this directory as a package under a
private name and calls ``boot``.  Until ``boot`` has set the resource limits, only the standard library may be
imported: numpy and jax come after, so a memory bomb meets the limits, not a half-set
process.  This process never writes to fd 1/2 itself: those belong to the learner.

The rest of the worker, one job a file: ``loop`` (the request loop), ``arguments``
(decoding a call's arguments, detecting in-place changes), ``measure`` (what a check
kind's instrument is given), ``learner_file`` (calling the learner's function, showing
its errors); ``probe``, ``syncs`` and ``custom_calls`` measure, ``jax_frames`` reads
jax's private frames.
"""

from __future__ import annotations

import ctypes
import importlib.abc
import json
import os
import resource
import signal
import sys
import time

# the modules below import only the standard library when loaded: numpy and jax wait
# for the limits
from .arguments import _Arguments, _to_argument  # noqa: F401  (tests reach them here)
from .loop import Loop
from .measure import MeasureContext, _compile_instrument, _Unmeasurable, _WrongResult  # noqa: F401

_PR_SET_PDEATHSIG = 1
_HIGH_FD = 200  # channel fds move here, under RLIMIT_NOFILE (256)


# ---------------------------------------------------------------- process setup


def _set_limit(res: int, soft: int, hard: int) -> None:
    _, cur_hard = resource.getrlimit(res)
    if cur_hard != resource.RLIM_INFINITY:  # a non-root process cannot raise its hard limit
        hard = min(hard, cur_hard)
        soft = min(soft, hard)
    resource.setrlimit(res, (soft, hard))


def _apply_limits(cfg: dict) -> None:
    _set_limit(resource.RLIMIT_AS, cfg["as_bytes"], cfg["as_bytes"])
    if cfg.get("cpu_s"):  # a trusted worker serving many gradings has none
        _set_limit(resource.RLIMIT_CPU, cfg["cpu_s"], cfg["cpu_s"] + 2)  # SIGXCPU before SIGKILL
    _set_limit(resource.RLIMIT_FSIZE, cfg["fsize"], cfg["fsize"])
    _set_limit(resource.RLIMIT_NOFILE, 256, 256)
    _set_limit(resource.RLIMIT_CORE, 0, 0)
    if cfg.get("nproc"):  # a uid of its own: every process and thread of it counts
        _set_limit(resource.RLIMIT_NPROC, cfg["nproc"], cfg["nproc"])
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if cfg.get("judge_pid") and os.getppid() != cfg["judge_pid"]:
        os._exit(1)  # the judge died before PDEATHSIG was armed


def _read_token(fd: int, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data


def _move_fd(fd: int) -> int:
    """Move a channel fd out of the low numbers a learner is likely to scribble on."""
    import fcntl

    new = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _HIGH_FD)
    os.close(fd)
    return new


class _DenyImports(importlib.abc.MetaPathFinder):
    """Makes the judge, the bank and the references unimportable by name."""

    def __init__(self, names):
        self.names = frozenset(names)

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def _hide_judge(cfg: dict) -> None:
    hidden = {os.path.realpath(p) for p in cfg.get("scrub_paths", ())}
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) not in hidden]
    if cfg.get("deny"):
        sys.meta_path.insert(0, _DenyImports(cfg["deny"]))


def boot(config_json: str) -> None:
    t0 = time.perf_counter()
    cfg = json.loads(config_json)
    _apply_limits(cfg)
    token = _read_token(cfg["cmd_fd"], 16)
    cmd_fd, reply_fd = _move_fd(cfg["cmd_fd"]), _move_fd(cfg["reply_fd"])
    from .confine import apply as confine

    confine_failed = confine(cfg.get("confine") or {})
    _hide_judge(cfg)
    try:
        # a worker that keeps the judge and the references out holds a learner's code:
        # its compiles are also counted by XLA where the judge watches
        Loop(
            token,
            cmd_fd,
            reply_fd,
            t0,
            cfg["lost_exit"],
            cfg.get("devices"),
            confine_failed,
            compile_log=bool(cfg.get("deny")),
            no_processes=bool((cfg.get("confine") or {}).get("no_processes")),
        ).run()
    except BaseException:
        # Something the learner left behind (a thread's interrupt_main, a signal handler)
        # broke the loop itself: end quietly with the code the judge reads as that.
        os._exit(cfg["lost_exit"])
