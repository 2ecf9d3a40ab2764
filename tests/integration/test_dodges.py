"""Issue 20, classes 2 and 3: figures a learner cannot dodge by looping or calling back.

Flops inside a loop count once per trip where XLA knows the trip count, and are unknown
(the check fails closed) where it does not; a host callback the reference does not make
fails every kind that reads a program (jaxpr, cost, collectives, residuals).  And
`judge validate`'s bank-wide rule: each kind rejects a known submission of every dodge
class it declares.

Here: the tests that start a worker or a `judge` process; tests/unit/test_dodges.py has the
rest."""

from __future__ import annotations

import textwrap

import pytest

from judge.bank import load_bank
from judge.runner import grade
from judge.verdicts import Verdict

from helpers.isolation_modes import MODES, grade_known_in

BANK = load_bank()


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize(
    "task, known, said",
    [
        ("chain_matmul", "fori_loop_rows.py", "counts each loop body once per trip"),
        ("pairwise_sq_dists", "pure_callback_loops.py", "jax.pure_callback at line 22"),
        # the compiled program's own frame for a callback is the worker's wrapper around
        # jax.pure_callback: the line comes from the traced program's whole traceback
        ("chain_matmul", "pure_callback_numpy.py", "jax.pure_callback at line 19"),
    ],
)
def test_the_tricks_of_the_issue_are_inefficient_in_every_isolation_mode(
    isolation, task, known, said, monkeypatch
):
    report = grade_known_in(isolation, task, known, monkeypatch)
    measured = next(c for c in report.checks if c.kind in ("cost", "jaxpr"))
    assert report.verdict == Verdict.INEFFICIENT, measured.message
    assert said in measured.message


@pytest.mark.parametrize("isolation", MODES)
def test_a_learner_who_patches_jax_cannot_hide_a_loop_from_the_cost_check(
    isolation, tmp_path, monkeypatch
):
    # Compiled.as_text and cost_analysis replaced at import: the instrument bound its
    # own in setup, before the file ran
    monkeypatch.setenv("JUDGE_ISOLATION", isolation)
    t = BANK.get("chain_matmul")
    path = tmp_path / "submission.py"
    path.write_text(
        (t.folder / "known" / "fori_loop_rows.py").read_text()
        + textwrap.dedent("""
        import jax.stages
        jax.stages.Compiled.as_text = lambda self: "HloModule nothing"
        jax.stages.Compiled.cost_analysis = lambda self: {"flops": 1.0}
        """)
    )
    report = grade(t, path)
    cost = next(c for c in report.checks if c.kind == "cost")
    assert report.isolation == isolation
    assert report.verdict == Verdict.INEFFICIENT, cost.message
    assert "counts each loop body once per trip" in cost.message
