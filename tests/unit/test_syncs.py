"""judge.worker.syncs: host pulls, waits and callbacks made by the learner's code.

The learner is tests/probe_cases/sync_learner.py; ``# S:name`` marks the line each
sync must be attributed to.  Every test installs a fresh counter and restores jax's and
numpy's attributes afterwards, so the rest of the suite runs unpatched.
"""

import importlib.util

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from judge.worker.syncs import SyncCounter

from helpers import TESTS

LEARNER = TESTS / "probe_cases" / "sync_learner.py"
ARRAY = type(jnp.zeros(()))


def line_of(marker: str) -> int:
    for number, text in enumerate(LEARNER.read_text().splitlines(), 1):
        if text.rstrip().endswith(f"# S:{marker}"):
            return number
    raise LookupError(marker)


@pytest.fixture(scope="module")
def learner():
    spec = importlib.util.spec_from_file_location("sync_learner", LEARNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def counter():
    counter = SyncCounter(str(LEARNER))
    yield counter
    counter.close()


def syncs_of(counter, fn, *args):
    counter.begin()
    fn(*args)
    return counter.end()


X = jnp.arange(1.0, 5.0)


@pytest.mark.parametrize(
    "name, kind, marker, category",
    [
        ("pull_float", "float()", "float", "pull"),
        ("pull_int", "int()", "int", "pull"),
        ("pull_bool", "bool()", "bool", "pull"),
        ("pull_item", ".item()", "item", "pull"),
        ("pull_tolist", ".tolist()", "tolist", "pull"),
        ("pull_asarray", "np.asarray", "asarray", "pull"),
        ("pull_array", "np.array", "array", "pull"),
        ("pull_print", "print/str", "print", "pull"),
        ("pull_format", "format()", "format", "pull"),
        ("pull_device_get", "device_get", "device_get", "pull"),  # one call, two leaves
        ("pull_index", "index()", "index", "pull"),
        ("wait_block", ".block_until_ready()", "block", "wait"),
    ],
)
def test_each_kind_is_seen_once_with_its_line(learner, counter, name, kind, marker, category):
    (record,) = syncs_of(counter, getattr(learner, name), X)
    line = line_of(marker)
    assert record == {
        "kind": kind,
        "category": category,
        "line": line,
        "code": LEARNER.read_text().splitlines()[line - 1].strip(),
    }


@pytest.mark.parametrize(
    "name, kind, marker",
    [
        ("numpy_where", "np.where", "np_where"),
        ("numpy_tanh", "np.tanh", "np_tanh"),
        ("numpy_maximum", "np.maximum", "np_maximum"),
        ("numpy_copy", "np.copy", "np_copy"),
        ("numpy_add_zero", "np.add", "np_add"),
        ("numpy_concatenate", "np.concatenate", "np_concatenate"),
        ("numpy_add_reduce", "np.add.reduce", "np_add_reduce"),
        ("buffer_memoryview", "buffer protocol", "memoryview"),
        ("buffer_setitem", "buffer protocol", "setitem"),
        ("numpy_dlpack", "__dlpack__ (np.from_dlpack)", "dlpack"),
    ],
)
def test_numpy_reading_a_jax_array_counts_once_by_name(learner, counter, name, kind, marker):
    """numpy's C paths read a CPU jax array through the buffer protocol, without running
    any Python: the most common slip of all (np. typed for jnp.) must still count, named
    with the numpy function and the line."""
    (record,) = syncs_of(counter, getattr(learner, name), X)
    assert (record["kind"], record["category"], record["line"]) == (kind, "pull", line_of(marker))


def test_numpy_functions_keep_their_results(learner, counter):
    counter.begin()
    where, tanh = learner.numpy_where(X), learner.numpy_tanh(X)
    both = learner.numpy_concatenate(X)
    counter.end()
    assert isinstance(where, np.ndarray) and where.tolist() == [0.0, 0.0, 3.0, 4.0]
    assert np.allclose(tanh, np.tanh(np.arange(1.0, 5.0))) and both.shape == (8,)
    assert type(np.ones(4) + X).__name__ == "ArrayImpl"  # a binop still defers to jax


@pytest.mark.parametrize("name", ["numpy_metadata_only", "numpy_sum_delegates"])
def test_numpy_reading_no_values_counts_nothing(learner, counter, name):
    assert syncs_of(counter, getattr(learner, name), X) == []


def test_the_buffer_hook_is_installed():
    """Fails when CPython's type layout moves (the hook then stays out, and a bare
    memoryview(x) goes uncounted): re-measure _BufferHook's offsets."""
    from judge.worker import syncs

    counter = SyncCounter(str(LEARNER))
    try:
        assert syncs._buffer_hook.installed and syncs._buffer_hook.in_place()
        assert syncs.patches_in_place() == []
    finally:
        counter.close()
    assert not syncs._buffer_hook.installed


def test_a_pull_in_a_loop_counts_every_time(learner, counter):
    records = syncs_of(counter, learner.pull_in_loop, X)
    assert [(r["kind"], r["line"]) for r in records] == [("float()", line_of("loop"))] * 3


def test_asarray_twice_counts_twice(learner, counter):
    # the second call finds a host copy or reads the CPU buffer again; still a pull asked for
    records = syncs_of(counter, learner.pull_twice, X)
    assert [r["line"] for r in records] == [line_of("twice_a"), line_of("twice_b")]


@pytest.mark.parametrize("name", ["on_device_loop", "on_device_ops", "uses_constant"])
def test_on_device_work_makes_no_sync(learner, counter, name):
    # uses_constant: jax reads the captured array while lowering; that is not the learner's
    assert syncs_of(counter, getattr(learner, name), X) == []


def test_the_workers_own_encoding_does_not_count(learner, counter):
    def encode(value):
        with counter.paused():
            return np.asarray(value), float(value[0]), str(value)

    def unpaused(value):
        return np.asarray(value)

    # called through a learner frame, so only paused() keeps the first one out
    assert syncs_of(counter, learner.apply, encode, X) == []
    assert [r["kind"] for r in syncs_of(counter, learner.apply, unpaused, X)] == ["np.asarray"]


def test_nothing_counts_outside_begin_and_end(learner, counter):
    learner.pull_float(X)
    counter.begin()
    assert counter.end() == []


def test_pulls_outside_the_learners_file_do_not_count(counter):
    assert syncs_of(counter, lambda: float(X[0]) + len(np.asarray(X).tolist())) == []


def test_debug_print_in_jit_counts_each_run(learner, counter):
    for _ in range(2):
        (record,) = syncs_of(counter, learner.printing, X)
        assert record["kind"] == "jax.debug.print" and record["category"] == "callback"
        assert record["line"] == line_of("debug_print")


def test_a_callback_still_counts_while_the_worker_blocks_paused(learner, counter):
    counter.begin()
    out = learner.printing(X)
    with counter.paused():  # the worker waits for the result: its thread only
        np.asarray(out)
    assert [r["kind"] for r in counter.end()] == ["jax.debug.print"]


def test_pure_callback_counts_once_not_its_inner_pull(learner, counter):
    (record,) = syncs_of(counter, learner.with_pure_callback, X)
    assert (record["kind"], record["line"]) == ("pure_callback", line_of("pure_callback"))


def test_eager_debug_callback_and_io_callback(learner, counter):
    records = syncs_of(counter, learner.eager_callbacks, X)
    assert [(r["kind"], r["line"]) for r in records] == [
        ("jax.debug.callback", line_of("debug_callback")),
        ("io_callback", line_of("io_callback")),
    ]


def test_close_restores_every_patched_attribute():
    originals = (
        vars(ARRAY)["__float__"],
        vars(ARRAY)["_value"],
        np.asarray,
        np.tanh,
        jax.device_get,
        jax.debug.print,
        jax.pure_callback,
    )
    counter = SyncCounter(str(LEARNER))
    assert np.asarray is not originals[2] and np.tanh is not originals[3]
    counter.close()
    assert (
        vars(ARRAY)["__float__"],
        vars(ARRAY)["_value"],
        np.asarray,
        np.tanh,
        jax.device_get,
        jax.debug.print,
        jax.pure_callback,
    ) == originals
    assert "__array_function__" not in vars(ARRAY)
    assert bytes(memoryview(X))


# ---- other threads: a pull is the learner's whatever thread makes it during the call


def _thread_records(counter, fn, *args):
    return [(r["kind"], r["line"]) for r in syncs_of(counter, fn, *args)]


def test_a_pool_threads_pull_counts_with_the_line_that_submitted_it(learner, counter):
    ((kind, line),) = _thread_records(counter, learner.pool_pull, X)
    assert kind.startswith("bool() on thread 'ThreadPoolExecutor-N_N'") and "handed over" in kind
    assert line == line_of("pool_submit")


def test_pool_map_counts_each_pull(learner, counter):
    records = _thread_records(counter, learner.pool_map_pull, X)
    assert [k.split(" on thread")[0] for k, _ in records] == ["float()", "float()"]
    assert {line for _, line in records} == {line_of("pool_map")}


def test_a_thread_with_a_numpy_target_counts_at_its_start(learner, counter):
    ((kind, line),) = _thread_records(counter, learner.thread_copyto, X)
    assert kind.startswith("np.copyto on thread") and line == line_of("thread_start")


def test_a_low_level_thread_counts(learner, counter):
    ((kind, line),) = _thread_records(counter, learner.low_level_thread_item, X)
    assert kind.startswith(".item() on thread 'Dummy-N'") and line == line_of("low_level_body")


def test_a_thread_running_learner_code_names_its_own_line(learner, counter):
    assert _thread_records(counter, learner.thread_target_of_mine, X) == [
        ("float() on thread 'mine'", line_of("thread_body"))
    ]


def test_a_thread_that_reads_nothing_counts_nothing(learner, counter):
    assert syncs_of(counter, learner.thread_without_reads, X) == []


def test_pulls_on_other_threads_count_only_during_a_call(learner, counter):
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(bool, X[0] > 0).result()
    counter.begin()
    assert counter.end() == []


def _call_learner(fn, *args):
    return fn(*args)


def test_an_entrypoint_claiming_another_file_still_counts(learner):
    counter = SyncCounter(str(LEARNER), entry_codes=(_call_learner.__code__,))
    try:
        counter.begin()
        _call_learner(learner.FORGED["forged_pull"], X)
        assert [(r["kind"], r["line"]) for r in counter.end()] == [("bool()", None)]
    finally:
        counter.close()


def test_close_restores_the_thread_wrappers():
    import _thread
    import concurrent.futures.thread as pool
    import threading

    originals = (
        vars(threading.Thread)["start"],
        vars(pool.ThreadPoolExecutor)["submit"],
        _thread.start_new_thread,
    )
    counter = SyncCounter(str(LEARNER))
    assert vars(threading.Thread)["start"] is not originals[0]
    counter.close()
    assert (
        vars(threading.Thread)["start"],
        vars(pool.ThreadPoolExecutor)["submit"],
        _thread.start_new_thread,
    ) == originals
