"""Retrace and sync budgets hold on the property check's generated inputs too, against
the reference's figures on the same inputs: a submission that special-cases shapes the
script never uses is caught, and one split into more programs than the reference is
not charged for the split.  A small task of its own keeps these fast."""

from __future__ import annotations

import pytest

from judge.bank import load_bank
from judge.runner import grade

from helpers import double_it_bank

FIELDS = """
    tolerance: {mode: elementwise}
    scripts:
      lens:
        - {args: {x: {$random: {shape: [4]}}}}
        - {args: {x: {$random: {shape: [4]}}}, repeat: 2}
        - {args: {x: {$random: {shape: [6]}}}}
    checks:
      - {id: property, kind: property, examples: 30, max_shapes: 5}
      - {id: retrace, kind: retrace, script: lens, budget: reference, measure: retraces, slack: 1}
      - {id: sync, kind: sync, script: lens, budget: 0}
"""
SUBMISSIONS = {
    # a fresh jit for one-element inputs, which the script never has
    "fresh_jit_when_one": (
        "import jax\n\n_double = jax.jit(lambda v: 2 * v)\n\n"
        "def double_it(x):\n"
        "    if x.shape[0] == 1:\n"
        "        return jax.jit(lambda v: v + v)(x)\n"
        "    return _double(x)\n"
    ),
    # a host read for one-element inputs
    "float_when_one": (
        "import jax\nimport jax.numpy as jnp\n\n_double = jax.jit(lambda v: 2 * v)\n\n"
        "def double_it(x):\n"
        "    if x.shape[0] == 1:\n"
        "        return jnp.full((1,), 2 * float(x[0]), jnp.float32)\n"
        "    return _double(x)\n"
    ),
    # two jitted helpers, each traced once per shape: no worse than the reference's one
    "two_helpers": (
        "import jax\n\n_half = jax.jit(lambda v: v * 4)\n_more = jax.jit(lambda v: v / 2)\n\n"
        "def double_it(x):\n    return _more(_half(x))\n"
    ),
}


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    root = double_it_bank(
        tmp_path_factory.mktemp("bank"),
        FIELDS,
        {f"{name}.py": body for name, body in SUBMISSIONS.items()},
    )
    return load_bank(root).get("double_it")


def run(task, name):
    report = grade(task, task.bank.root / f"{name}.py")
    return report, {c.id: c for c in report.checks}


def test_a_program_special_cased_outside_the_script_is_charged(task):
    report, checks = run(task, "fresh_jit_when_one")
    assert report.verdict == "inefficient"
    retrace = checks["retrace"]
    script, generated = retrace.message.split("\n")[0], retrace.message.split("\n", 1)[1]
    assert "within the budget" in script
    assert "generated inputs of the property check" in generated and "over the budget" in generated
    assert "lambda at line 7" in generated
    assert retrace.details["generated"]["count"] > retrace.details["generated"]["budget"]


def test_a_host_read_outside_the_script_is_charged(task):
    report, checks = run(task, "float_when_one")
    assert report.verdict == "inefficient"
    sync = checks["sync"]
    assert "0 times over 4 scripted calls, within the budget of 0" in sync.message
    assert "generated inputs of the property check" in sync.message
    assert "line 8: float()" in sync.message and "(first at generated input" in sync.message


def test_more_programs_than_the_reference_is_not_charged(task):
    report, checks = run(task, "two_helpers")
    assert report.verdict == "accepted", checks["retrace"].message
    assert checks["retrace"].details["generated"]["count"] == 0
