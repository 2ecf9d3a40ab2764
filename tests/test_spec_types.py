"""Spec details the opening steps' tasks rely on: value bounds a float32 cannot hold,
and nested pytrees of dicts, lists and tuples."""

import numpy as np
from hypothesis import given, settings

from judge.bank import FieldReader
from judge.specs import Inputs, parse_spec


def spec(raw, dims=None, name="x"):
    return parse_spec(FieldReader(raw, "t.yaml", "t", f"args.{name}"), dims or {}, name)


def test_bounds_a_float32_cannot_hold_are_narrowed_inside_them():
    # 0.9 is no float32: the nearest float32 inside [0.1, 0.9] is the bound (hypothesis
    # refuses 0.9 itself); float32(0.9) rounds down, float32(0.1) rounds up
    inputs = Inputs({"rate": spec({"type": "scalar", "kind": "jax", "dtype": "float32",
                                   "values": [0.1, 0.9]}, name="rate")}, {})
    seen = []

    @settings(max_examples=80, database=None, derandomize=True)
    @given(inputs.strategy(inputs.pool(0, 4)))
    def check(args):
        value = float(args["rate"].array)
        assert 0.1 <= value <= 0.9
        seen.append(value)
    check()
    assert max(seen) == float(np.float32(0.9)) < 0.9
    assert min(seen) == float(np.float32(0.1)) > 0.1
