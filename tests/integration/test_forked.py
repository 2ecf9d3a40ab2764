"""Workers forked from a warm sandbox (``forked`` isolation, judge/sandbox/zygote.py):
they grade as a sandbox of their own would, and none of them can reach another, the
sandbox's server, or what an earlier worker left.

Each attack is a file of tests/hostile/ loaded as a learner's and called; a victim
worker of the same sandbox runs beside it and must answer right afterwards.  Each test
would fail without the defence it names: without a worker's own Landlock domain its
siblings would be in reach (same uid, same pid namespace, same /tmp), without the
closed control socket the server would fork on a learner's word, without slots used
once a file would meet the next learner.
"""

from __future__ import annotations

import os
import resource
import time

import numpy as np
import pytest

from judge.sandbox import Limits, Worker, WorkerFailure, forked_unavailable
from judge.sandbox import zygote as zygote_mod
from judge.worker import wire

from helpers import TESTS
from helpers import hostile_workers as hostile

WHY = forked_unavailable()
pytestmark = pytest.mark.skipif(bool(WHY), reason=f"no forked isolation here: {WHY}")

HOSTILE = TESTS / "hostile"
LIMITS = Limits(call_timeout_s=5, run_timeout_s=30, memory_mb=1024)
X = hostile.X
VICTIM = """
import os
import resource
with open(os.path.join(os.environ["HOME"], "marker.txt"), "w") as f:
    f.write("the victim's own")

def solve(x):
    with open(os.path.join(os.environ["HOME"], "marker.txt")) as f:
        assert f.read() == "the victim's own"
    return x * 2
"""


def start(limits: Limits = LIMITS) -> Worker:
    worker = Worker(limits, isolation="forked")
    worker.start()
    return worker


def load(worker: Worker, source: str, name: str = "submission.py") -> dict:
    path = os.path.join(worker.scratch, name)
    with open(path, "w") as f:
        f.write(source)
    os.chmod(path, 0o644)
    reply, _ = worker.request(hostile.load_header(path, name))
    return reply


def call(worker: Worker, **kwargs):
    blobs: list[bytes] = []
    reply, rblobs = worker.request(hostile.call_header(kwargs, blobs), blobs)
    assert reply.get("ok"), reply
    value = wire.decode(reply["result"], rblobs)
    return value.array if isinstance(value, wire.Leaf) else value


def a_later_worker_grades_right() -> zygote_mod.Zygote:
    """A worker started now loads and answers right; the warm sandbox it came from."""
    later = start()
    try:
        assert load(later, VICTIM)["ok"]
        np.testing.assert_array_equal(call(later), X * 2)
        return later._proc.zygote
    finally:
        later.close()


@pytest.fixture
def victim():
    worker = start()
    try:
        assert load(worker, VICTIM)["ok"]
        yield worker
    finally:
        worker.close()


def test_forked_worker_says_what_holds_it(victim):
    assert victim.isolation == "forked"
    assert any(layer.startswith("landlock") for layer in victim.layers)
    assert victim.home.startswith("/tmp/w/")
    assert victim.ready_s is not None
    np.testing.assert_array_equal(call(victim), X * 2)


def test_siblings_and_server_out_of_reach(victim):
    attacker = start()
    try:
        assert load(attacker, (HOSTILE / "reach_siblings.py").read_text())["ok"]
        found = call(
            attacker,
            victim=victim._proc.ns_pid,
            victim_home=victim.home,
            victim_file=os.path.join(victim.scratch, "submission.py"),
        )
        # the attacker's own work still works: its slot is its own to write
        np.testing.assert_array_equal(call(victim), X * 2)
    finally:
        attacker.close()
    # kill(-1) answers 0 when it was refused for every process it tried (the kernel
    # reports EPERM only for a single target): what it did is judged by its effect below
    found.pop("kill every process")
    allowed = {route: outcome for route, outcome in found.items() if outcome.startswith("ALLOWED")}
    assert allowed == {}, allowed
    assert len(found) >= 30, sorted(found)
    # the victim lived through it, its slot untouched, and answers right
    np.testing.assert_array_equal(call(victim), X * 2)
    assert victim._proc.status() is None


def test_server_forks_only_for_the_judge(victim):
    """The victim's call above proves the control socket is not among a worker's
    descriptors; here the server still forks for the judge after an attack tried."""
    attacker = start()
    try:
        assert load(attacker, (HOSTILE / "reach_siblings.py").read_text())["ok"]
        found = call(attacker, victim=victim._proc.ns_pid)
        assert found["server's control socket"].startswith("denied: LookupError"), found
    finally:
        attacker.close()
    a_later_worker_grades_right()


def test_a_slot_meets_one_worker_only():
    first = start()
    try:
        assert load(first, VICTIM)["ok"]
        first_home = first.home
    finally:
        first.close()
    second = start()
    try:
        assert second.home != first_home
        probe = f"""
import os
import resource
def solve(x):
    try:
        os.listdir({first_home!r})
        return "READ"
    except OSError as exc:
        return type(exc).__name__ + ":" + ",".join(sorted(os.listdir(os.environ["HOME"])))
"""
        assert load(second, probe)["ok"]
        seen = call(second)
        assert seen.startswith("PermissionError:"), seen
        assert "marker.txt" not in seen
    finally:
        second.close()


def test_a_slot_is_emptied_when_its_worker_is_closed():
    """Its tmpfs lives as long as the warm sandbox: what a worker left there is not
    kept, unaccounted for, until the sandbox ends."""
    worker = start()
    zygote, slot = worker._proc.zygote, worker.home
    try:
        leave = "import os\ndef solve(x):\n    open(os.path.join(os.environ['HOME'], 'left'), 'wb').write(b'1' * (2 << 20))\n    return x * 2\n"
        assert load(worker, leave)["ok"]
        np.testing.assert_array_equal(call(worker), X * 2)
        fd = zygote.slot_fd(zygote.slots.index(slot))
        try:
            assert "left" in os.listdir(fd)
        finally:
            os.close(fd)
    finally:
        worker.close()
    fd = zygote.slot_fd(zygote.slots.index(slot))
    try:
        assert os.listdir(fd) == []
        assert os.fstatvfs(fd).f_bfree == os.fstatvfs(fd).f_blocks
    finally:
        os.close(fd)


def test_a_full_slot_is_its_own_worker_s_trouble(victim):
    """Each slot is a tmpfs of its own, of the worker's /tmp size: one worker filling
    its own leaves every sibling its whole room."""
    filler = start()
    try:
        fill = """
import os
import resource
def solve(x):
    written = 0
    try:
        while written < 256:
            with open(os.path.join(os.environ["HOME"], f"fill{written}"), "wb") as f:
                f.write(b"\\0" * (1 << 20))
            written += 1
    except OSError as exc:
        return f"{exc.strerror} after {written} MB"
    return "never full"
"""
        assert load(filler, fill)["ok"]
        said = call(filler)
        assert said.startswith("No space left on device after"), said
        assert int(said.split()[-2]) <= LIMITS.scratch_mb, said
        write_more = """
import os
import resource
def solve(x):
    with open(os.path.join(os.environ["HOME"], "more"), "wb") as f:
        f.write(b"\\0" * (2 << 20))
    return x * 2
"""
        assert load(victim, write_more, "more.py")["ok"]
        np.testing.assert_array_equal(call(victim), X * 2)
    finally:
        filler.close()


def test_a_dead_server_takes_its_workers_and_the_next_starts_anew(victim):
    zygote = victim._proc.zygote
    from judge.sandbox import procs

    procs.kill_tree(zygote._proc.pid)
    deadline = time.monotonic() + 10
    while victim._proc.status() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    with pytest.raises(WorkerFailure) as lost:
        call(victim)
    # reaped by the sandbox's init, how it ended unknown: the judge's trouble, never
    # the learner's "exit code 0"
    assert lost.value.kind == "lost", lost.value.message
    assert a_later_worker_grades_right() is not zygote


def test_a_server_whose_limits_changed_forks_no_more():
    """What a child inherits from the server must be what the server started with: a
    limit set on it from outside (its workers' filter refuses them that; the judge,
    root, can) makes it refuse to fork, and the next worker comes from a new sandbox."""
    from judge.sandbox import procs

    first = start()
    zygote = first._proc.zygote
    try:
        init = procs.descendants(zygote._proc.pid, limit=1)[0]
        server = procs.descendants(init, limit=1)[0]
        resource.prlimit(server, resource.RLIMIT_FSIZE, (0, 0))
    finally:
        first.close()
    assert a_later_worker_grades_right() is not zygote
    assert zygote.spent


def test_pid_is_held_until_the_judge_lets_go():
    """An ended worker stays a zombie of its server until the handle is closed: a pid the
    judge may still signal is never another process's."""
    worker = start()
    pid = worker.pid
    try:
        assert load(worker, "import os\ndef solve(x):\n    os._exit(3)\n")["ok"]
        with pytest.raises(WorkerFailure):
            call(worker)
        with open(f"/proc/{pid}/stat", "rb") as f:
            assert f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    finally:
        worker.close()
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not os.path.exists(f"/proc/{pid}")


@pytest.mark.parametrize("name", sorted(set(hostile.CASES) - {"memory_forked"}))
def test_hostile_cases_end_as_in_a_sandbox_of_their_own(name):
    """Every case of test_hostile.py (helpers/hostile_workers.py) but the one that forks (a forked worker can start
    no process: escape_fork below), judged by the same expectations."""
    outcome = hostile.grade(name, "forked", limits=hostile.limits_of(name))
    hostile.CASES[name](outcome, "forked")
    assert outcome.left_behind == []


def test_a_forked_worker_starts_no_process():
    outcome = hostile.grade("escape_fork", "forked")
    assert outcome.failure is None and not outcome.reply.get("ok"), outcome.reply
    assert "does not let your code start a process" in outcome.reply["error"]["message"]
    assert outcome.left_behind == []


def test_zygotes_close_leaves_nothing():
    registry = zygote_mod.Zygotes()
    zygote, slot = registry.slot((), 64 << 20)
    zygote.wait_ready()
    pid = zygote._proc.pid
    zygote.release(None)
    registry.close()
    assert zygote._proc.poll() is not None
    assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().split()[2] == "Z"


def test_the_server_has_imported_what_a_first_call_needs_and_is_still_single_threaded(tmp_path):
    """A fork starts where a cold worker is after its first call: the worker's instruments
    and what jax imports on its first lowering are the server's, once (about 70 ms a
    grading otherwise), and the server can still fork (one thread)."""
    import subprocess
    import sys

    script = (
        "import sys, threading\n"
        "from judge.worker import zygote\n"
        "zygote._warm()\n"
        "wanted = ['judge.worker.probe', 'judge.worker.syncs', 'judge.worker.integrity',"
        " 'judge.worker.custom_calls', 'judge.worker.jax_frames',"
        " 'jaxlib.mlir.dialects.mhlo', 'jax.experimental.multihost_utils']\n"
        "print([m for m in wanted if m not in sys.modules], threading.active_count(),"
        " zygote._single_threaded())\n"
    )
    from judge.sandbox.policy import base_env

    out = subprocess.run(
        [sys.executable, "-c", script],
        env=base_env(str(tmp_path)),  # the server's
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert out.stdout.split() == ["[]", "1", "True"], out.stdout + out.stderr
