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
from pathlib import Path

import pytest

from judge.sandbox import scratch_root
from judge.sandbox.clock import WALL_FACTOR
from judge.sandbox.policy import landlock_abi

from helpers import ROOT
from helpers.hostile_workers import (
    CASES,
    SLACK_S,
    grade,
    limits_of,
    my_children,
    proc_identity,
    still_alive,
    tree,
)
from helpers.isolation_modes import BWRAP, MODES, needs_bwrap  # noqa: F401


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


@pytest.fixture(scope="module")
def graded():
    """Grade every (case, mode) concurrently; also record what the judge had as children
    before and after, to prove nothing outlived its worker."""
    children_before = set(my_children())
    jobs = [(name, mode) for name in CASES for mode in MODES]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        futures = {job: pool.submit(grade, *job, limits=limits_of(job[0])) for job in jobs}
        results = {job: f.result() for job, f in futures.items()}
    return results, set(my_children()) - children_before


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(graded, name, mode):
    outcome = graded[0][(name, mode)]
    CASES[name](outcome, mode)
    limit = limits_of(name).call_timeout_s
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
    before = set(my_children())  # other tests' helpers may live on

    def escapee_state(worker, out):
        assert out.reply.get("ok"), out.failure or out.reply
        pid = out.value
        if mode == "process":
            # re-parented to the judge (a subreaper): the watch finds it there and kills
            # it while the worker still runs, well before close()
            deadline = time.monotonic() + 2.0
            while proc_identity(pid) is not None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert proc_identity(pid) is None, "the escapee outlived the watch"
            return {}
        # Under bubblewrap the pid is the namespace's; it must still be in the sandbox.
        return {"tree_size": len(tree(worker.pid))}

    out = grade("escape_fork", mode, inspect=escapee_state)
    assert out.left_behind == []
    if mode == "process":
        assert still_alive(out.before_close) == []
    else:
        assert out.before_close["tree_size"] >= 4  # bwrap, bwrap, python, the escapee
    assert set(my_children()) - before == set()


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
