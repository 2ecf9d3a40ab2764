"""How large a learner's reply may be: bounded by the expected result (the reference's
value for the same inputs) once the reference has it, else by the largest expected
result so far, so the judge never holds gigabytes of a learner's arrays."""

from __future__ import annotations

from concurrent.futures import Future

import numpy as np

from judge.bank import load_bank
from judge.runner import Grading
from judge.worker import wire

from helpers import TESTS

BANK = TESTS / "trust_bank"


def test_the_expected_result_bounds_the_reply(tmp_path):
    task = load_bank(BANK).get("double")
    grading = Grading(task, tmp_path / "x.py")
    args = {"x": wire.Leaf(np.zeros(4, np.float32), "jax")}
    unknown = grading._reply_limit({"x": wire.Leaf(np.zeros(1, np.float32), "jax")})
    assert unknown() == (16 << 20, 0, False)
    pending: Future = Future()
    grading._expected[id(args)] = (args, pending)
    value = wire.Leaf(np.zeros(100, np.float32), "jax")
    pending.set_result(value)
    grading._note_expected([value])
    assert grading._reply_limit(args)() == (4 * 400 + (1 << 20), 400, True)
    assert unknown() == (16 << 20, 400, False)
