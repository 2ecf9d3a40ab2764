"""What a learner calls from a notebook: check() grades a function through the same
runner and sandbox as `judge run` (tried from a real Jupyter kernel), hint() shows a
task's nudges.

Here: the tests that start no process; tests/integration/test_learner.py has those that
grade in a worker."""

from __future__ import annotations

import pytest

from judge.bank import load_bank
from judge.catalog import read_hints
from judge.learner_api import CheckError, assemble, hint

from helpers import TASK
from helpers.learner_module import MODULE, load_module

# ---------------------------------------------------------------- hints

BANK = load_bank()  # loaded once: three loads per task were most of this module's time


@pytest.mark.parametrize("task_id", sorted(BANK.tasks))
def test_every_task_has_two_or_three_hints(task_id):
    hints = read_hints(BANK.get(task_id))
    assert 2 <= len(hints) <= 3 and all(len(h) > 40 for h in hints)
    reference = BANK.get(task_id).reference_path.read_text()
    body_lines = {line.strip() for line in reference.splitlines() if len(line.strip()) > 25}
    for h in hints:  # a nudge, not the answer: no line of the reference in it
        assert not any(line in h for line in body_lines), (task_id, h)


def test_hint_shows_the_nth_and_says_how_many_there_are():
    first = hint(TASK, 1)
    assert repr(first).startswith(f"Hint 1 of 3 for {TASK}:")
    assert "once, where the module's imports are" in repr(first)
    assert first._repr_markdown_().startswith(f"**Hint 1 of 3** for `{TASK}`")
    assert (
        repr(hint(TASK, 9))
        == f"{TASK} has 3 hints: ask for hint('{TASK}', 1) to hint('{TASK}', 3)."
    )


# ---------------------------------------------------------------- what check() grades


def test_the_function_comes_with_what_it_uses_in_the_order_it_ran(tmp_path):
    module = load_module(tmp_path)
    built = assemble(module.my_count, TASK)
    assert built.source.split("\n\n") == [
        "import jax",
        "import jax.numpy as jnp",
        "SCALE = 1.0",
        "_sum = jax.jit(jnp.sum)",
        "def helper(v):\n    return _sum(v) * SCALE",
        "def my_count(x_a, x_b):\n    return helper(x_a) + helper(x_b)",
        f"{TASK} = my_count\n",
    ]
    assert "unrelated" not in built.source and built.unknown == []
    jitted = assemble(module.wrapped, TASK)  # a jitted wrapper: its own statement
    assert jitted.source.endswith(f"wrapped = jax.jit(my_count)\n\n{TASK} = wrapped\n")


def test_what_cannot_be_graded_is_said(tmp_path):
    with pytest.raises(CheckError, match="grades a function"):
        assemble(42, TASK)
    module = load_module(
        tmp_path,
        MODULE + "\n\ndef make():\n    def inner(a, b):\n        return a\n    return inner\n",
    )
    with pytest.raises(CheckError, match="not bound at the top level"):
        assemble(module.make(), TASK)
    leaky = load_module(tmp_path, "def f(x_a, x_b):\n    return missing_helper(x_a)\n")
    assert assemble(leaky.f, TASK).unknown == ["missing_helper"]


# ---------------------------------------------------------------- from a real Jupyter kernel
