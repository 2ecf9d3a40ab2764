"""The learner pool's idle rule (judge/serve/warm.py) with stand-in workers: left alone
for ``idle_s`` it keeps one worker, of the kind asked for last, and the next take fills
it again.  tests/e2e/test_serve_idle_workers.py shows the same through HTTP with real
workers."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("starlette")

import judge.serve.warm as warm  # noqa: E402
from judge.bank import load_bank  # noqa: E402
from judge.serve.warm import LearnerPool, pool_key  # noqa: E402

from helpers import until
from helpers.serve_server import TASK, make_bank  # noqa: E402

OTHER = "safe_mean"  # other limits than TASK's: another kind of worker


class _Worker:
    """What the pool asks of a worker: a live pid, stop and close."""

    def __init__(self, limits, devices=None, **kw):
        self.key = (limits, devices)
        self.pid = os.getpid()  # running, as /proc says
        self.closed = False

    def stop(self):
        pass

    def close(self):
        self.closed = True


@pytest.fixture
def started(monkeypatch):
    made: list[_Worker] = []

    def start(limits, *, hidden_paths=(), devices=None, isolation=None):
        made.append(_Worker(limits, devices))
        return made[-1]

    monkeypatch.setattr(warm, "start_learner_worker", start)
    return made


@pytest.fixture(scope="module")
def bank(tmp_path_factory):
    return load_bank(make_bank(tmp_path_factory.mktemp("pool") / "bank", (TASK, OTHER)))


def _held(pool) -> dict:
    return {k: len(q) for k, q in pool._idle.items() if q}


def _settled(pool) -> bool:
    """Nothing left for the refill to do (holding as many as it should is not enough: a
    worker may be due to be closed and another started)."""
    with pool._cond:
        return pool._full()


def test_a_quiet_pool_keeps_one_of_the_kind_asked_for_last_and_fills_again(bank, started):
    task, other = bank.get(TASK), bank.get(OTHER)
    assert pool_key(task) != pool_key(other)
    pool = LearnerPool(bank, 3, idle_s=0.5, isolation="process")
    pool.start()
    try:
        until(lambda: pool.released >= 2)  # filled to 3, then two given back
        assert pool.released == 2 and len(started) == 3
        assert pool.warm == pool.target == 1 and pool.size == 3

        first = pool.take(other)  # the one kept (of its kind), or None if it is TASK's
        until(lambda: pool.released >= 4)  # filled to 3 again, quiet again: 1 left
        assert pool.warm == pool.target == 1
        assert _held(pool) == {pool_key(other): 1}, _held(pool)  # the kind asked for last
        kept = pool._idle[pool_key(other)][0]
        assert not kept.closed and kept is not first
        assert sum(w.closed for w in started) == pool.released == 4
        assert len(started) == 1 + pool.released + (first is not None)
    finally:
        pool.close()
    assert all(w.closed for w in started if w is not first)


def test_a_pool_of_one_is_never_cut(bank, started):
    pool = LearnerPool(bank, 1, idle_s=5, isolation="process")
    pool.start()
    try:
        until(lambda: pool.warm == 1)
        with pool._cond:
            pool._touched -= 60  # left alone for a minute
            assert pool._quiet_in() is None  # nothing to wait for: one is what it keeps
            pool._check_quiet()
            assert pool._full() and pool._surplus() is None
        assert pool.warm == pool.target == 1 and pool.released == 0
    finally:
        pool.close()


def test_places_are_shared_in_proportion_to_what_was_asked():
    assert warm.shares(["a"] * 8 + ["b"] * 2, 2) == {"a": 2}
    assert warm.shares(["a", "b"] * 5, 2) == {"a": 1, "b": 1}
    assert warm.shares(["a", "b", "a", "b"], 3) == {"a": 1, "b": 2}  # a tie: the last asked
    assert warm.shares(["a"] * 6 + ["b"] * 3 + ["c"], 4) == {"a": 2, "b": 1, "c": 1}
    assert warm.shares([], 2) == {} and warm.shares(["a"], 0) == {}


def test_a_kind_asked_for_now_and_then_does_not_churn_the_pool(bank, started):
    """One grading in five of the other kind, two places: no worker is started for it and
    closed unused when the next grading asks for the common kind again (each such worker
    is a whole start of jax thrown away)."""
    task, other = bank.get(TASK), bank.get(OTHER)
    pool = LearnerPool(bank, 2, idle_s=3600, isolation="process")
    pool.start()
    try:
        for i in range(20):
            until(lambda: pool.warm == 2)
            got = pool.take(other if i % 5 == 4 else task)
            if got is not None:
                got.close()
        until(lambda: pool.warm == 2)
        assert pool.released <= 1, pool.released  # at most the start's guess, once
        assert _held(pool) == {pool_key(task): 2}
    finally:
        pool.close()


def test_a_started_worker_is_kept_while_its_kind_is_still_asked_for(bank, started):
    """One grading in four of the other kind, two places: the shares tip between {TASK: 2}
    and {TASK: 1, OTHER: 1} with every take, and a pool that followed them closed the
    other kind's worker each time TASK was asked for last. It is kept now, and taken by
    the next grading of its kind."""
    task, other = bank.get(TASK), bank.get(OTHER)
    pool = LearnerPool(bank, 2, idle_s=3600, isolation="process")
    pool.start()
    try:
        got_other = 0
        for i in range(24):
            until(lambda: pool.warm == 2)
            got = pool.take(other if i % 4 == 3 else task)
            if got is not None:
                got_other += i % 4 == 3
                got.close()
        assert pool.released == 0, pool.released
        assert got_other == 6 and pool.missed == 0, (got_other, pool.missed)
    finally:
        pool.close()


def test_a_class_that_moves_to_another_kind_gets_its_workers(bank, started):
    """Both places held by the kind a class asked for all along; the class moves to a task
    of another kind. Once that kind is owed a whole place by its quota, the pool closes
    the worker held furthest beyond its own and starts one of the new kind: a pool that
    kept every worker whose kind was still remembered missed every grading of the window
    (16 here, against 8 now)."""
    task, other = bank.get(TASK), bank.get(OTHER)
    pool = LearnerPool(bank, 2, idle_s=3600, isolation="process")
    pool.start()
    try:
        for _ in range(2 * warm.WANT_WINDOW):
            until(lambda: _settled(pool))
            got = pool.take(other)
            if got is not None:
                got.close()
        until(lambda: _settled(pool))
        assert _held(pool) == {pool_key(other): 2}
        missed_before, hits = pool.missed, []
        for _ in range(2 * warm.WANT_WINDOW):
            until(lambda: _settled(pool))
            got = pool.take(task)
            hits.append(got is not None)
            if got is not None:
                got.close()
        missed = pool.missed - missed_before
        # owed a whole place of two once it is half the remembered gradings: the 8th
        assert missed <= warm.WANT_WINDOW, (missed, hits)
        assert all(hits[missed:]), hits  # once it has a worker, every grading does
        until(lambda: _settled(pool))
        assert _held(pool) == {pool_key(task): 2}
    finally:
        pool.close()
