"""Comparison and tolerance: a right answer in another order or precision passes, a
wrong one does not, and the message says what came back."""

import numpy as np
import pytest

from judge.compare import ResultSpec, Tolerance, compare
from judge.worker.wire import Leaf, Opaque

SCALAR = ResultSpec(type="scalar")
RED = Tolerance(mode="reduction")


def arrays(*xs):
    """The data a result is computed from, as compare takes it."""
    return [np.asarray(x, np.float32).astype(np.float64) for x in xs]


@pytest.mark.parametrize("seed", range(20))
def test_sum_in_any_order_or_float64_passes(seed):
    rng = np.random.default_rng(seed)
    x = (rng.uniform(-100, 100, 64) * 10 ** rng.uniform(-3, 3, 64)).astype(np.float32)
    inputs = arrays(x)
    expected = Leaf(np.asarray(np.sum(x), np.float32), "jax")
    reordered = np.float32(0)
    for v in rng.permutation(x):
        reordered = np.float32(reordered + v)
    assert compare(float(np.sum(x.astype(np.float64))), expected, SCALAR, RED, inputs) is None
    assert compare(Leaf(np.asarray(reordered), "jax"), expected, SCALAR, RED, inputs) is None
    # a float16 sum must not pass
    with np.errstate(over="ignore"):
        half = float(np.sum(x.astype(np.float16), dtype=np.float16))
    assert compare(half, expected, SCALAR, RED, inputs) is not None


def test_dropped_element_fails():
    x = np.arange(1, 9, dtype=np.float32)
    inputs = arrays(x)
    m = compare(float(x[1:].sum()), Leaf(np.float32(x.sum()), "jax"), SCALAR, RED, inputs)
    assert m and "expected 36.0, got 35.0" in m.message


@pytest.mark.parametrize(
    "value, words",
    [
        ("6", "returned a str"),
        ((1.0, 5.0), "returned a tuple of length 2"),
        (None, "returned None"),
        (Leaf(np.ones(1, np.float32), "jax"), "shape (1,)"),
        (Opaque("builtins.object", "<object>"), "returned a builtins.object"),
    ],
)
def test_non_scalar_results_say_what_came_back(value, words):
    m = compare(value, 6.0, SCALAR, RED, arrays([1, 2], [3]))
    assert m and m.kind in ("type", "structure") and words in m.message


@pytest.mark.parametrize(
    "value",
    [
        6,
        6.0,
        np.float32(6),
        Leaf(np.float64(6.0), "npscalar"),
        Leaf(np.array(6.0, np.float32), "jax"),
    ],
)
def test_every_scalar_form_is_accepted(value):
    value = Leaf(np.asarray(value), "npscalar") if isinstance(value, np.generic) else value
    assert compare(value, Leaf(np.float32(6), "jax"), SCALAR, RED, arrays([1, 2], [3])) is None


def test_dtype_policy_same():
    spec = ResultSpec(type="array", dtype="same")
    e = Leaf(np.ones(3, np.float16), "jax")
    m = compare(Leaf(np.ones(3, np.float32), "jax"), e, spec, Tolerance(), arrays([1, 1, 1]))
    assert m and m.kind == "dtype" and "expected float16, got float32" in m.message
    assert (
        compare(Leaf(np.ones(3, np.float16), "jax"), e, spec, Tolerance(), arrays([1, 1, 1]))
        is None
    )


def test_nan_matches_nan_and_elements_are_located():
    spec = ResultSpec(type="array")
    e = Leaf(np.array([1.0, np.nan, 3.0], np.float32), "jax")
    assert compare(Leaf(e.array.copy(), "jax"), e, spec, Tolerance(), arrays([1])) is None
    m = compare(
        Leaf(np.array([1.0, np.nan, 4.0], np.float32), "jax"), e, spec, Tolerance(), arrays([1])
    )
    assert m and "1 of 3 elements differ" in m.message and "(2,)" in m.message


def test_exact_mode_and_trees():
    spec = ResultSpec(type="any")
    e = {"a": Leaf(np.array([1, 2], np.int32), "jax"), "b": (1.0, 2.0)}
    ok = {"a": Leaf(np.array([1, 2], np.int32), "jax"), "b": [1.0, 2.0]}
    assert compare(ok, e, spec, Tolerance(mode="exact"), []) is None
    bad = {"a": Leaf(np.array([1, 3], np.int32), "jax"), "b": (1.0, 2.0)}
    assert "['a']" in compare(bad, e, spec, Tolerance(mode="exact"), []).message
    assert "wrong keys" in compare({"a": ok["a"]}, e, spec, Tolerance(), []).message
    strict = ResultSpec(type="any", containers="strict")
    assert compare(ok, e, strict, Tolerance(), []).kind == "structure"


def spec_of(raw, dims=None):
    from judge.bank import FieldReader
    from judge.specs import parse_spec

    return parse_spec(FieldReader(raw, "t.yaml", "t", "args.a"), dims or {}, "a")


def test_a_static_int_does_not_widen_the_tolerance():
    """truncated_exp: x in [-2, 2] and degree up to 12.  The degree is a count, not data:
    counted as data it scaled the absolute tolerance six times up, and a series missing
    its degree-12 term (574 units of rounding near exp(-2)) passed."""
    from judge.specs import Dim, data_leaves

    dims = {"n": Dim("n", 0, 32)}
    specs = {
        "x": spec_of({"type": "array", "shape": ["n"], "values": [-2, 2]}, dims),
        "degree": spec_of({"type": "int", "values": [0, 12]}),
    }
    x = np.array([-2.0, 1.5], np.float32)
    args = {"x": Leaf(x, "jax"), "degree": 12}
    data = data_leaves(specs, args)
    assert [a.tolist() for a in data] == [x.tolist()]
    tol = Tolerance(mode="elementwise", ulps=8)
    expected = Leaf(np.array([0.1353364, 4.4816890], np.float32), "jax")
    short = Leaf(np.array([0.13532785, 4.4816890], np.float32), "jax")  # no x**12/12!
    spec = ResultSpec(type="array")
    assert compare(short, expected, spec, tol, data) is not None
    assert compare(expected, expected, spec, tol, data) is None


def test_data_follows_the_spec_through_containers_and_one_of():
    from judge.specs import Dim, data_leaves

    specs = {
        "lrs": spec_of({"type": "list", "length": 2, "items": {"type": "float"}}),
        "s": spec_of(
            {"type": "one_of", "options": [{"type": "float"}, {"type": "int", "data": True}]}
        ),
        "steps": spec_of({"type": "int"}),
        "lengths": spec_of(
            {"type": "array", "dtype": "int32", "shape": ["T"], "values": [0, "T"]},
            {"T": Dim("T", 0, 4)},
        ),
        "w": spec_of({"type": "array", "dtype": "int32", "shape": [2], "values": [-5, 5]}),
    }
    args = {
        "lrs": [0.5, 0.25],
        "s": 3,
        "steps": 9,
        "lengths": Leaf(np.array([4, 2], np.int32), "jax"),
        "w": Leaf(np.array([-5, 5], np.int32), "jax"),
    }
    assert [a.tolist() for a in data_leaves(specs, args)] == [0.5, 0.25, 3.0, [-5.0, 5.0]]
    # a value not shaped like its spec (an example written another way) counts whole
    assert [a.tolist() for a in data_leaves(specs, {"lrs": (1.0, 2.0)})] == [1.0, 2.0]


@pytest.mark.parametrize("narrow", ["bfloat16", "float16"])
def test_a_narrower_float_than_asked_reads_as_a_wrong_dtype(narrow):
    from judge.worker.wire import dtype_from_name

    want = np.array([0.7558594, 1.1, -3.3], np.float32)
    got = Leaf(want.astype(dtype_from_name(narrow)), "jax")
    m = compare(got, Leaf(want, "jax"), ResultSpec(dtype="float"), Tolerance(), arrays(want))
    assert m.kind == "dtype" and m.message.startswith(
        f"wrong dtype: expected float32, got {narrow}"
    )
    assert "elements differ by more than the tolerance" in m.message
    wider = Leaf(want.astype(np.float64), "jax")  # more digits than asked is no mistake
    assert compare(wider, Leaf(want, "jax"), ResultSpec(dtype="float"), Tolerance(), []) is None
    off = Leaf(want + np.float32(1), "jax")  # a plain wrong value stays one
    assert (
        compare(off, Leaf(want, "jax"), ResultSpec(dtype="float"), Tolerance(), []).kind == "value"
    )
