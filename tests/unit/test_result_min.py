"""``result.min``: no element of a result may be below it, whatever the tolerance (a
squared distance of -7.6e-6 is within any sensible tolerance of 0, and still wrong)."""

import numpy as np
import pytest

from judge.bank import BankError, FieldReader
from judge.compare import ResultSpec, Tolerance, compare
from judge.worker.wire import Leaf

LOOSE = Tolerance(mode="elementwise", atol=1e-3)


def spec(**fields):
    return ResultSpec.parse(FieldReader(dict({"type": "array"}, **fields), "t.yaml", "t", "result"))


def arr(values):
    return Leaf(np.asarray(values, np.float32), "jax")


def test_an_element_below_the_minimum_fails_even_within_tolerance():
    expected = arr([[0.0, 58.8]])
    got = arr([[-7.6e-6, 58.8]])
    assert compare(got, expected, spec(), LOOSE, {}) is None  # no minimum: close enough
    problem = compare(got, expected, spec(min=0), LOOSE, {})
    assert problem.kind == "range"
    assert problem.message == (
        "1 of 2 elements are below the smallest allowed value, 0; first at index (0, 0): -0.0000076"
    )
    assert compare(arr([[0.0, 58.8]]), expected, spec(min=0), LOOSE, {}) is None
    assert compare(arr([[-0.0, 58.8]]), expected, spec(min=0), LOOSE, {}) is None  # -0.0 is 0


def test_scalars_and_nan_and_a_bad_field():
    assert (
        "below the smallest allowed value, 1"
        in compare(0.5, 0.5, ResultSpec(type="scalar", min=1.0), LOOSE, {}).message
    )
    nan = compare(arr([np.nan]), arr([0.0]), spec(min=0), LOOSE, {})
    assert nan.kind == "value"  # a NaN is a wrong value, not a small one
    with pytest.raises(BankError, match="min"):
        spec(min="zero")
