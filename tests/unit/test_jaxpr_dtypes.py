"""The ``jaxpr`` kind's ``forbid_dtypes``: no value computed in the program may have a
forbidden dtype (float64 from a learner who turned on x64 and cast back at the end)."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import pytest

from judge.bank import BankError
from judge.verdicts import Status, Verdict

from helpers.jaxpr import calls, check, measure


def test_the_instrument_counts_the_dtypes_of_every_computed_value():
    def mean64(x):
        return jnp.mean(x.astype(jnp.float64)).astype(jnp.float32)

    with jax.enable_x64(True):
        figures, kept = measure(mean64, jnp.ones(3, jnp.float32))
    assert figures["dtypes"] == {"float64": 3, "float32": 1}  # convert, sum, div; the cast back
    assert float(kept) == 1.0
    plain, _ = measure(lambda x: jnp.mean(x), jnp.ones(3, jnp.int32))
    assert "float64" not in plain["dtypes"] and plain["dtypes"]["float32"] >= 1


def test_a_forbidden_dtype_fails_with_where_it_comes_from():
    c = check(
        budget="reference",
        slack=4,
        forbid_dtypes=["float64"],
        cause="a loop unrolled into the program",
    )
    used = calls([4, 4, 4, 4], refs=[4] * 4, first_line={"dtype:float64": 9})
    for call in used:
        call.mine["dtypes"] = {"float64": 3, "float32": 1}
    result = c.judge(None, used)
    assert result.status == Status.FAILED and result.verdict == Verdict.INEFFICIENT
    assert (
        "your program computes in float64 (3 values at size=0, first from line 9 of "
        "your file: `y = a * x[t] + y`)" in result.message
    )
    # the kind knows why float64 appears; the task's cause is about something else
    assert "Usual cause: 64-bit mode turned on (jax_enable_x64)" in result.message
    assert "a loop unrolled" not in result.message
    clean = calls([4, 4, 4, 4], refs=[4] * 4)
    for call in clean:
        call.mine["dtypes"] = {"float32": 4}
    passed = c.judge(None, clean)
    assert passed.status == Status.PASSED and "no float64 values" in passed.message


def test_forbid_dtypes_alone_is_a_check_and_must_be_a_list_of_names():
    assert check(forbid_dtypes=["float64"]).forbid_dtypes == ["float64"]
    with pytest.raises(BankError, match=re.escape("a list of dtype names")):
        check(forbid_dtypes=[3])
