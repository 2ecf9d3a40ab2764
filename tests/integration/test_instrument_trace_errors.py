"""An exception jax raises while an instrument traces or lowers the learner's function
(their return value included) is the learner's runtime_error; one the instrument's own
code raises after the trace is still the judge's (judge/worker/measure.py, MeasureContext)."""

from __future__ import annotations

import json

import pytest

from helpers import ROOT, run_judge
from helpers.isolation_modes import MODES

KNOWN = ROOT / "tasks" / "safe_mean" / "known"


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["review_return_shape_struct", "review_return_masked"])
def test_a_return_value_jax_refuses_is_the_learners(mode, name):
    proc = run_judge(
        "run",
        "safe_mean",
        KNOWN / f"{name}.py",
        "--format",
        "json",
        "--isolation",
        mode,
        "--examples",
        "30",
    )
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    report = json.loads(proc.stdout)
    assert report["verdict"] == "wrong_answer"
    jaxpr = next(c for c in report["checks"] if c["id"] == "jaxpr")
    # the jaxpr check fails on the learner's values, not with "not your fault"
    assert jaxpr["status"] == "skipped" and "values are wrong" in jaxpr["message"], jaxpr


def _instrument(body: str):
    from judge.worker.measure import _compile_instrument

    source = "def measure(ctx, args, kwargs, options):\n" + body
    return _compile_instrument({"name": "t", "source": source, "function": "measure"})[0]


def test_a_failure_on_the_tracing_line_is_the_learners_after_it_the_judges():
    import jax.numpy as jnp
    import numpy as np

    from judge.worker.measure import MeasureContext

    # an array of strings passes as an array, and jax refuses it inside make_jaxpr
    ctx = MeasureContext(lambda x: np.array(["a"]))
    fails_in_trace = _instrument(
        "    import jax\n"
        "    fn, arrays = ctx.traceable(args, kwargs)\n"
        "    return jax.make_jaxpr(fn)(*arrays)\n"
    )
    with pytest.raises(Exception) as caught:
        fails_in_trace(ctx, (jnp.ones(3),), {}, {})
    assert ctx.traced_result(caught.value) == "ndarray"

    ctx = MeasureContext(lambda x: x.sum())
    judges_bug = _instrument(
        "    import jax\n"
        "    fn, arrays = ctx.traceable(args, kwargs)\n"
        "    closed = jax.make_jaxpr(fn)(*arrays)\n"
        "    return closed.no_such_attribute\n"
    )
    with pytest.raises(AttributeError) as caught:
        judges_bug(ctx, (jnp.ones(3),), {}, {})
    assert ctx.traced_result(caught.value) is None
