"""Issue 20, the reviewer's gaps: the figure must describe what the calls ran, and the
answer must come from the device.

The measuring kinds (cost, jaxpr, collectives) trace or compile the function themselves;
a function that tells a trace from a call (``isinstance(x, jax.core.Tracer)``) showed
them a cheap program and ran another.  The worker now records the device programs each
call runs (judge/worker/executions.py) and the kinds weigh them.  The retrace kind's
off-device rule asks that an input array the reference's programs read is read by a
program of the learner's call (NumPy on NumPy inputs, then a token device op, no longer
passes)."""

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
from judge.checks.base import Measured
from judge.runner import grade
from judge.verdicts import Status, Verdict
from judge.worker.executions import array_leaves
from judge.worker.measure import MeasureContext, _compile_instrument, _record_executions

from helpers.isolation_modes import MODES, grade_known_in

BANK = load_bank()


# ---------------------------------------------------------------- the recorder itself


def test_every_kind_of_execution_is_recorded_cache_hits_included():
    double = jax.jit(lambda x: x * 2)
    x = jnp.ones(8)
    double(x)
    double(x)  # a C++ fast-path entry exists now, before the recorder
    executions = _record_executions()
    assert executions is not None
    compiled = jax.jit(lambda x: x @ x).lower(x).compile()
    with executions.recording() as ran:
        double(x)  # a jit cache hit
        double(x)
        _ = x + 1  # an eager primitive
        compiled(x)  # an ahead-of-time program
        compiled(x)
    summary = executions.summary(ran)
    assert summary["executions"] == 5 and summary["distinct"] == 3
    # a jitted program's size comes from the jaxpr it was compiled from; an AOT
    # program's is unknown, so the total is too (the jaxpr kind fails closed on it)
    assert summary["equations"] is None
    with executions.recording() as ran:
        double(x)
        _ = x + 1
    summary = executions.summary(ran)
    assert summary["executions"] == 2 and summary["equations"] >= 2
    assert summary["primitives"]["mul"] == 1 and summary["primitives"]["add"] == 1


def test_a_fresh_jit_wrapper_of_the_same_function_traces_once_as_in_jax():
    # jax's C++ cache knows a jit by its function and options; with the fast path off,
    # Python's trace cache (by wrapper identity) must not trace it again
    executions = _record_executions()
    traced = []

    def core(v):
        traced.append(1)
        return v + 1

    x = jnp.ones(4)
    with executions.recording() as ran:
        for _ in range(3):
            jax.jit(core)(x)
    assert len(traced) == 1 and len(ran) == 3
    jax.jit(lambda v: core(v))(x)  # another function: traced again, as in jax
    assert len(traced) == 2


def test_flops_are_summed_over_every_execution():
    executions = _record_executions()
    a, b, c = jnp.ones((64, 8)), jnp.ones((8, 64)), jnp.ones((64, 2))
    with executions.recording() as ran:
        (a @ b) @ c
    expensive = executions.summary(ran)["flops"]
    with executions.recording() as ran:
        a @ (b @ c)
    assert expensive == 81920 and executions.summary(ran)["flops"] == 4096


def test_an_input_counts_as_read_when_a_program_reads_it_or_a_copy_as_large():
    executions = _record_executions()
    host = np.arange(12, dtype=np.float32)
    mean = jax.jit(jnp.mean)
    mean(host)
    with executions.recording() as ran:
        mean(host)  # the NumPy array itself
    assert executions.inputs_read([host], ran) == [True]
    with executions.recording() as ran:
        padded = np.zeros(16, np.float32)
        padded[:12] = host
        mean(padded)  # a padded copy
    assert executions.inputs_read([host], ran) == [True]
    with executions.recording() as ran:
        jnp.asarray(np.float32(host.mean())) * 1.0  # the host's answer, touched
    assert executions.inputs_read([host, np.zeros(0, np.float32), np.float32(3)], ran) == [
        False,
        None,
        None,
    ]
    assert array_leaves([[host], {"k": host}, 3]) == [host, host]
    # returned as it is (a loop of zero steps): passed through, not computed on the host
    device = jnp.ones(4)
    assert executions.inputs_read([device], [], returned=[device]) == [True]
    record = executions.of_call([], (device,), device)
    assert (record["executions"], record["inputs_read"], record["flops"]) == (0, [True], 0.0)


# ---------------------------------------------------------------- the kinds' judgement


def _instrument(kind):
    _load_kinds()
    return _compile_instrument(dataclasses.asdict(CHECK_KINDS[kind].INSTRUMENT))


def _measured(kind, fn, args):
    function, bound = _instrument(kind)
    return function(MeasureContext(fn, None, bound), list(args), {}, {})


def _check(kind, **fields):
    from pathlib import Path

    from judge.bank import FieldReader
    from judge.checks import parse_check

    data = dict({"id": kind, "kind": kind, "script": "s"}, **fields)
    return parse_check(
        FieldReader(data, Path("tasks.yaml"), "t", "checks[0]"), {"s": [{"a": 0, "b": 0, "c": 0}]}
    )


def _cheap(a, b, c):
    return a @ (b @ c)


def _switching(a, b, c):
    if isinstance(a, jax.core.Tracer):
        return a @ (b @ c)
    return (a @ b) @ c


ABC = [jnp.ones((64, 8)), jnp.ones((8, 64)), jnp.ones((64, 2))]


def test_cost_weighs_what_the_call_ran_and_names_the_difference():
    theirs = _measured("cost", _cheap, ABC)
    mine = _measured("cost", _switching, ABC)
    assert mine["flops"] == 4096 and mine["executed"]["flops"] == 81920
    result = _check("cost").judge(None, [Measured(1, {}, "abc", mine, theirs)])
    assert result.status == Status.FAILED and result.verdict == Verdict.INEFFICIENT
    assert "did different work when called than when traced" in result.message
    assert "81,920 flops" in result.message
    # the same function without the switch: its trace and its call agree, and pass
    same = _measured("cost", _cheap, ABC)
    assert (
        _check("cost").judge(None, [Measured(1, {}, "abc", same, theirs)]).status == Status.PASSED
    )


def test_a_missing_record_of_what_the_call_ran_fails_closed():
    theirs = _measured("cost", _cheap, ABC)
    mine = dict(_measured("cost", _cheap, ABC), executed=None)
    result = _check("cost").judge(None, [Measured(1, {}, "abc", mine, theirs)])
    assert result.status == Status.FAILED and "could not record" in result.message
    result = _check("cost").judge(None, [Measured(1, {}, "abc", mine, dict(theirs, executed=None))])
    assert result.status == Status.ERROR and result.verdict == Verdict.JUDGE_ERROR


def test_jaxpr_fails_closed_where_an_ahead_of_time_program_ran():
    x = jnp.ones(8)
    aot = jax.jit(lambda v: v * 2).lower(x).compile()

    def ahead(v):
        return v * 2 if isinstance(v, jax.core.Tracer) else aot(v)

    theirs = _measured("jaxpr", lambda v: v * 2, [x])
    mine = _measured("jaxpr", ahead, [x])
    check = _check("jaxpr", budget="reference")
    result = check.judge(None, [Measured(1, {"a": 0}, "x", mine, theirs)])
    assert result.status == Status.FAILED and "compiled ahead of time" in result.message


# ---------------------------------------------------------------- end to end, each isolation


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize(
    "task, known, kind, said",
    [
        (
            "chain_matmul",
            "review_m01_tracer_detect.py",
            "cost",
            "did different work when called than when traced",
        ),
        (
            "col_mean",
            "review_k08_tracer_detect_jit_gather.py",
            "collectives",
            "did different work when called than when traced",
        ),
        (
            "bucketed_mean",
            "review_b01_numpy_eager_tail.py",
            "retrace",
            "no program on the device read your input `x`",
        ),
        (
            "bucketed_mean",
            "review_b02_numpy_import_jit.py",
            "retrace",
            "no program on the device read your input `x`",
        ),
    ],
)
def test_the_reviewers_routes_are_inefficient_in_every_isolation_mode(
    isolation, task, known, kind, said, monkeypatch
):
    report = grade_known_in(isolation, task, known, monkeypatch)
    check = next(c for c in report.checks if c.kind == kind)
    assert report.verdict == Verdict.INEFFICIENT, check.message
    assert check.status == Status.FAILED and said in check.message


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize(
    "task, known",
    [
        ("chain_matmul", "trace_switch_same_work.py"),
        ("bucketed_mean", "pad_on_host_jit_mean.py"),
    ],
)
def test_right_submissions_stay_accepted_in_every_isolation_mode(
    isolation, task, known, monkeypatch
):
    report = grade_known_in(isolation, task, known, monkeypatch)
    assert report.verdict == Verdict.ACCEPTED, [c.message for c in report.checks]


@pytest.mark.parametrize("isolation", MODES)
def test_a_learner_who_restores_jax_dispatch_is_caught(isolation, tmp_path, monkeypatch):
    # putting jax's own ExecuteReplicated.__call__ back (found through the wrapper's
    # closure) hides the calls' programs: the instruments' check names it
    monkeypatch.setenv("JUDGE_ISOLATION", isolation)
    t = BANK.get("chain_matmul")
    path = tmp_path / "submission.py"
    path.write_text(
        (t.folder / "known" / "review_m01_tracer_detect.py").read_text()
        + textwrap.dedent("""
        from jax._src.interpreters import pxla
        _wrapped = pxla.ExecuteReplicated.__call__
        for _cell in _wrapped.__closure__ or ():
            if callable(_cell.cell_contents) and getattr(_cell.cell_contents, "__name__", "") == "__call__":
                pxla.ExecuteReplicated.__call__ = _cell.cell_contents
        """)
    )
    report = grade(t, path)
    assert report.isolation == isolation
    assert report.verdict == Verdict.RUNTIME_ERROR, [c.message for c in report.checks]
    assert any("recorder of the programs your calls run" in c.message for c in report.checks)
