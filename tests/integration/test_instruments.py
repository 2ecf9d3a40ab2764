"""Tampering with the judge's instruments shows: the worker's own check after every
call (judge/worker/integrity.py), and XLA's compile count taken from outside the worker
(judge/compile_log.py) against the probe's.

Here: the tests that start a worker or a `judge` process; tests/unit/test_instruments.py has the
rest."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.isolation_modes import MODES


@pytest.mark.parametrize("mode", MODES)
def test_a_learners_worker_writes_a_compile_log_the_judge_can_watch(tmp_path, monkeypatch, mode):
    """End to end, in every isolation mode: the learner's worker has XLA record its
    compiles inside its scratch, and the judge's count follows the probe's call by call."""
    from judge.bank import Limits
    from judge.session import Session

    monkeypatch.setenv("JUDGE_ISOLATION", mode)  # what the learner's worker gets
    submission = tmp_path / "s.py"
    submission.write_text("import jax\n\ndef f(x):\n    return jax.jit(lambda v: v * 2)(x)\n")
    session = Session(submission, "s.py", "f", Limits())
    session.start()
    try:
        loaded = session.load()
        assert loaded.ok, loaded.message
        worker = session.worker
        assert worker.isolation == mode
        log = worker.compile_log  # opened before the submission was sent
        assert log is not None, loaded.value
        log.count()
        from judge.worker.wire import Leaf

        for n in (3, 4, 4):
            out = session.call({"x": Leaf(np.ones(n, np.float32), "jax")}, "call")
            assert out.ok and out.tampered == [], out.tampered
            assert log.count() == out.compiles_seen
        assert out.compiles_seen >= 3  # a fresh jit per call: every call compiles
    finally:
        session.close()
