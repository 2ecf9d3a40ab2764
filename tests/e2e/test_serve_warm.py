"""What the service keeps warm: learner workers that died while they waited are not
handed out, references are retired and replaced without a grading waiting for it, and
a judge error is graded once more with nothing warm (or, when the service is stopping,
left for the next start)."""

from __future__ import annotations

import os
import signal
import time

import pytest

pytest.importorskip("starlette")

from judge.bank import load_bank  # noqa: E402
from judge.runner import grade  # noqa: E402
from judge.serve.queue import GradingQueue  # noqa: E402
from judge.serve.store import Store  # noqa: E402
from judge.serve.warm import LearnerPool, WarmOracles, _running  # noqa: E402

from helpers import until
from helpers.serve_server import RIGHT, TASK, make_bank  # noqa: E402


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    return load_bank(make_bank(tmp_path_factory.mktemp("warm") / "bank"))


class _Backend:
    """Grades by a script of verdicts: what the queue does with each is the point."""

    def __init__(self, verdicts):
        self.verdicts, self.calls = list(verdicts), []

    def grade(self, job, *, fresh=False):
        self.calls.append(fresh)
        return {"verdict": self.verdicts.pop(0), "task": job.task}


def _queue(tmp_path, backend):
    store = Store(tmp_path / "s.sqlite").open()
    added = store.add(
        key="k",
        task=TASK,
        seed=1,
        strict=False,
        filename="submission.py",
        source=b"x",
        client="loopback",
        callback_url=None,
    )
    changes = []
    queue = GradingQueue(
        store, backend, workers=1, limit=5, on_change=lambda i, state, r: changes.append(state)
    )
    return store, added.id, queue, changes


def test_a_judge_error_is_graded_again_with_nothing_warm(tmp_path):
    backend = _Backend(["judge_error", "accepted"])
    store, sub_id, queue, changes = _queue(tmp_path, backend)
    queue.start()
    until(lambda: store.get(sub_id)["state"] == "done")
    assert backend.calls == [False, True]
    assert '"accepted"' in store.get(sub_id)["report"] and changes == ["running", "done"]
    queue.close()


def test_a_judge_error_while_stopping_waits_for_the_next_start(tmp_path):
    store, sub_id, queue, changes = _queue(tmp_path, None)

    class Stopping(_Backend):
        def grade(self, job, *, fresh=False):
            queue.close()  # the service stops while this one grades
            return super().grade(job, fresh=fresh)

    queue.backend = Stopping(["judge_error"])
    queue.start()
    until(lambda: queue.running == 0 and changes == ["running"])
    time.sleep(0.2)
    assert store.get(sub_id)["state"] == "running"  # requeued when the store opens again
    store.close()
    assert Store(tmp_path / "s.sqlite").open().queued_ids() == [sub_id]


@pytest.mark.slow
def test_a_warm_worker_that_died_is_not_handed_out(bank, tmp_path):
    task = bank.get(TASK)
    pool = LearnerPool(bank, 2)
    pool.start()
    try:
        until(lambda: pool.warm == pool.target == 2)
        victim = pool._idle[(task.limits, task.devices)][0]
        os.kill(victim.pid, signal.SIGKILL)
        until(lambda: not _running(victim))
        worker = pool.take(task)
        assert worker is not None and worker is not victim and _running(worker)
        assert victim.closed and pool.taken == 1
        path = tmp_path / "right.py"
        path.write_text(RIGHT)
        assert grade(task, path, worker=worker).verdict == "accepted"
        assert worker.closed  # the grading closed it: never reused
        until(lambda: pool.warm == 2)  # and the pool refilled
    finally:
        pool.close()


@pytest.mark.slow
def test_a_reference_is_retired_and_replaced_in_the_background(bank):
    task = bank.get(TASK)
    oracles = WarmOracles(bank, retire_after=2)  # no start(): no warm-up of every task
    try:
        first = oracles.acquire(task)
        oracles.release(task, first)
        assert oracles.warm == 1 and first.served == 1
        again = oracles.acquire(task)  # its second grading: time to replace it
        assert again is first
        until(lambda: oracles._slots[TASK].current is not first)
        assert first.oracle.session.alive  # still in use: not closed under it
        oracles.release(task, first)
        assert not first.oracle.session.alive  # its last grading is done: closed
        fresh = oracles._slots[TASK].current
        assert fresh.ready and fresh.oracle.session.alive

        fresh.oracle.session.worker.stop()  # a reference that died
        until(lambda: not _running(fresh.oracle.session.worker))
        assert oracles.warm == 0
        replaced = oracles.acquire(task)
        assert replaced is not fresh and replaced.oracle.session.alive
        oracles.release(task, replaced)
    finally:
        oracles.close()
    assert not replaced.oracle.session.alive
