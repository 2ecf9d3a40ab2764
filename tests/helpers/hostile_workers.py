"""The hostile submissions of tests/hostile/ graded through one worker each, and what
each must end as: shared by integration/test_hostile.py (bubblewrap and process, with
the refusal of processes lifted to test the backstops behind it) and
integration/test_forked.py (forked workers, which cannot exist without that refusal)."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from judge.sandbox import Limits, Worker, WorkerFailure
from judge.worker import wire

from helpers import TESTS

HOSTILE = TESTS / "hostile"
LIMITS = Limits(call_timeout_s=2.5, run_timeout_s=30, memory_mb=512, output_bytes=16 * 1024)
# A memory bomb starved of CPU on a busy machine could meet the call limit first.
ROOMY = Limits(call_timeout_s=10, run_timeout_s=30, memory_mb=512, output_bytes=16 * 1024)
SLACK_S = 2.0  # kill + reap + a loaded 2-core machine
X = np.arange(4, dtype=np.float32)


# ---------------------------------------------------------------- processes


def proc_identity(pid: int) -> tuple[int, int] | None:
    """(ppid, start tick) of a live (non-zombie) process, else None."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    return None if fields[0] == b"Z" else (int(fields[1]), int(fields[19]))


def tree(pid: int) -> dict[int, int]:
    """pid -> start tick for pid and all its live descendants."""
    out, todo = {}, [pid]
    while todo:
        p = todo.pop()
        ident = proc_identity(p)
        if ident is None:
            continue
        out[p] = ident[1]
        for tid in os.listdir(f"/proc/{p}/task") if os.path.isdir(f"/proc/{p}/task") else []:
            try:
                todo += [int(c) for c in Path(f"/proc/{p}/task/{tid}/children").read_text().split()]
            except OSError:
                pass
    return out


def still_alive(tree: dict[int, int]) -> list[int]:
    return [p for p, tick in tree.items() if (proc_identity(p) or (0, -1))[1] == tick]


def my_children() -> list[int]:
    me = os.getpid()
    return [
        int(p)
        for p in os.listdir("/proc")
        if p.isdigit() and (proc_identity(int(p)) or (0, 0))[0] == me
    ]


# ---------------------------------------------------------------- grading


@dataclass
class Outcome:
    stage: str = "load"  # where it ended: "load" or "call"
    failure: WorkerFailure | None = None
    reply: dict = field(default_factory=dict)
    value: object = None
    elapsed_s: float = 0.0  # of the stage that ended it, from worker ready
    output: dict = field(default_factory=dict)
    left_behind: list[int] = field(default_factory=list)
    before_close: dict = field(default_factory=dict)


def grade(
    name: str,
    mode: str,
    kwargs: dict | None = None,
    hidden=(),
    inspect=None,
    limits: Limits = LIMITS,
) -> Outcome:
    """Load tests/hostile/NAME.py as a learner's file and call solve(X, **kwargs)."""
    out = Outcome()
    worker = Worker(limits, isolation=mode, hidden_paths=list(hidden))
    t_spawn = time.monotonic()
    worker.start()
    try:
        path = shutil.copy(HOSTILE / f"{name}.py", worker.scratch)
        _run(worker, out, path, name, kwargs or {}, t_spawn)
        if inspect is not None:
            out.before_close = inspect(worker, out)
    finally:
        before = tree(worker.pid)
        worker.close()
        out.left_behind = still_alive(before)
        out.output = worker.output()
    return out


def load_header(path: str, name: str) -> dict:
    """The request loading the file at ``path`` (shown as ``name``) with solve as its entrypoint."""
    return {"op": "load", "path": path, "display_name": name, "entrypoint": "solve", "probe": True}


def call_header(kwargs: dict, blobs: list[bytes]) -> dict:
    """The request calling solve(X, **kwargs), its arrays appended to ``blobs``."""
    return {
        "op": "call",
        "args": [wire.encode(X, blobs)],
        "kwargs": {k: wire.encode(v, blobs) for k, v in kwargs.items()},
        "label": "example",
        "probe": True,
    }


def _run(worker: Worker, out: Outcome, path: str, name: str, kwargs: dict, t_spawn: float):
    try:
        out.reply, _ = worker.request(load_header(path, f"{name}.py"))
        out.elapsed_s = time.monotonic() - t_spawn - worker.ready_s
        if not out.reply.get("ok"):
            return
        out.stage = "call"
        blobs: list[bytes] = []
        header = call_header(kwargs, blobs)
        t = time.monotonic()
        try:
            out.reply, rblobs = worker.request(header, blobs)
        finally:
            out.elapsed_s = time.monotonic() - t
        if out.reply.get("ok"):
            out.value = wire.decode(out.reply["result"], rblobs)
    except WorkerFailure as failure:
        if worker.ready_s is not None and out.stage == "load":
            out.elapsed_s = time.monotonic() - t_spawn - worker.ready_s
        out.failure = failure


def _array(value) -> np.ndarray:
    return value.array if isinstance(value, wire.Leaf) else np.asarray(value)


# ---------------------------------------------------------------- expectations


def _failed(kind: str, where: str):
    def check(o: Outcome, mode: str):
        assert o.failure is not None, f"expected a {kind} failure, got reply {o.reply}"
        assert (o.failure.kind, o.failure.where) == (kind, where), o.failure.message

    return check


def _timed_out(where: str):
    def check(o: Outcome, mode: str):
        _failed("timeout", where)(o, mode)
        # it did run until the limit, counted as the code's own time (machine load out)
        assert LIMITS.call_timeout_s <= o.failure.detail["charged_s"] <= LIMITS.call_timeout_s + 0.5
        assert o.elapsed_s >= LIMITS.call_timeout_s - 0.1
        assert "2.5 s limit" in o.failure.message

    return check


def _memory(o: Outcome, mode: str):
    _failed("memory", "call")(o, mode)
    assert "memory" in o.failure.message


def _memory_of_the_tree(o: Outcome, mode: str):
    _failed("memory", "call")(o, mode)
    assert o.failure.message == "your code used more than the 512 MB memory limit"
    assert o.failure.detail["peak_mb"] > 512


def _exit_at_import(o: Outcome, mode: str):
    assert o.failure is None and o.stage == "load" and not o.reply["ok"]
    assert o.reply["error"]["category"] == "invalid_submission"
    assert "sys.exit(4)" in o.reply["error"]["message"]


def _os_exit(o: Outcome, mode: str):
    _failed("exited", "call")(o, mode)
    assert o.failure.detail["exit_code"] == 3 and "os._exit(3)" in o.failure.message


def _segfault(o: Outcome, mode: str):
    _failed("crashed", "call")(o, mode)
    assert "SIGSEGV (segmentation fault)" in o.failure.message


def _print_flood(o: Outcome, mode: str):
    assert o.failure is None and o.reply["ok"]
    np.testing.assert_array_equal(_array(o.value), X + 1)
    assert o.output["truncated"]
    assert len(o.output["stdout"]) == LIMITS.output_bytes
    assert len(o.output["stderr"]) == LIMITS.output_bytes
    assert o.output["stdout"].startswith("spam spam")


def _not_believed(o: Outcome, mode: str):
    """A forged frame is either ignored (the real answer x * 2 comes back) or breaks the
    channel (protocol failure); the forged 42 is never a result."""
    if o.failure is not None:
        assert o.failure.kind == "protocol", o.failure.message
        assert "file descriptors it does not own" in o.failure.message
    else:
        assert o.stage == "call" and o.reply["ok"], o.reply
        np.testing.assert_array_equal(_array(o.value), X * 2)


def _forged_stdout(o: Outcome, mode: str):
    assert o.failure is None and o.reply["ok"]
    np.testing.assert_array_equal(_array(o.value), X * 2)
    assert o.output["stdout"].count("JJW1") >= 8  # the forgeries went to the learner's output


def _patched_numpy(o: Outcome, mode: str):
    assert o.failure is None and o.reply["ok"]
    got = _array(o.value)
    # The comparison happens here, in the judge, with numpy untouched by the worker.
    assert not np.allclose(got, X + 1)
    assert not np.array_equal(got, X + 1)
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(got, X + 1)


def _channel_broken(o: Outcome, mode: str):
    _failed("protocol", "call")(o, mode)
    assert "file descriptors it does not own" in o.failure.message


MEMORY_CASES = {"memory_jnp", "memory_list", "memory_forked"}
CASES = {
    "loop_forever": _timed_out("call"),
    "sleep_at_import": _timed_out("load"),
    "memory_jnp": _memory,
    "memory_list": _memory,
    "memory_forked": _memory_of_the_tree,
    "exit_at_import": _exit_at_import,
    "os_exit_in_call": _os_exit,
    "segfault": _segfault,
    "print_flood": _print_flood,
    "forge_stdout": _forged_stdout,
    "forge_fds_import": _not_believed,
    "forge_fds_call": _not_believed,
    "patch_numpy": _patched_numpy,
    "close_fds_in_call": _channel_broken,
}


def limits_of(name: str) -> Limits:
    return ROOMY if name in MEMORY_CASES else LIMITS
