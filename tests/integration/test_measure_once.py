"""The measuring kinds (cost, jaxpr, collectives) compile each scripted call once: where
the call for values ran exactly the judge's trace (one program, compiled from the very
jaxpr the trace holds, on the call's own arrays, its outputs the call's value), that
program is measured and its value kept; anything else compiles (or runs) the trace as
before (judge/worker/executions.py ``ran_as_traced``).  Run here, in-process, as the
worker runs the instruments."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import compiler

from judge.checks import CHECK_KINDS
from judge.checks import load_kinds as _load_kinds
from judge.worker.measure import MeasureContext, _compile_instrument, _record_executions

KINDS = ("cost", "jaxpr", "collectives")


@pytest.fixture()
def compiles(monkeypatch):
    """How many programs XLA compiles (the door under every compile, cached or not)."""
    seen = []
    original = compiler.backend_compile_and_load

    def counting(*args, **kwargs):
        seen.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(compiler, "backend_compile_and_load", counting)
    return seen


def measure(kind, fn, args):
    _load_kinds()
    function, bound = _compile_instrument(dataclasses.asdict(CHECK_KINDS[kind].INSTRUMENT))
    ctx = MeasureContext(fn, None, bound, _record_executions())
    return ctx, function(ctx, list(args), {}, {})


@pytest.mark.parametrize("kind", KINDS)
def test_a_jitted_function_is_compiled_once_and_its_own_value_kept(kind, compiles):
    @jax.jit
    def chain(a, b, c):
        return a @ (b @ c)

    n = {"cost": 24, "jaxpr": 40, "collectives": 56}[kind]  # shapes no other test compiled
    args = [jnp.ones((n, 8)), jnp.ones((8, n)), jnp.ones((n, 2))]
    compiles.clear()  # making the arguments compiled programs of their own
    ctx, measured = measure(kind, chain, args)
    assert len(compiles) == 1  # the call's own compile; the trace is not compiled again
    np.testing.assert_allclose(np.asarray(ctx.kept), np.asarray(chain(*args)))
    if kind == "cost":
        assert measured["flops"] == measured["executed"]["flops"] == 2 * (8 * n * 2 + n * 8 * 2)
    if kind == "collectives":
        assert "dot" in measured["hlo"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_call_that_runs_other_work_than_its_trace_still_compiles_the_trace(kind, compiles):
    inner = jax.jit(lambda a, b, c: a @ (b @ c))

    def switching(a, b, c):
        if isinstance(a, jax.core.Tracer):
            return inner(a, b, c)
        return (a @ b) @ c  # eager, another order

    n = {"cost": 72, "jaxpr": 88, "collectives": 104}[kind]
    args = [jnp.ones((n, 8)), jnp.ones((8, n)), jnp.ones((n, 2))]
    ctx, measured = measure(kind, switching, args)
    if kind == "cost":
        assert measured["flops"] == 2 * (8 * n * 2 + n * 8 * 2)  # the trace's, compiled
        assert measured["executed"]["flops"] == 2 * (n * 8 * n + n * n * 2)  # what ran
    if kind == "jaxpr":
        assert measured["executed"]["executions"] == 2


@pytest.mark.parametrize("kind", KINDS)
def test_a_traced_program_whose_output_the_call_throws_away_is_what_is_kept(kind):
    # the call runs the traced program (the same jaxpr, on the same arrays) but returns
    # an answer made elsewhere: the value kept is the traced program's, not the call's
    zeros = jax.jit(lambda x: jnp.zeros_like(x))

    def elsewhere(x):
        out = zeros(x)
        if isinstance(x, jax.core.Tracer):
            return out
        return jnp.asarray(np.asarray(x) + 1)

    ctx, _ = measure(kind, elsewhere, [jnp.arange(12.0)])
    assert np.asarray(ctx.kept).tolist() == [0.0] * 12
