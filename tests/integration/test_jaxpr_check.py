"""The ``jaxpr`` kind: its instrument (run here, in-process, as the worker would), its
verdicts on measured figures, and one grading end to end.

Here: the tests that start a worker or a `judge` process; tests/unit/test_jaxpr_check.py has the
rest."""

from __future__ import annotations

import textwrap

import pytest

from judge.bank import load_bank
from judge.runner import grade
from judge.verdicts import Verdict

BANK = """
tasks:
  - id: ema
    title: EMA
    step: 19
    dims: {T: [0, 16]}
    args:
      x: {type: array, dtype: float32, shape: [T], values: [-1, 1]}
      a: {type: scalar, kind: jax, dtype: float32, values: [0.1, 1]}
    result: {type: array, dtype: same}
    # the jaxpr kind also runs each scripted call for values (what the call ran is
    # weighed too): an unrolled loop over 200 elements then compiles a 200-step program,
    # seconds of CPU on a loaded machine; this test is about the message, not the limit
    # (compiled once now, the call's own compile, which alone passed 10 s at load 11)
    limits: {call_timeout_s: 60}
    scripts:
      lengths:
        - {args: {x: {$random: {shape: [8]}}, a: {$scalar: 0.5, dtype: float32}}}
        - {args: {x: {$random: {shape: [64]}}, a: {$scalar: 0.5, dtype: float32}}}
        - {args: {x: {$random: {shape: [200]}}, a: {$scalar: 0.5, dtype: float32}}}
    checks:
      - {id: program, kind: jaxpr, script: lengths, budget: no_growth, size: "x.shape[0]",
         size_name: T, forbid: [pure_callback]}
"""


REFERENCE = """
import jax.numpy as jnp
from jax import lax

def ema(x, a):
    if x.shape[0] == 0:
        return x
    _, ys = lax.scan(lambda y, xt: (a * xt + (1 - a) * y,) * 2, x[0], x[1:])
    return jnp.concatenate([x[:1], ys])
"""


@pytest.fixture()
def ema_task(tmp_path):
    (tmp_path / "reference").mkdir()
    (tmp_path / "tasks" / "ema").mkdir(parents=True)
    (tmp_path / "reference" / "ema.py").write_text(REFERENCE)
    (tmp_path / "tasks.yaml").write_text(BANK)
    return load_bank(tmp_path).get("ema")


def run(task, tmp_path, body):
    path = tmp_path / "submission.py"
    path.write_text(textwrap.dedent(body))
    return grade(task, path)


def test_an_unrolled_loop_is_inefficient_and_a_jitted_scan_accepted(ema_task, tmp_path):
    report = run(
        ema_task,
        tmp_path,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def ema(x, a):
            ys = [x[0]] if x.shape[0] else []
            for t in range(1, x.shape[0]):
                ys.append(a * x[t] + (1 - a) * ys[-1])
            return jnp.stack(ys) if ys else x
    """,
    )
    assert report.verdict == Verdict.INEFFICIENT, report.checks[0].message
    assert (
        "line 9 of your file: `ys.append(a * x[t] + (1 - a) * ys[-1])`" in report.checks[0].message
    )
    report = run(
        ema_task, tmp_path, "import jax\n" + REFERENCE.replace("def ema", "@jax.jit\ndef ema")
    )
    assert report.verdict == Verdict.ACCEPTED, report.checks[0].message


def test_a_program_that_memorised_its_answer_is_wrong(ema_task, tmp_path):
    # right when called, but what it traced returns a constant: the measured program
    # must be the one that computes the answer
    report = run(
        ema_task,
        tmp_path,
        """
        import jax
        import jax.numpy as jnp
        import numpy as np

        def ema(x, a):
            if isinstance(x, jax.core.Tracer):       # being measured: show a tiny program
                return jnp.zeros(x.shape, x.dtype)
            xs, out, y = np.asarray(x), [], 0.0
            for t, v in enumerate(xs):
                y = v if t == 0 else float(a) * v + (1 - float(a)) * y
                out.append(y)
            return jnp.asarray(np.array(out, np.float32))
    """,
    )
    assert report.verdict == Verdict.WRONG_ANSWER, report.checks[0].message
    assert report.checks[0].message.startswith("scripted call 1 of 3 (x float32[8]")


def test_code_that_cannot_be_traced_is_the_learners_runtime_error(ema_task, tmp_path):
    report = run(
        ema_task,
        tmp_path,
        """
        import numpy as np

        def ema(x, a):
            return np.asarray(x)
    """,
    )
    assert report.verdict == Verdict.RUNTIME_ERROR, report.checks[0].message
    message = report.checks[0].message
    assert "scripted call 1 of 3, traced with jax.make_jaxpr: ema(" in message
    assert "main.py" not in message and "(line 5)" in message  # the learner's file only


def test_lines_are_the_learners_even_through_the_judges_own_wrappers(ema_task, tmp_path):
    # the sync counter wraps pure_callback in the worker: the line named must still be
    # the learner's, not the wrapper's
    report = run(
        ema_task,
        tmp_path,
        """
        import jax
        import numpy as np

        def _host(x, a):
            y = np.array(x)
            for t in range(1, len(y)):
                y[t] = a * y[t] + (1 - a) * y[t - 1]
            return y
        @jax.jit
        def ema(x, a):
            return jax.pure_callback(_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, a)
    """,
    )
    assert report.verdict == Verdict.INEFFICIENT, report.checks[0].message
    assert (
        "uses `pure_callback` (1 time at T=8, first from line 12 of your file: "
        "`return jax.pure_callback(" in report.checks[0].message
    )
    assert "the reference's: none)" in report.checks[0].message
