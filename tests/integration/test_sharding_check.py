"""The sharding check: layouts are the same when the same parts land on the same
devices, whatever the spelling; the message says both in words.

Here: the tests that start a worker or a `judge` process; tests/unit/test_sharding_check.py has the
rest."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from judge.bank import load_bank
from judge.runner import grade
from judge.verdicts import Verdict

from helpers.isolation_modes import MODES

BANK = load_bank()


def submit(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "submission.py"
    path.write_text(textwrap.dedent(body))
    return path


@pytest.mark.parametrize("isolation", MODES)
def test_a_fake_array_that_claims_the_right_layout_does_not_pass(tmp_path, isolation, monkeypatch):
    # an object from a module named jax..., with the reference's sharding as an
    # attribute and the right values: the worker reads layouts of jax's arrays only
    monkeypatch.setenv("JUDGE_ISOLATION", isolation)  # what the learner's worker gets
    report = grade(
        BANK.get("shard_rows"),
        submit(
            tmp_path,
            """
        import jax
        import numpy as np
        from jax.sharding import NamedSharding, PartitionSpec as P


        class Sharded:
            __module__ = "jax.numpy"

            def __init__(self, values):
                self.values = values
                self.dtype, self.shape = values.dtype, values.shape
                mesh = jax.make_mesh((8,), ("data",))
                self.sharding = NamedSharding(mesh, P("data", None))

            def __array__(self, dtype=None, copy=None):
                return self.values


        def shard_rows(x):
            return Sharded(np.pad(x, ((0, -x.shape[0] % 8), (0, 0))))
    """,
        ),
    )
    sharding = next(c for c in report.checks if c.id == "sharding")
    assert report.verdict == Verdict.WRONG_ANSWER
    assert sharding.status == "failed", sharding.message
