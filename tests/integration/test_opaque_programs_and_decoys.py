"""The attack review of 2026-12-02, findings 2 and 4.

2: a program the judge cannot read into (a ``jax.export``'ed program's call, a primitive
whose lowering the learner registered) is one equation however much it runs: the
executed figure is unknown and the jaxpr check fails closed.
4: the off-device rule took any array as large of the input's dtype for the input; now
only the input itself, or a host copy of its values sent to the device during the call
and read by a program, counts."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from judge.verdicts import Status, Verdict
from judge.worker.measure import _record_executions

from helpers.isolation_modes import MODES, grade_known_in


def test_an_exported_program_makes_the_executed_figure_unknown():
    from jax import export

    executions = _record_executions()
    x = jnp.ones(8)
    exported = export.export(jax.jit(lambda a: a * 2))(jax.ShapeDtypeStruct((8,), jnp.float32))
    exported.call(x)
    with executions.recording() as ran:
        exported.call(x)
    summary = executions.summary(ran)
    assert summary["equations"] is None
    assert "jax.export" in summary["opaque"]


def test_a_decoy_as_large_does_not_stand_in_for_the_input():
    executions = _record_executions()
    host = np.arange(12, dtype=np.float32)
    mean = jax.jit(jnp.mean)
    decoy = jnp.zeros(512, jnp.float32)
    mean(decoy)
    with executions.recording() as ran:
        mean(decoy)  # made before the call
        mean(jnp.zeros(16, jnp.float32))  # made on the device in the call
        mean(np.zeros(16, np.float32))  # made on the host in the call, none of x's values
    assert executions.inputs_read([host], ran) == [False]
    with executions.recording() as ran:
        mean(np.concatenate([host, np.zeros(4, np.float32)]))  # a padded copy of x
    assert executions.inputs_read([host], ran) == [True]


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize(
    "task, known, kind, said",
    [
        ("scatter_add_drop", "exported_unroll.py", "jaxpr", "exported with jax.export"),
        ("scatter_add_drop", "own_primitive_unroll.py", "jaxpr", "whose lowering your code"),
        ("bucketed_mean", "same_size_decoy.py", "retrace", "no program on the device read"),
        ("bucketed_mean", "host_zeros_decoy.py", "retrace", "no program on the device read"),
    ],
)
def test_the_attack_routes_are_inefficient_in_every_isolation_mode(
    isolation, task, known, kind, said, monkeypatch
):
    report = grade_known_in(isolation, task, known, monkeypatch)
    check = next(c for c in report.checks if c.kind == kind)
    assert report.verdict == Verdict.INEFFICIENT, check.message
    assert check.status == Status.FAILED and said in check.message


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize(
    "task, known",
    [("scatter_add_drop", "one_masked_scatter.py"), ("bucketed_mean", "pad_copy_mask_jit.py")],
)
def test_right_answers_stay_accepted_in_every_isolation_mode(isolation, task, known, monkeypatch):
    report = grade_known_in(isolation, task, known, monkeypatch)
    assert report.verdict == Verdict.ACCEPTED, [c.message for c in report.checks]
