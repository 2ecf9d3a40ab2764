"""The ``jaxpr`` kind: its instrument (run here, in-process, as the worker would), its
verdicts on measured figures, and one grading end to end.

Here: the tests that start no process; tests/integration/test_jaxpr_check.py has those that
grade in a worker."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from judge.bank import BankError, FieldReader
from judge.checks import parse_check
from judge.verdicts import Status, Verdict
from judge.worker.wire import Leaf

from helpers.jaxpr import calls, check, measure


def ema_loop(x, a):
    ys, y = [], None
    for t in range(x.shape[0]):
        y = x[t] if t == 0 else a * x[t] + (1 - a) * y
        ys.append(y)
    return jnp.stack(ys) if ys else x


def ema_scan(x, a):
    if x.shape[0] == 0:
        return x
    _, ys = lax.scan(lambda y, xt: (a * xt + (1 - a) * y,) * 2, x[0], x[1:])
    return jnp.concatenate([x[:1], ys])


def test_a_python_loop_grows_the_program_and_a_scan_does_not():
    a = jnp.float32(0.5)
    loop = [measure(ema_loop, jnp.ones(t), a)[0]["equations"] for t in (8, 64)]
    scan = [measure(ema_scan, jnp.ones(t), a)[0]["equations"] for t in (8, 64)]
    assert loop[1] - loop[0] >= 56 * 3  # a few equations per step
    assert scan[0] == scan[1]


def test_an_unrolled_scan_counts_its_copies():
    def unrolled(x):  # fori_loop(unroll=True): a scan of `length` copies
        return lax.fori_loop(0, x.shape[0], lambda t, y: y.at[t].set(y[t] * 2), x, unroll=True)

    def by_four(x):
        return lax.scan(lambda c, v: (c + v, c), 0.0, x, unroll=4)[1]

    sizes = [measure(unrolled, jnp.ones(n))[0] for n in (8, 64)]
    assert sizes[1]["equations"] - sizes[0]["equations"] >= 56 * 3
    assert sizes[1]["primitives"]["mul"] == 64 and sizes[1]["unrolled"] == 64
    fours = [measure(by_four, jnp.ones(n))[0] for n in (8, 64)]
    assert fours[0]["equations"] == fours[1]["equations"]
    assert fours[0]["primitives"]["add"] == 4


def test_equations_inside_nested_programs_are_counted():
    @jax.custom_vjp
    def sine(x):
        return jnp.sin(x)

    sine.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * jnp.cos(x),))

    def nested(x):
        x = jax.nn.relu(x)  # custom_jvp around a jit
        x = lax.cond(x[0] > 0, lambda v: v * 2, lambda v: v - 1, x)
        x = lax.while_loop(lambda s: s[0] < 3, lambda s: (s[0] + 1, s[1] * 2), (0, x))[1]
        x = jax.checkpoint(lambda v: jnp.tanh(v) * 3)(x)
        return jnp.sum(sine(x))

    figures, kept = measure(jax.jit(nested), jnp.ones(3))
    prims = figures["primitives"]
    for name in (
        "jit",
        "custom_jvp_call",
        "max",
        "cond",
        "sub",
        "while",
        "lt",
        "remat2",
        "tanh",
        "custom_vjp_call",
        "sin",
        "reduce_sum",
    ):
        assert prims.get(name), name
    assert figures["equations"] == sum(prims.values())
    assert figures["equations"] > 20
    assert float(kept) == pytest.approx(float(nested(jnp.ones(3))))


def test_equations_are_traced_to_the_learners_lines(tmp_path):
    source = tmp_path / "submission.py"
    source.write_text(
        textwrap.dedent("""
        import jax.numpy as jnp

        def f(x):
            y = x
            for _ in range(5):
                y = y * 2 + 1
            return jnp.sum(y)
    """)
    )
    namespace: dict = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    figures, _ = measure(namespace["f"], jnp.ones(3), source_file=str(source))
    assert figures["lines"] == {"7": 10, "8": 1}
    assert figures["code"]["7"] == "y = y * 2 + 1"
    assert figures["first_line"]["mul"] == 7


def test_the_traced_programs_value_is_kept_and_python_numbers_stay_static():
    def repeat(x, n):
        for _ in range(n):  # needs a concrete n
            x = x + 1
        return {"out": x, "n": n}

    figures, kept = measure(repeat, jnp.zeros(2), 3)
    assert figures["equations"] == 3
    assert np.asarray(kept["out"]).tolist() == [3.0, 3.0] and kept["n"] == 3


# ---------------------------------------------------------------- verdicts on figures


def test_linear_growth_fails_with_sizes_the_primitive_and_the_line():
    c = check(budget="no_growth", size="x.shape[0]", size_name="T")
    result = c.judge(None, calls([0, 45, 381, 1197]))
    assert result.status == Status.FAILED and result.verdict == Verdict.INEFFICIENT
    message = result.message
    assert "0 equations at T=0, 45 at T=8, 381 at T=64 and 1197 at T=200" in message
    assert "the reference's: 11 equations at T=0, 8, 64 and 200" in message
    assert "From T=8 to T=200 it gains 1152 equations" in message
    assert "at most 148" in message
    assert "`mul` grew most, from 45 to 1197" in message
    assert "line 9 of your file: `y = a * x[t] + y`" in message
    assert "Usual cause: a Python loop" in message


def test_an_unrolled_scan_is_named_as_such():
    c = check(budget="no_growth", size="x.shape[0]", size_name="T")
    figures = calls([0, 170, 1514, 4778])
    for f, copies in zip(figures, (1, 7, 63, 199)):
        f.mine["unrolled"] = copies
    message = c.judge(None, figures).message
    assert "A scan (or fori_loop) in it is unrolled into 199 copies of its body at T=200" in message


def test_logarithmic_growth_and_a_smaller_degenerate_call_pass():
    c = check(budget="no_growth", size="x.shape[0]", size_name="T")
    assert c.judge(None, calls([0, 80, 152, 172])).status == Status.PASSED
    constant = c.judge(None, calls([1, 11, 11, 11]))
    assert constant.status == Status.PASSED
    assert "does not grow with T" in constant.message


def test_one_equation_per_step_is_caught_across_a_wide_script():
    c = check(budget="no_growth", size="x.shape[0]")
    assert c.judge(None, calls([3, 11, 67, 203])).status == Status.FAILED


def test_number_and_reference_budgets():
    over = check(budget=100).judge(None, calls([5, 20, 90, 120]))
    assert over.status == Status.FAILED and "120 equations at size=200" in over.message
    assert "the task's budget of 100" in over.message
    ref = check(budget="reference", slack=2)
    assert ref.judge(None, calls([12, 13, 13, 13])).status == Status.PASSED
    failed = ref.judge(None, calls([12, 13, 14, 13]))
    assert "the reference's 11 plus a slack of 2" in failed.message


def test_forbidden_and_required_primitives():
    with_while = check(forbid=["while"], cause="a while_loop where a scan is asked for").judge(
        None, calls([3, 3, 3, 3], prims=lambda n: {"while": 1, "add": 2}, first_line={"while": 9})
    )
    assert with_while.status == Status.FAILED
    assert (
        "uses `while` (1 time at size=0, first from line 9 of your file: "
        "`y = a * x[t] + y`; the reference's: none)" in with_while.message
    )
    assert with_while.message.endswith("Usual cause: a while_loop where a scan is asked for.")
    needs_scan = check(require=["scan"])
    # the empty call (size 0) may do without it
    assert (
        needs_scan.judge(None, calls([0, 3, 3, 3], prims=lambda n: {"scan": 1} if n else {})).status
        == Status.PASSED
    )
    missing = needs_scan.judge(None, calls([3, 3, 3, 3], prims=lambda n: {"mul": 2}))
    assert (
        "no `scan` (the reference's: 1), which this task requires (yours has: `mul` x2)"
        in missing.message
    )
    reasons = check(
        forbid={"pure_callback": "the loop runs in Python on the host"},
        require={"scan": "a loop written in Python"},
    )
    figures = calls([3, 3, 3, 3], prims=lambda n: {"pure_callback": 1})
    both = reasons.judge(None, figures).message.split("\n")
    assert both[1] == "Usual cause: the loop runs in Python on the host."
    assert both[3] == "Usual cause: a loop written in Python."
    assert reasons.forbid == ["pure_callback"] and reasons.require == ["scan"]


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"budget": "no_grow"}, "expected no_growth, reference or a number"),
        ({}, "needs a budget"),
        (
            {"budget": "no_growth", "size": "y.shape[0]"},
            "expected ARG, len(ARG) or ARG.shape[AXIS]",
        ),
        ({"budget": "no_growth", "forbid": "while"}, "expected a list or a mapping"),
        (
            {"budget": "no_growth", "forbid": {"while": 3}},
            "a mapping of each name to the usual cause",
        ),
        ({"budget": "no_growth", "per_doubling": -1}, "at least 0"),
    ],
)
def test_bad_fields_are_named(fields, words):
    with pytest.raises(BankError, match=re.escape(words)):
        check(**fields)


def test_sizes_of_calls():
    args = {"x": Leaf(np.zeros((3, 5), np.float32), "jax"), "ws": [1, 2, 3, 4], "k": 7}
    scripts = {"s": [args]}

    def size(expr):
        data = {"id": "p", "kind": "jaxpr", "script": "s", "budget": "no_growth"}
        if expr:
            data["size"] = expr
        return parse_check(FieldReader(data, Path("t.yaml"), "t", "c"), scripts).size_of(args)

    assert [size(e) for e in (None, "x", "x.shape[1]", "x.shape[4]", "len(ws)", "k")] == [
        5,
        15,
        5,
        0,
        4,
        7,
    ]


# ---------------------------------------------------------------- end to end
