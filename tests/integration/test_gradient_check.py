"""The ``gradient`` kind: the worker takes jax.vjp of the learner's function with respect
to named arguments; value and gradients are compared with the reference's."""

from __future__ import annotations

import dataclasses
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from judge.bank import load_bank
from judge.checks import CHECK_KINDS
from judge.checks import load_kinds as _load_kinds
from judge.runner import grade
from judge.verdicts import Verdict
from judge.worker.measure import MeasureContext, _compile_instrument, _WrongResult


def gradient_of(fn, args, wrt):
    _load_kinds()
    measure, bound = _compile_instrument(dataclasses.asdict(CHECK_KINDS["gradient"].INSTRUMENT))
    ctx = MeasureContext(fn, None, bound)
    measure(ctx, list(args), {}, {"wrt": wrt})
    return ctx.kept


def stack(ws, x):
    h = x
    for w in ws:
        h = jnp.tanh(w @ h)
    return jnp.sum(h)


def test_value_and_gradients_with_respect_to_the_named_arguments():
    ws, x = [jnp.eye(2) * 0.5, jnp.ones((2, 2))], jnp.array([1.0, -2.0])
    kept = gradient_of(stack, [ws, x], [0, 1])
    want_ws, want_x = jax.grad(stack, argnums=(0, 1))(ws, x)
    assert float(kept["value"]) == pytest.approx(float(stack(ws, x)))
    assert np.allclose(kept["gradients"][0][1], want_ws[1]) and np.allclose(
        kept["gradients"][1], want_x
    )
    only_x = gradient_of(stack, [ws, x], [1])
    assert len(only_x["gradients"]) == 1 and np.allclose(only_x["gradients"][0], want_x)


def test_a_result_that_is_not_a_float_scalar_is_the_learners_wrong_answer():
    with pytest.raises(_WrongResult, match="an array of shape \\(2,\\)"):
        gradient_of(lambda ws, x: x * 2, [[], jnp.ones(2)], [1])
    with pytest.raises(_WrongResult, match="not a floating-point scalar"):
        gradient_of(lambda ws, x: jnp.sum(x).astype(jnp.int32), [[], jnp.ones(2)], [1])


BANK = """
tasks:
  - id: stack
    title: tanh stack
    step: 21
    dims: {L: [0, 3], d: [1, 4]}
    args:
      ws: {type: list, length: L, items: {type: array, dtype: float32, shape: [d, d], values: [-1, 1]}}
      x: {type: array, dtype: float32, shape: [d], values: [-1, 1]}
    result: {type: scalar, dtype: float32}
    tolerance: {mode: elementwise, atol: 1.0e-5, rtol: 1.0e-5}
    checks:
      - {id: gradient, kind: gradient, wrt: [ws, x], examples: 12}
"""

REFERENCE = """
import jax
import jax.numpy as jnp

def stack(ws, x):
    h = x
    for w in ws:
        h = jax.checkpoint(lambda w, h: jnp.tanh(w @ h))(w, h)
    return jnp.sum(h)
"""


@pytest.fixture()
def task(tmp_path):
    (tmp_path / "reference").mkdir()
    (tmp_path / "tasks" / "stack").mkdir(parents=True)
    (tmp_path / "reference" / "stack.py").write_text(REFERENCE)
    (tmp_path / "tasks.yaml").write_text(BANK)
    return load_bank(tmp_path).get("stack")


def run(task, tmp_path, body):
    path = tmp_path / "submission.py"
    path.write_text(textwrap.dedent(body))
    return grade(task, path)


def test_a_right_value_with_a_broken_derivative_is_wrong(task, tmp_path):
    report = run(
        task,
        tmp_path,
        """
        import jax
        import jax.numpy as jnp

        def stack(ws, x):
            h = x
            for w in ws:
                h = jnp.tanh(w @ jax.lax.stop_gradient(h))
            return jnp.sum(h)
    """,
    )
    check = report.checks[0]
    assert report.verdict == Verdict.WRONG_ANSWER, check.message
    assert "the gradient with respect to ws disagrees with the reference's" in check.message
    # the smallest input that shows it among those tried: two layers or more, none of
    # the largest size
    ws = check.counterexample["args"]["ws"]
    assert len(ws) >= 2 and len({tuple(w["shape"]) for w in ws}) == 1 and ws[0]["shape"] != [4, 4]
    report = run(
        task,
        tmp_path,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def stack(ws, x):
            return jax.checkpoint(lambda ws, x: jnp.sum(
                __import__("functools").reduce(lambda h, w: jnp.tanh(w @ h), ws, x)))(ws, x)
    """,
    )
    assert report.verdict == Verdict.ACCEPTED, report.checks[0].message
    assert report.checks[0].message.startswith(
        "the value and the gradient with respect to ws and x agree"
    )


def test_code_that_cannot_be_differentiated_is_a_runtime_error(task, tmp_path):
    report = run(
        task,
        tmp_path,
        """
        import numpy as np
        import jax.numpy as jnp

        def stack(ws, x):
            h = np.asarray(x)
            for w in ws:
                h = np.tanh(np.asarray(w) @ h)
            return jnp.float32(h.sum())
    """,
    )
    assert report.verdict == Verdict.RUNTIME_ERROR, report.checks[0].message
    assert report.checks[0].message.startswith("taking the gradient: stack(")
