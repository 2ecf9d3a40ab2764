"""Inside a warm sandbox: the fork server of ``judge serve`` (judge/sandbox/zygote.py is
the judge's side).

Started once per sandbox as ``python -s -P -B -c <bootstrap> <worker dir> <config>``
under bubblewrap, it imports numpy and jax (about half a second of CPU, the largest
part of a fresh worker's start), then waits on its control socket.  For each ``spawn``
it forks: the child takes the descriptors the judge sent (its request and reply pipes,
its stdout and stderr), the environment, the working folder and the config a fresh
worker would get on its command line, and becomes exactly that worker (``main.boot``):
limits, then its confinement, then the request loop.  The child's confinement is what
keeps it apart from its siblings, which share this sandbox's namespaces: a Landlock
domain of its own (files, signals, abstract sockets, ptrace) and the seccomp filters.

No learner code ever runs in this process, and it holds nothing of any grading: the
child closes the control socket before anything else, so no submission can reach the
server or ask it for anything.  It forks only while it is single-threaded (jax's
backend is never started here: that is each child's, after the fork), and it reaps a
child only when the judge says it is done with it, so a child's pid is never reused
while the judge may still signal it.
"""

from __future__ import annotations

import importlib
import json
import os
import socket
import threading

_MAX_REQUEST = 1 << 20
_MAX_FDS = 8


def serve(config_json: str) -> None:
    cfg = json.loads(config_json)
    control = socket.socket(fileno=cfg["control_fd"])
    try:
        _warm()
    except BaseException as exc:  # said to the judge, which reports it and stops using us
        _send(control, {"op": "ready", "ok": False, "error": f"{type(exc).__name__}: {exc}"})
        os._exit(1)
    if not _single_threaded():
        _send(control, {"op": "ready", "ok": False, "error": "threads started while warming"})
        os._exit(1)
    baseline = _own_settings()
    _send(control, {"op": "ready", "ok": True, "pid": os.getpid()})
    released: set[int] = set()
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, _MAX_REQUEST, _MAX_FDS)
        except InterruptedError:
            continue
        if not data:
            os._exit(0)  # the judge is done with this sandbox
        try:
            request = json.loads(data)
            op = request["op"]
        except (ValueError, KeyError, TypeError):
            _close_all(fds)
            os._exit(2)  # only the judge writes here: a bad request is a broken judge
        if op == "spawn":
            changed = _changed_since(baseline)
            if changed:  # a child inherits them: fork no more (the judge starts another)
                _close_all(fds)
                _send(
                    control, {"ok": False, "error": f"its own {changed} changed since it started"}
                )
                os._exit(3)
            _spawn(control, request, fds)
        elif op == "release":
            _close_all(fds)
            released.add(int(request["pid"]))
        _reap(released)


def _warm() -> None:
    """What every worker imports before its first request, done once for all of them."""
    import jax
    import jax.numpy  # noqa: F401
    import numpy  # noqa: F401

    # the worker's own modules, numpy's and jax's users, its instruments (imported when a
    # probed load arms them) and what jax imports on its first lowering: a fork starts
    # with them as a cold worker ends its first call
    from . import custom_calls, integrity, jax_frames, loop, main, probe, syncs  # noqa: F401

    for name in ("jax.experimental.multihost_utils", "jaxlib.mlir.dialects.mhlo"):
        importlib.import_module(name)
    del jax


def _own_settings() -> dict:
    """What every child inherits and a process of the same uid could set from outside
    (the workers' seccomp filter refuses it them; this is the second line): resource
    limits, priority, CPUs, scheduling policy."""
    import resource

    limits = {
        name: resource.getrlimit(getattr(resource, name))
        for name in dir(resource)
        if name.startswith("RLIMIT_")
    }
    return {
        "limits": limits,
        "priority": os.getpriority(os.PRIO_PROCESS, 0),
        "cpus": sorted(os.sched_getaffinity(0)),
        "scheduler": (os.sched_getscheduler(0), os.sched_getparam(0).sched_priority),
    }


def _changed_since(baseline: dict) -> str:
    now = _own_settings()
    changed = [what for what in baseline if now[what] != baseline[what]]
    return " and ".join(changed)


def _single_threaded() -> bool:
    try:
        return threading.active_count() == 1 and len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _send(control: socket.socket, message: dict, fds: tuple[int, ...] | list[int] = ()) -> None:
    socket.send_fds(control, [json.dumps(message).encode()], list(fds))


def _close_all(fds) -> None:
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _spawn(control: socket.socket, request: dict, fds: list[int]) -> None:
    if len(fds) != 4 or not _single_threaded():
        _close_all(fds)
        _send(control, {"ok": False, "error": "the spawn request was not whole"})
        return
    pid = os.fork()
    if pid == 0:
        _become_worker(control, request, fds)  # never returns
    _close_all(fds)
    pidfd = os.pidfd_open(pid)
    try:
        _send(control, {"ok": True, "pid": pid}, [pidfd])
    finally:
        os.close(pidfd)


def _become_worker(control: socket.socket, request: dict, fds: list[int]) -> None:
    """The child: the worker a fresh sandbox would have started, from here on."""
    code = 70
    try:
        code = int(request["config"]["lost_exit"])
        control.close()
        cmd, reply, out, err = fds
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.setsid()
        keep = sorted({0, 1, 2, cmd, reply})
        for low, high in zip([-1] + keep, keep + [_fd_ceiling()]):
            if (
                low + 1 < high
            ):  # closerange(n, n) closes from n upwards: CPython asks close_range(n, n - 1)
                os.closerange(low + 1, high)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        import numpy

        numpy.random.seed()  # the server's state is every child's: draw another
        config = dict(request["config"], cmd_fd=cmd, reply_fd=reply)
        from . import main

        main.boot(json.dumps(config))
    finally:
        os._exit(code)


def _fd_ceiling() -> int:
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 1 << 16


def _reap(released: set[int]) -> None:
    for pid in list(released):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            released.discard(pid)
