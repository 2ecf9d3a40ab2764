"""Issue 20, classes 2 and 3: figures a learner cannot dodge by looping or calling back.

Flops inside a loop count once per trip where XLA knows the trip count, and are unknown
(the check fails closed) where it does not; a host callback the reference does not make
fails every kind that reads a program (jaxpr, cost, collectives, residuals).  And
`judge validate`'s bank-wide rule: each kind rejects a known submission of every dodge
class it declares.

Here: the tests that start no process; tests/integration/test_dodges.py has those that
grade in a worker."""

from __future__ import annotations

import dataclasses
import importlib.util
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import pytest
from jax import lax

from judge.bank import FieldReader, load_bank
from judge.checks import CHECK_KINDS, parse_check
from judge.checks import load_kinds as _load_kinds
from judge.checks.base import Measured
from judge.checks.hlo import read_hlo, work
from judge.labels import LabelError, parse_dodges, read_dodges
from judge.report import CheckResult, Report
from judge.validate import dodge_coverage
from judge.verdicts import Status, Verdict
from judge.worker.measure import MeasureContext, _compile_instrument

BANK = load_bank()
A, B, C = jnp.ones((64, 8)), jnp.ones((8, 64)), jnp.ones((64, 2))


def right(a, b, c):
    return a @ (b @ c)


def fori_rows(a, b, c):
    out = jnp.zeros((a.shape[0], c.shape[1]))
    return lax.fori_loop(0, a.shape[0], lambda i, o: o.at[i].set((a[i] @ b) @ c), out)


def scan_rows(a, b, c):
    return lax.scan(lambda carry, row: (carry, (row @ b) @ c), None, a)[1]


def while_rows(a, b, c):
    def step(s):
        return s[0] + 1, s[1].at[s[0]].set((a[s[0]] @ b) @ c)

    return lax.while_loop(
        lambda s: s[0] < a.shape[0], step, (0, jnp.zeros((a.shape[0], c.shape[1])))
    )[1]


def nested_rows(a, b, c):
    def outer(i, o):  # a @ b one element at a time: 64 x 64 dot products of 8
        return lax.fori_loop(0, b.shape[1], lambda j, o: o.at[i, j].set(a[i] @ b[:, j]), o)

    return lax.fori_loop(0, a.shape[0], outer, jnp.zeros((a.shape[0], b.shape[1]))) @ c


def traced_bound(a, b, c):
    bound = a.shape[0] + (0 * a[0, 0]).astype(jnp.int32)

    def step(s):
        return s[0] + 1, s[1].at[s[0]].set((a[s[0]] @ b) @ c)

    return lax.while_loop(lambda s: s[0] < bound, step, (0, jnp.zeros((a.shape[0], c.shape[1]))))[1]


def one_trip(a, b, c):
    return lax.fori_loop(0, 1, lambda i, o: o + a @ (b @ c), jnp.zeros((64, 2)))


def work_of(fn):
    compiled = jax.jit(fn).lower(A, B, C).compile()
    return work(read_hlo(compiled.as_text())), compiled.cost_analysis()["flops"]


# ---------------------------------------------------------------- loops in the HLO


@pytest.mark.parametrize("fn", [fori_rows, scan_rows, while_rows])
def test_a_loop_body_counts_once_per_trip_where_xla_knows_the_trip_count(fn):
    done, xla = work_of(fn)
    # XLA counts one row of the expensive order; the loop runs 64 of them
    assert xla < 20_000 and done.flops_once < 20_000
    assert 81_920 <= done.flops < 90_000 and not done.unknown


def test_nested_loops_multiply_through():
    done, xla = work_of(nested_rows)
    # 64 x 64 trips of an 8-long dot product (16 flops), then the 64 x 64 x 2 product
    assert done.flops >= 64 * 64 * 16 + 16_384 and xla < 17_000
    one_row = work_of(
        lambda a, b, c: (
            lax.fori_loop(
                0,
                b.shape[1],
                lambda j, o: o.at[0, j].set(a[0] @ b[:, j]),
                jnp.zeros((a.shape[0], b.shape[1])),
            )
            @ c
        )
    )[0]
    assert done.flops - 16_384 > 60 * (one_row.flops - 16_384)


def test_a_loop_whose_trip_count_xla_does_not_know_is_reported_never_guessed():
    done, _ = work_of(traced_bound)
    assert len(done.unknown) == 1 and done.unknown[0].line is not None
    assert done.flops == done.flops_once


def test_a_loop_of_one_trip_costs_its_body_once():
    done, xla = work_of(one_trip)
    assert done.flops == done.flops_once == xla == work_of(right)[1] == 4096


# ---------------------------------------------------------------- the instruments' figures


def instrument_of(kind: str):
    _load_kinds()
    return _compile_instrument(dataclasses.asdict(CHECK_KINDS[kind].INSTRUMENT))


def measure(kind, fn, args, options=None, source_file=None):
    function, bound = instrument_of(kind)
    return function(MeasureContext(fn, source_file, bound), list(args), {}, options or {})


def check(kind, scripts, **fields):
    data = dict({"id": kind, "kind": kind, "script": "s"}, **fields)
    return parse_check(FieldReader(data, Path("tasks.yaml"), "t", "checks[0]"), scripts)


def learner_module(tmp_path, body: str):
    """The learner's functions, from a file of their own (its lines are named)."""
    path = tmp_path / "submission.py"
    path.write_text(textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location("submission_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(path)


CALLBACKS = """
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.experimental import io_callback


def _host(a, b, c):
    return (np.asarray(a) @ np.asarray(b) @ np.asarray(c)).astype(np.float32)


def _shape(a, c):
    return jax.ShapeDtypeStruct((a.shape[0], c.shape[1]), a.dtype)


def pure(a, b, c):
    return jax.pure_callback(_host, _shape(a, c), a, b, c)


def io(a, b, c):
    return io_callback(_host, _shape(a, c), a, b, c)


def debug_cb(a, b, c):
    jax.debug.callback(lambda a, b, c: _host(a, b, c), a, b, c)
    return a @ (b @ c)


def in_scan(a, b, c):
    row = lambda r, bc: jax.pure_callback(lambda r, bc: np.asarray(r) @ np.asarray(bc),
                                          jax.ShapeDtypeStruct((c.shape[1],), a.dtype), r, bc)
    return lax.scan(lambda bc, r: (bc, row(r, bc)), b @ c, a)[1]


def in_cond(a, b, c):
    return lax.cond(a[0, 0] > 5, lambda: a @ (b @ c), lambda: pure(a, b, c))


@jax.custom_jvp
def in_jvp(a, b, c):
    return pure(a, b, c)


in_jvp.defjvp(lambda p, t: (in_jvp(*p), t[0] @ (p[1] @ p[2])))


def printed(a, b, c):
    jax.debug.print("a: {}", a[0, 0])
    return a @ (b @ c)


def right(a, b, c):
    return a @ (b @ c)
"""
CALLING_BACK = ["pure", "io", "debug_cb", "in_scan", "in_cond", "in_jvp"]
COST_SCRIPTS = {"s": [{"a": 0, "b": 0, "c": 0}]}
LABEL = "a float32[64, 8], b float32[8, 64], c float32[64, 2]"


def judged(kind, mine, theirs, scripts=COST_SCRIPTS, **fields):
    return check(kind, scripts, **fields).judge(None, [Measured(1, {}, LABEL, mine, theirs)])


@pytest.mark.parametrize("fn", [fori_rows, scan_rows, while_rows])
def test_cost_counts_every_trip_and_says_what_xla_counted(fn):
    result = judged(
        "cost", measure("cost", fn, [A, B, C]), measure("cost", right, [A, B, C]), factor=1.1
    )
    assert result.status == Status.FAILED and result.verdict == Verdict.INEFFICIENT
    assert (
        "20.0 times the reference's 4,096" in result.message
        or "20.2 times the reference's 4,096" in result.message
    )
    assert "counts each loop body once per trip: XLA's own cost analysis" in result.message


def test_cost_fails_closed_on_an_unknown_trip_count_against_a_reference_without_one():
    result = judged(
        "cost",
        measure("cost", traced_bound, [A, B, C]),
        measure("cost", right, [A, B, C]),
        factor=1.1,
    )
    assert result.status == Status.FAILED and result.verdict == Verdict.INEFFICIENT
    assert "whose trip count XLA does not know" in result.message
    # the reference has such a loop too: compared with bodies once, as XLA counts them
    both = judged(
        "cost",
        measure("cost", traced_bound, [A, B, C]),
        measure("cost", traced_bound, [A, B, C]),
        factor=1.1,
    )
    assert both.status == Status.PASSED, both.message


def test_a_loop_that_runs_once_and_a_plain_program_pass_cost():
    theirs = measure("cost", right, [A, B, C])
    for fn in (one_trip, right):
        assert judged("cost", measure("cost", fn, [A, B, C]), theirs).status == Status.PASSED


@pytest.mark.parametrize("name", CALLING_BACK)
def test_cost_names_each_host_callback_and_its_line(tmp_path, name):
    module, path = learner_module(tmp_path, CALLBACKS)
    a = jnp.full((64, 8), 0.5)
    mine = measure("cost", getattr(module, name), [a, B, C], source_file=path)
    result = judged("cost", mine, measure("cost", right, [a, B, C]))
    assert result.status == Status.FAILED and result.verdict == Verdict.INEFFICIENT, result.message
    assert "calls back into Python on the host" in result.message
    assert " at line " in result.message and "no host callback" in result.message


def test_a_debug_print_is_not_counted_as_work_off_the_device(tmp_path):
    module, path = learner_module(tmp_path, CALLBACKS)
    mine = measure("cost", module.printed, [A, B, C], source_file=path)
    result = judged("cost", mine, measure("cost", right, [A, B, C]))
    assert result.status == Status.PASSED and "jax.debug.print" in result.message


def test_a_callback_the_reference_makes_too_is_not_held_against_the_learner(tmp_path):
    module, path = learner_module(tmp_path, CALLBACKS)
    theirs = measure("cost", module.pure, [A, B, C], source_file=path)
    assert judged("cost", measure("cost", module.pure, [A, B, C]), theirs).status == Status.PASSED


JAXPR_SCRIPTS = {"s": [{"a": 0, "b": 0, "c": 0}]}


@pytest.mark.parametrize("name", CALLING_BACK)
def test_jaxpr_fails_a_host_callback_by_default_naming_it_and_its_line(tmp_path, name):
    module, path = learner_module(tmp_path, CALLBACKS)
    a = jnp.full((64, 8), 0.5)
    mine = measure("jaxpr", getattr(module, name), [a, B, C], source_file=path)
    theirs = measure("jaxpr", module.right, [a, B, C], source_file=path)
    result = judged("jaxpr", mine, theirs, JAXPR_SCRIPTS, budget="no_growth")
    assert result.status == Status.FAILED and result.verdict == Verdict.INEFFICIENT, result.message
    assert "calls back into Python on the host" in result.message
    assert " at line " in result.message
    assert (
        judged("jaxpr", theirs, theirs, JAXPR_SCRIPTS, budget="no_growth").status == Status.PASSED
    )


def test_jaxpr_lets_a_debug_print_through_and_keeps_a_tasks_own_forbid_words(tmp_path):
    module, path = learner_module(tmp_path, CALLBACKS)
    theirs = measure("jaxpr", module.right, [A, B, C], source_file=path)
    printed = measure("jaxpr", module.printed, [A, B, C], source_file=path)
    assert (
        judged("jaxpr", printed, theirs, JAXPR_SCRIPTS, budget="no_growth").status == Status.PASSED
    )
    pure = measure("jaxpr", module.pure, [A, B, C], source_file=path)
    worded = judged(
        "jaxpr",
        pure,
        theirs,
        JAXPR_SCRIPTS,
        budget="no_growth",
        forbid={"pure_callback": "the loop runs in NumPy on the host"},
    )
    assert "which this task rules out" in worded.message
    assert "the loop runs in NumPy on the host" in worded.message
    assert "calls back into Python" not in worded.message


def test_residuals_fail_a_forward_pass_computed_on_the_host(tmp_path):
    module, path = learner_module(
        tmp_path,
        CALLBACKS
        + """

@jax.custom_vjp
def layer(w, x):
    return jax.pure_callback(lambda w, x: np.tanh(np.asarray(w) @ np.asarray(x)),
                             jax.ShapeDtypeStruct((w.shape[0],), x.dtype), w, x)


def _fwd(w, x):
    return layer(w, x), (w, x)


def _bwd(res, g):
    w, x = res
    d = g * (1 - jnp.tanh(w @ x) ** 2)
    return jnp.outer(d, x), w.T @ d


layer.defvjp(_fwd, _bwd)


def stack(w, x):
    return layer(w, layer(w, x))


def plain_stack(w, x):
    return jnp.tanh(w @ jnp.tanh(w @ x))
""",
    )
    w, x = jnp.eye(4) * 0.5, jnp.ones(4)
    options = check("residuals", {"s": [{"w": 0, "x": 0}]}).options(None)
    mine = measure("residuals", module.stack, [w, x], options, source_file=path)
    theirs = measure("residuals", module.plain_stack, [w, x], options, source_file=path)
    result = judged("residuals", mine, theirs, {"s": [{"w": 0, "x": 0}]})
    assert result.status == Status.FAILED and "jax.pure_callback at line" in result.message
    assert mine["count"] <= theirs["count"]  # it saves less: the dodge itself
    assert judged("residuals", theirs, theirs, {"s": [{"w": 0, "x": 0}]}).status == Status.PASSED


def test_collectives_fail_a_host_callback_as_a_gather_through_the_host(tmp_path):
    module, path = learner_module(tmp_path, CALLBACKS)
    mine = measure("collectives", module.pure, [A, B, C], {"max_chars": 1 << 22}, source_file=path)
    theirs = measure(
        "collectives", module.right, [A, B, C], {"max_chars": 1 << 22}, source_file=path
    )
    result = judged("collectives", mine, theirs)
    assert result.status == Status.FAILED and "jax.pure_callback at line" in result.message
    assert "gathers every device's part to the host" in result.message
    assert judged("collectives", theirs, theirs).status == Status.PASSED


# ---------------------------------------------------------------- labels and validate


def test_dodge_labels_parse_and_a_misspelt_class_is_named(tmp_path):
    assert parse_dodges("loop_flops, host_callback") == ("loop_flops", "host_callback")
    with pytest.raises(LabelError, match="did you mean 'loop_flops'"):
        parse_dodges("loop_flop")
    with pytest.raises(LabelError, match="names no class"):
        parse_dodges(" ")
    path = tmp_path / "k.py"
    path.write_text("# expect: inefficient via cost\n# dodge: loop_flops\nx = 1\n")
    assert read_dodges(path) == ("loop_flops",)
    path.write_text("# expect: accepted\nx = 1\n")
    assert read_dodges(path) == ()


def _validated(task, dodges):
    report = Report(task=task.id, submission="", seed=0, judge_version="t", strict=False)
    report.checks = [
        CheckResult(
            id="dodges",
            kind="validate",
            required=False,
            status="passed",
            message="",
            details={"dodges": dodges},
        )
    ]
    return report


def test_validate_requires_each_kind_to_reject_every_class_it_declares_bank_wide():
    tasks = [BANK.get("chain_matmul"), BANK.get("pairwise_sq_dists")]
    assert CHECK_KINDS["cost"].DODGES == (
        "loop_flops",
        "host_callback",
        "trace_switch",
        "host_compute",
    )
    assert (
        CHECK_KINDS["jaxpr"].DODGES
        == CHECK_KINDS["collectives"].DODGES
        == ("host_callback", "trace_switch", "host_compute")
    )
    assert CHECK_KINDS["residuals"].DODGES == ("host_callback",)
    caught = [
        _validated(
            tasks[0],
            [{"file": "fori_loop_rows.py", "classes": ["loop_flops"], "caught_by": ["cost"]}],
        ),
        _validated(
            tasks[1],
            [
                {
                    "file": "pure_callback_loops.py",
                    "classes": ["host_callback"],
                    "caught_by": ["jaxpr"],
                }
            ],
        ),
    ]
    # the classes of the kinds every task has too (the default host_sync, a retrace check;
    # sync counts a learner's custom call, so it declares host_callback too)
    caught[0].checks[0].details["dodges"].append(
        {
            "file": "s.py",
            "classes": ["thread_sync", "host_compute", "ahead_of_time", "host_callback"],
            "caught_by": ["sync", "retrace"],
        }
    )
    caught[0].checks[0].details["dodges"].append(  # issue 20's trace switch (executed)
        {"file": "t.py", "classes": ["trace_switch"], "caught_by": ["cost", "jaxpr"]}
    )
    caught[0].checks[0].details["dodges"].append(  # the off-device rule on value calls
        {"file": "h.py", "classes": ["host_compute"], "caught_by": ["cost", "jaxpr"]}
    )
    report = dodge_coverage(tasks, caught)
    bad = {c.id: c.message for c in report.checks if c.status != "passed"}
    # no host_callback submission is rejected by a cost check: named, kind and class
    assert report.verdict == Verdict.JUDGE_ERROR and list(bad) == ["dodge:cost:host_callback"]
    assert "'# dodge: host_callback' is rejected by a cost check" in bad["dodge:cost:host_callback"]
    caught[0].checks[0].details["dodges"].append(
        {"file": "x.py", "classes": ["host_callback"], "caught_by": ["cost"]}
    )
    assert dodge_coverage(tasks, caught).verdict == Verdict.ACCEPTED
    # a submission labelled with a class but caught by another kind proves nothing here
    none = [
        _validated(
            tasks[1],
            [
                {
                    "file": "p.py",
                    "classes": ["host_callback", "loop_flops"],
                    "caught_by": ["property"],
                }
            ],
        )
    ]
    assert dodge_coverage(tasks[1:], none).verdict == Verdict.JUDGE_ERROR


def test_any_other_custom_call_the_reference_does_not_make_is_named_not_counted_as_free():
    # a library kernel XLA calls out to counts no flops: a product routed through
    # lapack (inv(a) then a solve) reads as cheaper than a plain dot
    def through_lapack(a, b, c):
        return jnp.linalg.solve(jnp.eye(a.shape[0]) * 2, 2 * a) @ (b @ c)

    sq = jnp.eye(64, 8) + 0.5
    result = judged(
        "cost",
        measure("cost", through_lapack, [sq, B, C]),
        measure("cost", right, [sq, B, C]),
        factor=10.0,
    )
    assert result.status == Status.FAILED and result.verdict == Verdict.INEFFICIENT
    assert "hands work to code XLA cannot see into" in result.message
    assert "a custom call to `lapack_" in result.message
    assert "no such call" in result.message
