"""The ``donation``, ``residuals`` and ``cost`` kinds: their instruments (compiled from
source and run here, as the worker would), their verdicts on measured figures, and
gradings end to end.

Here: the tests that start no process; tests/integration/test_measure_kinds.py has those that
grade in a worker."""

from __future__ import annotations

import contextlib
import dataclasses
import io
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from judge.bank import BankError, FieldReader
from judge.checks import CHECK_KINDS, parse_check
from judge.checks.base import Measured
from judge.verdicts import Status, Verdict
from judge.worker.measure import MeasureContext, _compile_instrument


def instrument_of(kind: str):
    from judge.checks import load_kinds as _load_kinds

    _load_kinds()
    return _compile_instrument(dataclasses.asdict(CHECK_KINDS[kind].INSTRUMENT))


def measure(kind, fn, args, options=None, source_file=None):
    function, bound = instrument_of(kind)
    ctx = MeasureContext(fn, source_file, bound)
    return function(ctx, list(args), {}, options or {}), ctx.kept


def check(kind, scripts, **fields):
    data = dict({"id": kind, "kind": kind, "script": "s"}, **fields)
    return parse_check(FieldReader(data, Path("tasks.yaml"), "t", "checks[0]"), scripts)


# ---------------------------------------------------------------- donation


def update(p, g, lr):
    return jax.tree.map(lambda a, b: a - lr * b, p, g)


def fresh_params():
    shapes = {"w": (3, 4), "b": (4,), "empty": (0,), "scale": ()}
    return (
        {k: jax.device_put(np.ones(s, np.float32)) for k, s in shapes.items()},
        {k: jax.device_put(np.ones(s, np.float32)) for k, s in shapes.items()},
    )


def donation_of(fn):
    p, g = fresh_params()
    figures, kept = measure(
        "donation", fn, [p, g, jnp.float32(0.1)], {"argument": 0, "name": "params"}
    )
    return {l["path"]: (l["deleted"], l["reused"]) for l in figures["leaves"]}, figures, kept


def test_donated_leaves_zero_size_included_are_deleted_and_reused():
    leaves, figures, kept = donation_of(jax.jit(update, donate_argnums=0))
    assert leaves == {
        "params['w']": (True, True),
        "params['b']": (True, True),
        "params['empty']": (True, True),
        "params['scale']": (True, True),
    }
    assert figures["warnings"] == []
    assert np.allclose(np.asarray(kept["w"]), 0.9)


def test_an_update_without_donation_keeps_every_leaf_alive():
    leaves, _, _ = donation_of(jax.jit(update))
    assert set(leaves.values()) == {(False, False)}


def test_deleting_the_inputs_by_hand_is_not_donation():
    def cheat(p, g, lr):
        out = jax.jit(update)(p, g, lr)
        jax.block_until_ready(out)
        for leaf in jax.tree.leaves(p):
            leaf.delete()
        return out

    leaves, _, _ = donation_of(cheat)
    assert set(leaves.values()) == {(True, False)}


def test_a_buffer_jax_cannot_use_stays_alive_and_grads_donated_too_are_the_learners_business():
    to_half = jax.jit(
        lambda p, g, lr: jax.tree.map(lambda a: a.astype(jnp.float16), update(p, g, lr)),
        donate_argnums=0,
    )
    leaves, _, _ = donation_of(to_half)
    assert leaves["params['w']"] == (False, False)
    both, figures, _ = donation_of(jax.jit(update, donate_argnums=(0, 1)))
    assert set(both.values()) == {(True, True)}
    assert figures["warnings"] and "donated buffers were not usable" in figures["warnings"][0]
    assert figures["others_donated"] == []  # grads: not usable, so left alive
    wrong, figures, _ = donation_of(jax.jit(update, donate_argnums=1))
    assert set(wrong.values()) == {(False, False)} and figures["others_donated"] == [1]


DONATION_SCRIPTS = {"s": [{"params": {}, "grads": {}, "lr": 0.1}]}


def donation_call(leaves, ref_leaves=None, warnings=()):
    mine = {
        "leaves": [
            {"path": f"params[{k!r}]", "shape": [3], "dtype": "float32", "deleted": d, "reused": r}
            for k, (d, r) in leaves.items()
        ],
        "warnings": list(warnings),
    }
    ref = {"leaves": [dict(l, deleted=True, reused=True) for l in mine["leaves"]], "warnings": []}
    return Measured(1, {}, "params dict of 2 (float32), ...", mine, ref)


def test_donation_verdicts_name_each_leaf_and_why():
    c = check("donation", DONATION_SCRIPTS, argument="params")
    ok = c.judge(
        None,
        [
            donation_call(
                {"w": (True, True), "b": (True, True)},
                warnings=["Some donated buffers were not usable: f32[3]"],
            )
        ],
    )
    assert ok.status == Status.PASSED and "harmless" in ok.message
    bad = c.judge(None, [donation_call({"w": (True, True), "b": (False, False)})])
    assert bad.status == Status.FAILED and bad.verdict == Verdict.INEFFICIENT
    assert (
        "1 of the 2 leaves of `params` were not donated (the reference donates 2 of 2)"
        in bad.message
    )
    assert "params['b'] float32[3]: still alive: a new buffer was allocated" in bad.message
    assert "donate_argnums" in bad.message
    by_hand = c.judge(None, [donation_call({"w": (True, False)})])
    assert "deleted, but no result holds its buffer" in by_hand.message
    grads = donation_call({"w": (False, False)})
    grads.mine["others_donated"] = [1]
    grads.args.update(params={}, grads={}, lr=0.1)
    assert (
        "the results went into the buffers of `grads`, donated instead"
        in c.judge(None, [grads]).message
    )
    with pytest.raises(BankError, match="'param' is not an argument"):
        check("donation", DONATION_SCRIPTS, argument="param")


# ---------------------------------------------------------------- residuals


def layer(w, h):
    return jnp.tanh(w @ h)


def plain(ws, x):
    h = x
    for w in ws:
        h = layer(w, h)
    return jnp.sum(h)


def per_layer(ws, x):
    h = x
    for w in ws:
        h = jax.checkpoint(layer)(w, h)
    return jnp.sum(h)


def whole(ws, x):
    return jax.checkpoint(plain)(ws, x)


def residuals_of(fn, layers=4, d=16):
    ws = [jnp.full((d, d), 0.1 + i) for i in range(layers)]
    return measure("residuals", fn, [ws, jnp.ones(d)])


@pytest.mark.parametrize("fn", [plain, per_layer, whole, jax.jit(plain)])
def test_residuals_agree_with_jaxs_own_accounting(fn):
    """The pin: jax's public printer and private list, minus the arguments, give the
    instrument's count (no value is saved twice in these)."""
    from jax._src.ad_checkpoint import saved_residuals
    from jax.ad_checkpoint import print_saved_residuals  # noqa: F401  (binds jax.ad_checkpoint)

    ws, x = [jnp.full((16, 16), 0.1 + i) for i in range(4)], jnp.ones(16)
    figures, kept = measure("residuals", fn, [ws, x])
    private = [
        (a, src) for a, src in saved_residuals(fn, ws, x) if not src.startswith("from the argument")
    ]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        jax.ad_checkpoint.print_saved_residuals(fn, ws, x)
    public = [line for line in printed.getvalue().splitlines() if "from the argument" not in line]
    assert figures["count"] == len(private) == len(public)
    assert figures["bytes"] == sum(int(np.prod(a.shape)) * a.dtype.itemsize for a, _ in private)
    assert float(kept) == pytest.approx(float(fn(ws, x)), rel=1e-5)


def test_remat_on_each_layer_saves_fewer_and_the_whole_stack_fewest():
    counts = {f.__name__: residuals_of(f)[0]["count"] for f in (plain, per_layer, whole)}
    assert counts == {"plain": 8, "per_layer": 3, "whole": 0}  # four layers, d = 16
    figures, _ = residuals_of(plain)
    assert figures["bytes"] == 8 * 16 * 4
    assert figures["largest"][0]["from"] == "tanh"


def test_residuals_are_traced_to_the_learners_lines(tmp_path):
    source = tmp_path / "submission.py"
    source.write_text(
        "import jax.numpy as jnp\n\ndef f(ws, x):\n    h = x\n    for w in ws:\n"
        "        h = jnp.tanh(w @ h)\n    return jnp.sum(h)\n"
    )
    namespace: dict = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    figures, _ = measure(
        "residuals",
        jax.jit(namespace["f"]),
        [[jnp.eye(3)] * 2, jnp.ones(3)],
        source_file=str(source),
    )
    assert {r["line"] for r in figures["largest"]} == {6}
    assert figures["largest"][0]["code"] == "h = jnp.tanh(w @ h)"


RES_SCRIPTS = {"s": [{"ws": [], "x": 0}]}


def residual_call(count, size, ref_count=5, ref_size=320):
    mine = {
        "count": count,
        "bytes": size,
        "arguments_saved": 7,
        "largest": [
            {
                "shape": [16],
                "dtype": "float32",
                "bytes": 64,
                "from": "tanh",
                "line": 6,
                "code": "h = jnp.tanh(w @ h)",
            }
        ]
        * min(count, 5),
        "callbacks": {},
    }
    return Measured(
        1,
        {},
        "ws list of 6 (float32), x float32[16]",
        mine,
        {"count": ref_count, "bytes": ref_size, "largest": [], "callbacks": {}},
    )


def test_residual_verdicts_weigh_count_and_bytes_against_the_reference():
    c = check("residuals", RES_SCRIPTS, slack=1, slack_bytes=64)
    assert c.judge(None, [residual_call(6, 384)]).status == Status.PASSED
    many = c.judge(None, [residual_call(12, 768)])
    assert many.status == Status.FAILED and many.verdict == Verdict.INEFFICIENT
    assert (
        "saves 12 values (768 bytes) for the backward pass beyond its arguments; the "
        "reference saves 5 (320 bytes), and the budget is the reference's plus a slack "
        "of 1 value and 64 bytes"
    ) in many.message
    assert (
        "float32[16] (64 bytes) from `tanh` at line 6 of your file: `h = jnp.tanh(w @ h)`"
        in many.message
    )
    assert "jax.checkpoint" in many.message
    big = c.judge(None, [residual_call(2, 6528)])  # few values, but large ones
    assert big.status == Status.FAILED


# ---------------------------------------------------------------- cost


def test_cost_counts_the_flops_of_each_association():
    a, b, c = jnp.ones((64, 8)), jnp.ones((8, 64)), jnp.ones((64, 2))
    left, kept = measure("cost", lambda a, b, c: (a @ b) @ c, [a, b, c])
    right, _ = measure("cost", lambda a, b, c: a @ (b @ c), [a, b, c])
    assert (left["flops"], right["flops"]) == (81920.0, 4096.0)
    assert left["bytes"] > right["bytes"] > 0 and "dot(" in left["hlo"]
    assert np.asarray(kept).shape == (64, 2)


COST_SCRIPTS = {"s": [{"a": 0, "b": 0, "c": 0}]}


def cost_call(flops, ref_flops, hlo="", ref_hlo=""):
    return Measured(
        1,
        {},
        "a float32[64, 8], b float32[8, 64], c float32[64, 2]",
        {"flops": flops, "bytes": 37888.0, "hlo": hlo, "too_large": 0, "source": "submission.py"},
        {
            "flops": ref_flops,
            "bytes": 5248.0,
            "hlo": ref_hlo,
            "too_large": 0,
            "source": "reference.py",
        },
    )


def test_cost_verdicts_give_both_figures_and_the_cause():
    c = check(
        "cost", COST_SCRIPTS, factor=1.1, cause="the product is associated the expensive way round"
    )
    assert c.judge(None, [cost_call(4400.0, 4096.0)]).status == Status.PASSED
    over = c.judge(None, [cost_call(81920.0, 4096.0)])
    assert over.status == Status.FAILED and over.verdict == Verdict.INEFFICIENT
    assert (
        "does 81,920 flops, 20.0 times the reference's 4,096 (budget: 1.1 x the reference's, 4,506)"
    ) in over.message
    assert "reads and writes 37,888 bytes (the reference's: 5,248)" in over.message
    assert over.message.endswith("Usual cause: the product is associated the expensive way round.")
    with pytest.raises(BankError, match="at least 1.0"):
        check("cost", COST_SCRIPTS, factor=0.5)


# ---------------------------------------------------------------- end to end


def test_no_cost_figure_is_unmeasurable_never_the_learners_failure():
    from judge.worker.measure import _Unmeasurable

    measure_cost, bound = instrument_of("cost")
    bound = dict(bound, cost_analysis=lambda compiled: None)
    with pytest.raises(_Unmeasurable, match="gives no flops"):
        measure_cost(MeasureContext(lambda a: a, None, bound), [jnp.ones(3)], {}, {})
