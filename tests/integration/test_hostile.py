"""Hostile submissions (tests/hostile/) graded through the Worker.

Each must end within its limit with the right kind of failure, leave the judge process
untouched and leave no process behind.  Most cases run concurrently, once per isolation
mode available here, in one module fixture; the escape case runs alone because the
escapee sweep of a concurrent close would kill its escapee before it is looked at.
"""

from __future__ import annotations

import concurrent.futures
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from judge.sandbox import Limits, Worker, WorkerFailure, scratch_root
from judge.sandbox.clock import WALL_FACTOR
from judge.sandbox.policy import landlock_abi
from judge.worker import wire

from helpers import ROOT, TESTS
from helpers.isolation_modes import BWRAP, MODES, needs_bwrap  # noqa: F401

HOSTILE = TESTS / "hostile"
LIMITS = Limits(call_timeout_s=2.5, run_timeout_s=30, memory_mb=512, output_bytes=16 * 1024)
# A memory bomb starved of CPU on a busy machine could meet the call limit first.
ROOMY = Limits(call_timeout_s=10, run_timeout_s=30, memory_mb=512, output_bytes=16 * 1024)
SLACK_S = 2.0  # kill + reap + a loaded 2-core machine
X = np.arange(4, dtype=np.float32)


# ---------------------------------------------------------------- processes


def _proc_identity(pid: int) -> tuple[int, int] | None:
    """(ppid, start tick) of a live (non-zombie) process, else None."""
    try:
        data = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = data[data.rindex(b")") + 2 :].split()
    return None if fields[0] == b"Z" else (int(fields[1]), int(fields[19]))


def _tree(pid: int) -> dict[int, int]:
    """pid -> start tick for pid and all its live descendants."""
    out, todo = {}, [pid]
    while todo:
        p = todo.pop()
        ident = _proc_identity(p)
        if ident is None:
            continue
        out[p] = ident[1]
        for tid in os.listdir(f"/proc/{p}/task") if os.path.isdir(f"/proc/{p}/task") else []:
            try:
                todo += [int(c) for c in Path(f"/proc/{p}/task/{tid}/children").read_text().split()]
            except OSError:
                pass
    return out


def _still_alive(tree: dict[int, int]) -> list[int]:
    return [p for p, tick in tree.items() if (_proc_identity(p) or (0, -1))[1] == tick]


def _my_children() -> list[int]:
    me = os.getpid()
    return [
        int(p)
        for p in os.listdir("/proc")
        if p.isdigit() and (_proc_identity(int(p)) or (0, 0))[0] == me
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


@pytest.fixture(scope="module", autouse=True)
def processes_allowed():
    """The worker refuses to start processes (judge/worker/confine.py); the forking
    cases here test the backstops behind that refusal (the tree's memory, escapees
    killed at close), so this module runs with it lifted."""
    before = os.environ.get("JUDGE_WORKER_PROCESSES")
    os.environ["JUDGE_WORKER_PROCESSES"] = "allowed"
    yield
    if before is None:
        os.environ.pop("JUDGE_WORKER_PROCESSES", None)
    else:
        os.environ["JUDGE_WORKER_PROCESSES"] = before


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
        tree = _tree(worker.pid)
        worker.close()
        out.left_behind = _still_alive(tree)
        out.output = worker.output()
    return out


def _run(worker: Worker, out: Outcome, path: str, name: str, kwargs: dict, t_spawn: float):
    try:
        out.reply, _ = worker.request(
            {
                "op": "load",
                "path": path,
                "display_name": f"{name}.py",
                "entrypoint": "solve",
                "probe": True,
            }
        )
        out.elapsed_s = time.monotonic() - t_spawn - worker.ready_s
        if not out.reply.get("ok"):
            return
        out.stage = "call"
        blobs: list[bytes] = []
        header = {
            "op": "call",
            "args": [wire.encode(X, blobs)],
            "kwargs": {k: wire.encode(v, blobs) for k, v in kwargs.items()},
            "label": "example",
            "probe": True,
        }
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


def _limits(name: str) -> Limits:
    return ROOMY if name in MEMORY_CASES else LIMITS


@pytest.fixture(scope="module")
def graded():
    """Grade every (case, mode) concurrently; also record what the judge had as children
    before and after, to prove nothing outlived its worker."""
    children_before = set(_my_children())
    jobs = [(name, mode) for name in CASES for mode in MODES]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = {job: pool.submit(grade, *job, limits=_limits(job[0])) for job in jobs}
        results = {job: f.result() for job, f in futures.items()}
    return results, set(_my_children()) - children_before


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(graded, name, mode):
    outcome = graded[0][(name, mode)]
    CASES[name](outcome, mode)
    limit = _limits(name).call_timeout_s
    busy = os.getloadavg()[0] > len(os.sched_getaffinity(0))
    if busy or (outcome.failure is not None and outcome.failure.kind == "timeout"):
        # the limits count the code's own time: on a busy machine the clock runs
        # longer than that, never longer than the judge's wall-clock backstop
        assert outcome.elapsed_s <= WALL_FACTOR * limit
    else:
        assert outcome.elapsed_s <= limit + SLACK_S
    assert outcome.left_behind == [], "processes of the worker outlived close()"


def test_nothing_outlives_the_pool(graded):
    assert graded[1] == set()


# ---------------------------------------------------------------- run alone


@pytest.mark.parametrize("mode", MODES)
def test_escaped_grandchild_dies_at_close(mode):
    before = set(_my_children())  # other tests' helpers may live on

    def escapee_state(worker, out):
        assert out.reply.get("ok"), out.failure or out.reply
        pid = out.value
        if mode == "process":
            # re-parented to the judge (a subreaper): the watch finds it there and kills
            # it while the worker still runs, well before close()
            deadline = time.monotonic() + 2.0
            while _proc_identity(pid) is not None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _proc_identity(pid) is None, "the escapee outlived the watch"
            return {}
        # Under bubblewrap the pid is the namespace's; it must still be in the sandbox.
        return {"tree_size": len(_tree(worker.pid))}

    out = grade("escape_fork", mode, inspect=escapee_state)
    assert out.left_behind == []
    if mode == "process":
        assert _still_alive(out.before_close) == []
    else:
        assert out.before_close["tree_size"] >= 4  # bwrap, bwrap, python, the escapee
    assert set(_my_children()) - before == set()


@pytest.mark.parametrize("mode", MODES)
def test_reference_is_out_of_reach(mode, tmp_path):
    bank = tmp_path / "bank"
    for folder in ("reference", "tasks"):
        (bank / folder).mkdir(parents=True)
        (bank / folder / "secret.py").write_text("ANSWER = 42\n")
    hidden = [str(bank / "reference"), str(bank / "tasks")]
    sibling = tempfile.mkdtemp(dir=scratch_root())  # another worker's scratch dir
    Path(sibling, "secret.py").write_text("ANSWER = 42\n")
    repo_root = str(ROOT)
    try:
        out = grade(
            "peek_reference",
            mode,
            hidden=hidden,
            kwargs={"roots": [repo_root, str(bank)], "hidden": hidden + [sibling]},
        )
    finally:
        shutil.rmtree(sibling)
    assert out.failure is None and out.reply["ok"], out.failure or out.reply
    found = out.value
    assert found["reference"] == found["judge"] == found["tasks"] == "ImportError"
    assert found["judge.worker.wire"] == "ImportError"
    assert found["relative"] == []
    assert set(found["hidden"]) == set(hidden + [sibling])
    if mode == "bubblewrap":  # not in its view of the file system at all
        assert all(v == "FileNotFoundError" for v in found["hidden"].values()), found
    elif landlock_abi():  # outside what Landlock allows
        assert all(v == "PermissionError" for v in found["hidden"].values()), found
    else:  # no mount namespace, no Landlock: an absolute path still reads (README says so)
        assert found["hidden"] == {path: ["secret.py"] for path in hidden + [sibling]}
