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
    inputs = Inputs(
        {
            "rate": spec(
                {"type": "scalar", "kind": "jax", "dtype": "float32", "values": [0.1, 0.9]},
                name="rate",
            )
        },
        {},
    )
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


def _structure(tree):
    """The containers and leaf shapes of a drawn tree, comparable across draws."""
    if isinstance(tree, dict):
        return ("dict", tuple((k, _structure(v)) for k, v in tree.items()))
    if isinstance(tree, (list, tuple)):
        return (type(tree).__name__, tuple(_structure(v) for v in tree))
    return tree.array.shape


def _depth_and_width(s):
    if not isinstance(s, tuple) or not s or s[0] not in ("dict", "list", "tuple"):
        return 0, 0
    kids = [v for _, v in s[1]] if s[0] == "dict" else list(s[1])
    below = [_depth_and_width(k) for k in kids]
    return 1 + max([d for d, _ in below], default=0), max([len(kids)] + [w for _, w in below])


PYTREE = {
    "type": "pytree",
    "containers": ["dict", "list", "tuple"],
    "depth": 2,
    "width": [0, 3],
    "rank": [0, 3],
    "size": [0, 3],
}


def test_a_pytree_pool_starts_with_every_empty_container_and_stays_in_bounds():
    inputs = Inputs({"tree": spec(PYTREE, name="tree")}, {})
    pool = inputs.pool(5, 12)
    trees = [inputs.sample(a, np.random.default_rng(0))["tree"] for a in pool]
    assert trees[:3] == [{}, [], ()]
    assert [_structure(t) for t in trees[3:5]] == [
        ("dict", (("w", (1,)),)),
        ("tuple", ((0,), ("dict", (("w", ("list", ())), ("b", ()))))),
    ]  # empty, zero-size, rank 0
    assert _depth_and_width(_structure(trees[5])) == (3, 3)  # the largest
    kinds = set()
    for t in trees:
        depth, width = _depth_and_width(_structure(t))
        assert depth <= 3 and width <= 3
        kinds.add(type(t))
        leaves = [l for l in _leaves(t)]
        assert all(
            l.array.dtype == np.float32 and l.array.ndim <= 3 and all(d <= 3 for d in l.array.shape)
            for l in leaves
        )
    assert kinds == {dict, list, tuple}
    assert inputs.pool(5, 12) == pool  # seeded


def _leaves(tree):
    if isinstance(tree, dict):
        tree = list(tree.values())
    if isinstance(tree, (list, tuple)):
        return [l for t in tree for l in _leaves(t)]
    return [tree]


def test_drawn_pytrees_keep_their_structure_and_every_leafs_spread():
    raw = dict(PYTREE, containers=["dict"], depth=0, width=[0, 4], min_spread=2.0)
    inputs = Inputs({"params": spec(raw, name="params")}, {})
    pool = inputs.pool(3, 8)
    structures = set()

    @settings(max_examples=60, database=None, derandomize=True)
    @given(inputs.strategy(pool))
    def check(args):
        params = args["params"]
        assert type(params) is dict
        structures.add(_structure(params))
        for leaf in params.values():
            flat = leaf.array.reshape(-1)
            assert flat.size < 2 or flat.max() - flat.min() >= 2.0

    check()
    assert len(structures) > 3


def test_bad_pytree_fields_are_named():
    import pytest

    from judge.bank import BankError

    with pytest.raises(BankError, match="containers"):
        spec(dict(PYTREE, containers=["set"]))
    with pytest.raises(BankError, match="width"):
        spec(dict(PYTREE, width=[3, 1]))


def test_a_value_range_may_be_a_dimension_negated_or_offset():
    from judge.specs import Dim

    dims = {"n": Dim("n", 0, 6), "k": Dim("k", 0, 4)}
    inputs = Inputs(
        {
            "x": spec({"type": "array", "shape": ["n"]}, dims),
            "idx": spec(
                {"type": "array", "dtype": "int32", "shape": ["k"], "values": ["-n - 3", "n+3"]},
                dims,
                name="idx",
            ),
        },
        dims,
    )
    seen = set()

    @settings(max_examples=150, database=None, derandomize=True)
    @given(inputs.strategy(inputs.pool(2, 8)))
    def check(args):
        n = args["x"].array.shape[0]
        idx = args["idx"].array
        assert ((idx >= -n - 3) & (idx <= n + 3)).all()
        seen.update((n, int(i)) for i in idx)

    check()
    assert (0, -3) in seen and (0, 3) in seen  # n = 0 still has indices to ignore
    assert any(i == -n - 3 for n, i in seen if n) and any(i == n + 3 for n, i in seen if n)


def test_a_bad_dimension_bound_is_named():
    import pytest

    from judge.bank import BankError
    from judge.specs import Dim

    with pytest.raises(BankError, match="n \\+ 3, -n - 3"):
        spec(
            {"type": "array", "dtype": "int32", "shape": [2], "values": ["2n", 3]},
            {"n": Dim("n", 0, 3)},
        )
