"""The ``donation``, ``residuals`` and ``cost`` kinds: their instruments (compiled from
source and run here, as the worker would), their verdicts on measured figures, and
gradings end to end.

Here: the tests that start a worker or a `judge` process; tests/unit/test_measure_kinds.py has the
rest."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from judge.bank import load_bank
from judge.runner import grade
from judge.verdicts import Verdict
from judge.worker.wire import Leaf

BANK = """
tasks:
  - id: chain
    title: a @ b @ c
    step: 22
    dims: {n: [1, 8]}
    args:
      a: {type: array, dtype: float32, shape: [n, n], values: [-1, 1]}
      b: {type: array, dtype: float32, shape: [n, n], values: [-1, 1]}
      c: {type: array, dtype: float32, shape: [n, n], values: [-1, 1]}
    result: {type: array, dtype: same}
    tolerance: {mode: reduction}
    scripts:
      shapes:
        - args:
            a: {$random: {shape: [64, 8]}}
            b: {$random: {shape: [8, 64]}}
            c: {$random: {shape: [64, 2]}}
    checks:
      - {id: cost, kind: cost, script: shapes, factor: 1.1}
  - id: sgd
    title: sgd
    step: 20
    args:
      p: {type: tree, values: [-1, 1]}
      g: {type: tree, like: p, values: [-1, 1]}
    result: {type: any, dtype: same}
    scripts:
      steps:
        - args:
            p: {w: {$random: {shape: [3, 4]}}, empty: {$random: {shape: [0]}}}
            g: {w: {$random: {shape: [3, 4]}}, empty: {$random: {shape: [0]}}}
    checks:
      - {id: donation, kind: donation, script: steps, argument: p}
"""

REFERENCES = {
    "chain": "def chain(a, b, c):\n    n, k = a.shape\n    m, p = c.shape\n"
    "    return (a @ b) @ c if n * k * m + n * m * p <= k * m * p + n * k * p else a @ (b @ c)\n",
    "sgd": "import jax\n\n@jax.jit\ndef _step(p, g):\n    return jax.tree.map(lambda a, b: a - 0.1 * b, p, g)\n\n"
    "_donating = jax.jit(_step, donate_argnums=0)\n\ndef sgd(p, g):\n    return _donating(p, g)\n",
}


@pytest.fixture()
def bank(tmp_path):
    (tmp_path / "reference").mkdir()
    for task, source in REFERENCES.items():
        (tmp_path / "tasks" / task).mkdir(parents=True)
        (tmp_path / "reference" / f"{task}.py").write_text(source)
    (tmp_path / "tasks.yaml").write_text(BANK)
    return load_bank(tmp_path)


def run(task, tmp_path, body):
    path = tmp_path / "submission.py"
    path.write_text(textwrap.dedent(body))
    return grade(task, path)


def test_the_expensive_association_is_inefficient_and_the_cheap_one_accepted(bank, tmp_path):
    task = bank.get("chain")
    report = run(task, tmp_path, "def chain(a, b, c):\n    return (a @ b) @ c\n")
    assert report.verdict == Verdict.INEFFICIENT, report.checks[0].message
    assert "81,920 flops, 20.0 times the reference's 4,096" in report.checks[0].message
    report = run(
        task,
        tmp_path,
        "import jax.numpy as jnp\n\ndef chain(a, b, c):\n"
        "    return jnp.linalg.multi_dot([a, b, c])\n",
    )
    assert report.verdict == Verdict.ACCEPTED, report.checks[0].message


def test_an_update_that_allocates_is_inefficient_and_a_donating_one_accepted(bank, tmp_path):
    task = bank.get("sgd")
    report = run(
        task,
        tmp_path,
        """
        import jax

        @jax.jit
        def sgd(p, g):
            return jax.tree.map(lambda a, b: a - 0.1 * b, p, g)
    """,
    )
    assert report.verdict == Verdict.INEFFICIENT, report.checks[0].message
    assert "2 of the 2 leaves of `p` were not donated" in report.checks[0].message
    report = run(
        task,
        tmp_path,
        """
        from functools import partial
        import jax

        @partial(jax.jit, donate_argnames="p")
        def sgd(p, g):
            return jax.tree.map(lambda a, b: a - 0.1 * b, p, g)
    """,
    )
    assert report.verdict == Verdict.ACCEPTED, report.checks[0].message


def test_a_task_whose_reference_yields_no_cost_figure_is_a_judge_error(bank, tmp_path):
    # XLA reports nothing for a product of empty matrices: the task is at fault
    task = bank.get("chain")
    task.scripts["shapes"] = [
        {
            "a": Leaf(np.zeros((0, 4), np.float32), "jax"),
            "b": Leaf(np.zeros((4, 4), np.float32), "jax"),
            "c": Leaf(np.zeros((4, 4), np.float32), "jax"),
        }
    ]
    report = run(task, tmp_path, "def chain(a, b, c):\n    return a @ (b @ c)\n")
    assert report.verdict == Verdict.JUDGE_ERROR, [c.message for c in report.checks]
    assert "cost analysis gives no flops" in " ".join(c.message for c in report.checks)
