"""judge.worker.probe: trace/compile attribution and retrace reasons.

The measured outcomes run one scenario per fresh process (tests/probe_cases/run_case.py):
jax's caches are global and keyed on objects such as ``jnp.sum``, so scenarios sharing
a process would see each other's compiles.  (``jax.clear_caches()`` did reset them in
the scenario that checks it, but not config or listeners; a fresh process is simpler
to trust.)  The frame-layout self-test and the failure tests run in this process.
"""

import functools
import json
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from judge.worker import probe as probe_mod
from judge.worker.probe import Probe, find_jit_call

from helpers import TESTS

CASES = TESTS / "probe_cases"
LEARNER = CASES / "learner.py"
AOT = CASES / "aot_learner.py"
EVENT_KEYS = {"group", "origin", "stage", "signature", "reason", "line", "seconds"}


@functools.cache
def scenario(name: str, case: Path = LEARNER) -> dict:
    done = subprocess.run(
        [sys.executable, str(CASES / "run_case.py"), str(case), f"scenario_{name}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def line_of(marker: str) -> int:
    for number, text in enumerate(LEARNER.read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# L:{marker}"):
            return number
    raise LookupError(marker)


def retrace_report(name: str) -> dict:
    return scenario(name)["reports"]["retrace"]


def function(report: dict, name: str) -> dict:
    (found,) = [f for f in report["functions"] if f["name"] == name]
    return found


def shape_change(before: int, after: int, arg: str = "a") -> str:
    return f"argument `{arg}` changed shape from float32[{before}] to float32[{after}]"


# ---------------------------------------------------------------- the 8, 16, 32, 8 sequence


def test_module_level_jit_traces_once_per_new_shape():
    report = retrace_report("module_level")
    sums = function(report, "sum_jit")
    assert (sums["traces"], sums["compiles"], sums["cache_entries"]) == (3, 3, 3)
    assert sums["retraces"] == [shape_change(8, 16), shape_change(16, 32)]
    assert sums["note"] is None
    assert report["learner_traces"] == 3 and report["eager"]["traces"] == 0


def test_a_cache_hit_fires_no_event():
    calls = scenario("module_level")["calls"]
    assert [len(c) for c in calls] == [2, 2, 2, 0]  # trace + compile, ..., hit


def test_fresh_wrapper_around_one_function_shares_its_cache():
    report = retrace_report("fresh_wrapper")
    wrapper = function(report, f"jit(sum) at line {line_of('fresh_wrapper')}")
    assert wrapper["traces"] == 3
    assert wrapper["cache_entries"] is None  # not a module-level object


def test_fresh_lambda_retraces_every_call():
    line = line_of("fresh_lambda")
    lam = function(retrace_report("fresh_lambda"), f"lambda at line {line}")
    assert lam["traces"] == 4
    assert lam["retraces"][-1] == (
        f"new function object: the lambda at line {line} is created again on every "
        "call, so jit cannot reuse what it compiled"
    )
    assert lam["retraces"][0].endswith(shape_change(8, 16, "v"))


def test_fresh_partial_is_a_new_function_object():
    group = f"partial(scaled_sum) at line {line_of('scaled_sum')}"
    part = function(retrace_report("fresh_partial"), group)
    assert part["traces"] == 4
    assert part["retraces"][-1].startswith(
        "new function object: a new functools.partial of `scaled_sum` is built on every call"
    )


def test_closure_from_a_factory_is_a_new_function_object():
    line = line_of("inner")
    inner = function(retrace_report("factory"), f"make_step.inner at line {line}")
    assert inner["traces"] == 4
    assert inner["retraces"][-1].startswith(
        f"new function object: `make_step.inner` (defined at line {line}) is defined again"
    )


# ---------------------------------------------------------------- what changed


def test_weak_and_strong_scalars_are_different_programs():
    scale = function(retrace_report("strong_then_weak"), "scale")
    assert scale["traces"] == 2  # jnp, python, then both again from the cache
    assert scale["retraces"] == [
        "argument `s` changed from a strongly typed float32[] to a weakly typed float32[] "
        "(a Python float instead of a JAX array)"
    ]


def test_seed_chapter_numpy_scalar_adds_an_entry_but_no_trace():
    scale = function(retrace_report("numpy_scalar"), "scale")
    assert (scale["traces"], scale["cache_entries"]) == (1, 2)
    assert "keyed more finely than the trace" in scale["note"]


def test_seed_chapter_python_int_changes_dtype():
    scale = function(retrace_report("seed_chapter"), "scale")
    assert (scale["traces"], scale["cache_entries"]) == (3, 4)
    assert scale["retraces"][-1] == (
        "argument `s` changed dtype from float32[] to int32[] "
        "(a Python int instead of a Python float)"
    )


def test_list_instead_of_tuple_retraces_and_dict_key_order_does_not():
    run = scenario("pytrees")
    pair = function(run["reports"]["retrace"], "pair_sum")
    assert pair["traces"] == 3
    assert pair["retraces"][0] == (
        "the pytree structure of argument `t` changed: PyTreeDef((*, *)) before, "
        "PyTreeDef([*, *]) now (a list instead of a tuple)"
    )
    assert run["calls"][3] == []  # {"b": x, "a": x} after {"a": x, "b": x}


def test_static_argument_change_names_the_values():
    power = function(retrace_report("static"), "power_sum")
    assert power["traces"] == 2
    assert power["retraces"] == ["static argument `degree` changed from 3 to 5"]


def test_argument_names_come_from_the_learners_signature():
    weighted = function(retrace_report("named_argument"), "weighted")
    assert weighted["retraces"] == [shape_change(8, 16, "x_a")]


def test_identical_signature_after_clear_caches_says_so():
    sums = function(retrace_report("cleared"), "sum_jit")
    assert sums["traces"] == 2
    assert sums["retraces"][0].startswith("the same signature was traced before")
    assert "dropped" in sums["note"]


# ---------------------------------------------------------------- attribution edges


def test_eager_ops_are_reported_apart():
    run = scenario("eager_add")
    report = run["reports"]["retrace"]
    assert report["learner_traces"] == 1
    assert [f["name"] for f in report["functions"]] == ["sum_jit"]
    assert report["eager"] == {"traces": 1, "compiles": 1, "ops": {"add": 1}}
    add = [e for e in run["calls"][0] if e["group"] == "add"]
    assert {e["origin"] for e in add} == {"eager"}
    assert {e["line"] for e in add} == {line_of("eager_add")}


def test_helper_first_traced_inside_another_jit():
    report = retrace_report("nested_helper")
    assert function(report, "outer")["traces"] == 1
    helper = function(report, "helper_jit")
    assert (helper["traces"], helper["compiles"]) == (0, 1)
    assert helper["note"].startswith("compiled without a trace of its own")
    assert report["notes"] == []


def test_transforms_compile_without_trace_and_do_not_break_the_probe():
    report = retrace_report("transforms")
    assert report["notes"] == []
    assert function(report, "sum_jit")["compiles"] == 1  # vmap(sum_jit)
    assert report["learner_traces"] == 0 and report["eager"]["compiles"] > 0


def test_import_time_compiles_are_seen():
    run = scenario("module_level")
    load = run["reports"]["load"]
    assert function(load, "warm_jit")["traces"] == 1
    assert {e["group"] for e in run["load"]} == {"warm_jit"}


def test_events_are_json_shaped():
    events = [event for call in scenario("seed_chapter")["calls"] for event in call]
    # the seed chapter traces and compiles: a scenario that recorded nothing must fail
    # here, not pass with nothing to look at
    assert {e["stage"] for e in events} == {"trace", "compile"}
    for event in events:
        assert set(event) == EVENT_KEYS
        assert event["origin"] in ("learner", "eager")
        assert event["stage"] in ("trace", "compile")
        assert isinstance(event["seconds"], float)


# ---------------------------------------------------------------- in this process


def test_self_test_jax_frame_layout():
    """Fails when jax moves the frames and locals the probe reads (re-measure the notes)."""
    seen = []

    def listener(event, value, **kwargs):
        if event == probe_mod.TRACE_EVENT:
            seen.append(find_jit_call(sys._getframe()))

    jax.monitoring.register_scalar_listener(listener)
    try:
        jax.jit(lambda v: v + 1)(np.ones(3, np.float32))  # a fresh lambda: always a miss
    finally:
        jax.monitoring.unregister_scalar_listener(listener)
    assert seen, f"no {probe_mod.TRACE_EVENT} event reached a scalar listener"
    call = seen[-1]
    assert call is not None, "no cache_miss frame in jax/_src/pjit.py above a trace event"
    assert callable(call.fun) and call.fun.__code__.co_filename == __file__
    assert hasattr(call.jit_info, "static_argnums"), "cache_miss's jit_info changed"
    assert [a.shape for a in call.args] == [(3,)] and call.kwargs == {}
    jitted = jax.jit(jnp.sum)
    assert type(jitted) is probe_mod._JIT_TYPE and hasattr(jitted, "_jit_info")
    assert jitted._cache_size() == 0


def test_a_failing_probe_never_reaches_the_learner(monkeypatch):
    probe = Probe(__file__)
    monkeypatch.setattr(probe_mod, "signature_of", lambda call: 1 / 0)
    try:
        probe.begin_call("call")
        assert float(jax.jit(lambda v: v * 3)(2.0)) == 6.0
        events = probe.end_call()
        report = probe.report("call")
    finally:
        probe.close()
    assert {e["origin"] for e in events} == {"unknown"}
    assert any(n.startswith("probe_error: trace of") for n in report["notes"])


def test_close_unregisters_both_listeners():
    probe = Probe(__file__)
    probe.close()
    from jax._src import monitoring  # the getters are not re-exported publicly

    assert probe._on_start not in monitoring.get_scalar_listeners()
    assert probe._on_end not in monitoring.get_event_duration_listeners()
    probe.close()  # a second close is harmless


def test_in_process_attribution_of_a_learner_lambda():
    probe = Probe(__file__)
    try:
        probe.begin_call("call")
        jax.jit(lambda q: q - 1)(np.ones(5, np.float32))
        (trace, compile_) = probe.end_call()
    finally:
        probe.close()
    assert trace["origin"] == "learner" and trace["group"].startswith("lambda at line")
    assert trace["reason"] == "first call: traced for q: float32[5]"
    assert compile_["stage"] == "compile" and compile_["reason"] is None


@pytest.mark.parametrize(
    "value, python",
    [
        (2.0, "a Python float"),
        (np.float32(2), "a NumPy scalar"),
        (np.ones(2), "a NumPy array"),
        (jnp.ones(2), "a JAX array"),
        ("s", "a str"),
    ],
)
def test_leaf_descriptions(value, python):
    leaf = probe_mod._leaf("x", value)
    assert leaf.python == python
    assert (leaf.dtype is None) == isinstance(value, str)


def test_events_before_the_first_call_are_load_and_between_calls_none():
    probe = Probe(__file__)
    try:
        jax.jit(lambda r: r * 5)(np.ones(6, np.float32))  # "importing"
        probe.begin_call("example")
        probe.end_call()
        jax.jit(lambda r: r * 7)(np.ones(6, np.float32))  # the worker's own work
        load, between = probe.report("load"), probe.report(None)
    finally:
        probe.close()
    assert load["learner_traces"] == 1 and between["learner_traces"] == 1


def test_a_callable_without_a_signature_falls_back_to_positions():
    assert probe_mod._positional_names(max, (1, 2), {}) == ["argument 1", "argument 2"]
    old = probe_mod.Leaf("argument 1", "float32", (8,), False, "a JAX array")
    new = probe_mod.Leaf("argument 1", "float32", (16,), False, "a JAX array")
    assert probe_mod._leaf_change(old, new) == (
        "argument 1 changed shape from float32[8] to float32[16]"
    )


# ---------------------------------------------------------------- who built it


def test_a_jit_built_by_the_learner_is_theirs_wherever_it_is_called_from():
    """jax.tree.map(jax.jit(partial(jnp.multiply, factor)), tree): jit is called from
    jax's tree_util, never from the learner's file, and builds a new program per call."""
    report = retrace_report("tree_map_partial")
    fresh = function(report, f"jit(partial(multiply)) built at line {line_of('tree_map_partial')}")
    assert fresh["traces"] == 3 and report["eager"]["traces"] == 0
    assert fresh["retraces"][0].startswith(
        "new function object: a new functools.partial of `multiply` is built on every call"
    )


def test_a_jit_built_by_exec_is_the_learners():
    report = retrace_report("exec_jit")
    built = function(report, f"jit(<lambda>) built at line {line_of('exec_jit')}")
    assert built["traces"] == 3
    assert "the lambda at line 1 of code run by exec" in built["retraces"][0]


@pytest.mark.parametrize("name", ["private_jit", "private_pjit", "jit_built_by_tree_map"])
def test_a_jit_built_through_any_route_is_the_learners(name):
    """jax._src.api.jit, jax._src.pjit.pjit, or jit called by jax.tree.map: every route
    builds through _cpp_pjit, and a fresh one per call is the learner's retrace, not an
    eager op."""
    report = retrace_report(name)
    fresh = function(report, f"jit(partial(sum)) built at line {line_of(name)}")
    assert fresh["traces"] == 3 and report["eager"]["traces"] == 0


def test_an_unjitted_loop_over_a_per_call_closure_is_the_learners():
    """An unjitted lax.fori_loop compiles its body as one program: the learner's, and
    compiled again for every new closure, though no jax.jit appears."""
    report = retrace_report("eager_fori")
    loop = function(report, f"scan outside jit at line {line_of('eager_fori')}")
    assert loop["traces"] == 3 and report["eager"]["traces"] == 0
    assert loop["retraces"][0].startswith("`scan` outside jit is compiled again")


def test_an_unjitted_loop_over_a_fixed_body_compiles_once():
    report = retrace_report("eager_fori_fixed")
    (loop,) = report["functions"]
    assert loop["name"].startswith("scan outside jit at line") and loop["traces"] == 1


def test_jax_library_jits_stay_eager():
    report = retrace_report("library")
    assert report["functions"] == [] and report["learner_traces"] == 0
    assert set(report["eager"]["ops"]) >= {"clip", "relu", "cumsum"}


# ---------------------------------------------------------------- ahead of time


def aot_line(marker: str) -> int:
    for number, text in enumerate(AOT.read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# L:{marker}"):
            return number
    raise LookupError(marker)


def test_programs_compiled_ahead_at_import_are_the_learners_load_events():
    out = scenario("call_compiled", AOT)
    load = out["load_events"]
    assert load == out["load"]  # what the worker sends with the load's reply
    compiles = [e for e in load if e["stage"] == "compile"]
    assert [e["origin"] for e in compiles] == ["learner"] * 3
    assert [e["line"] for e in compiles] == [aot_line("aot")] * 2 + [aot_line("trace")]
    assert compiles[0]["group"] == f"_mean compiled ahead of time at line {aot_line('aot')}"
    traces = [e for e in load if e["stage"] == "trace"]
    assert [e["origin"] for e in traces] == ["learner"] * 3
    assert [e["reason"].startswith("first") for e in traces] == [True, False, False]
    # calling a compiled program compiles nothing more
    assert out["calls"] == [[]]


def test_an_ahead_of_time_compile_inside_a_call_is_the_learners():
    (events,) = scenario("aot_in_call", AOT)["calls"]
    (compile_event,) = [e for e in events if e["stage"] == "compile"]
    assert compile_event["origin"] == "learner" and compile_event["line"] == aot_line("in_call")


def test_a_look_alike_module_does_not_rename_the_learners_jit():
    report = scenario("call", CASES / "impostor_learner.py")["reports"]["call"]
    assert [f["name"] for f in report["functions"]] == ["total"]


def test_a_module_whose_dict_lies_does_not_rename_the_learners_jit():
    report = scenario("call", CASES / "module_class_learner.py")["reports"]["call"]
    assert [f["name"] for f in report["functions"]] == ["total"]
