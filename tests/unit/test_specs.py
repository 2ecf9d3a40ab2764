"""Argument specs -> hypothesis strategies: edges always there, few distinct shapes.

Here: the tests that start no process; tests/integration/test_specs.py has those that
grade in a worker."""

import numpy as np
from hypothesis import HealthCheck, given, settings

from judge.bank import FieldReader
from judge.specs import Dim, Inputs, parse_spec, shape_pool
from judge.worker.wire import Leaf

# what hypothesis times is this machine's load, not the strategies: a shared machine
# (CI at load 20) must not fail these
LOAD_CHECKS = [HealthCheck.too_slow]


def spec(raw, dims=None):
    return parse_spec(FieldReader(raw, "t.yaml", "t", "args.x"), dims or {}, "x")


def test_pool_starts_with_edges_and_is_bounded():
    dims = [Dim("n", 0, 64), Dim("m", 0, 64)]
    pool = shape_pool(dims, seed=1, size=8)
    assert pool[0] == {"n": 0, "m": 0} and pool[1] == {"n": 1, "m": 1}
    assert pool[2] == {"n": 64, "m": 64} and len(pool) <= 8 + 9  # 8, and one per band of n
    assert any(p["n"] == 0 and p["m"] > 0 for p in pool)  # lengths vary independently
    assert any(p["m"] == 0 and p["n"] > 0 for p in pool)
    assert shape_pool(dims, seed=1, size=8) == pool  # seeded


def test_generated_arrays_follow_the_pool_and_the_value_range():
    dims = {"n": Dim("n", 0, 64)}
    inputs = Inputs(
        {
            "x": spec(
                {"type": "array", "dtype": "float32", "shape": ["n"], "values": [-100, 100]}, dims
            )
        },
        dims,
    )
    pool = inputs.pool(3, 6)
    lengths = {p["n"] for p in pool}
    seen = set()

    @settings(max_examples=60, database=None, deadline=None, suppress_health_check=LOAD_CHECKS)
    @given(inputs.strategy(pool))
    def check(args):
        x = args["x"]
        assert isinstance(x, Leaf) and x.kind == "jax" and x.array.dtype == np.float32
        assert x.array.shape[0] in lengths
        assert np.all(np.abs(x.array) <= 100)
        seen.add(x.array.shape[0])

    check()
    assert len(seen) > 1 and seen <= lengths


def test_edge_cases_are_empty_one_and_max():
    dims = {"n": Dim("n", 0, 64)}
    inputs = Inputs({"x": spec({"type": "array", "shape": ["n"]}, dims)}, dims)
    pool = inputs.pool(0, 6)
    edges = inputs.edge_cases(pool, 0)
    assert [e["x"].array.shape for e in edges] == [(0,), (1,), (64,)]
    # and every other shape of the pool once
    rest = inputs.pool_cases(pool, 0)
    assert [e["x"].array.shape[0] for e in edges + rest] == [p["n"] for p in pool]


def test_value_range_may_name_a_dimension():
    dims = {"b": Dim("b", 0, 3), "t": Dim("t", 0, 5)}
    inputs = Inputs(
        {
            "v": spec({"type": "array", "dtype": "float32", "shape": ["b", "t"]}, dims),
            "lengths": spec(
                {"type": "array", "dtype": "int32", "shape": ["b"], "values": [0, "t"]}, dims
            ),
        },
        dims,
    )

    @settings(max_examples=40, database=None, deadline=None, suppress_health_check=LOAD_CHECKS)
    @given(inputs.strategy(inputs.pool(1, 6)))
    def check(args):
        t = args["v"].array.shape[1]
        assert args["lengths"].array.shape[0] == args["v"].array.shape[0]
        assert np.all((args["lengths"].array >= 0) & (args["lengths"].array <= t))

    check()


def test_one_of_scalars_and_containers():
    s = spec(
        {
            "type": "one_of",
            "options": [
                {"type": "float"},
                {"type": "int"},
                {"type": "scalar", "kind": "numpy", "dtype": "float32"},
                {"type": "scalar", "kind": "jax", "dtype": "float32"},
            ],
        }
    )
    kinds = set()

    @settings(max_examples=80, database=None, deadline=None, suppress_health_check=LOAD_CHECKS)
    @given(s.strategy({}, {}))
    def check(v):
        kinds.add(v.kind if isinstance(v, Leaf) else type(v).__name__)

    check()
    assert kinds == {"float", "int", "npscalar", "jax"}


def test_tree_like_shares_structure():
    params = spec({"type": "tree", "depth": 1, "keys": [0, 3]})
    grads = parse_spec(FieldReader({"type": "tree", "like": "x"}, "t.yaml", "t", "args.g"), {}, "g")
    inputs = Inputs({"x": params, "g": grads}, {})
    pool = inputs.pool(2, 6)
    assert pool[0]["x.tree"] == {}

    @settings(max_examples=30, database=None, deadline=None, suppress_health_check=LOAD_CHECKS)
    @given(inputs.strategy(pool))
    def check(args):
        from judge.values import leaves

        a = [l.array.shape for l in leaves(args["x"])]
        b = [l.array.shape for l in leaves(args["g"])]
        assert a == b

    check()


def test_bfloat16_and_free_rank():
    s = spec(
        {
            "type": "array",
            "dtype": ["bfloat16", "float16"],
            "shape": {"rank": [0, 2], "size": [0, 3]},
        }
    )
    inputs = Inputs({"x": s}, {})
    pool = inputs.pool(5, 6)
    assert pool[0]["x.shape"] == []  # rank 0 first
    dtypes = set()

    @settings(max_examples=40, database=None, deadline=None, suppress_health_check=LOAD_CHECKS)
    @given(inputs.strategy(pool))
    def check(args):
        dtypes.add(args["x"].array.dtype.name)
        assert args["x"].array.ndim <= 2

    check()
    assert dtypes == {"bfloat16", "float16"}


def tree_inputs(key_orders=True):
    params = spec(
        {"type": "tree", "depth": 2, "keys": [0, 3], "rank": 2, "size": 4, "key_orders": key_orders}
    )
    grads = parse_spec(
        FieldReader(
            {"type": "tree", "like": "x", "key_orders": key_orders}, "t.yaml", "t", "args.g"
        ),
        {},
        "g",
    )
    return Inputs({"x": params, "g": grads}, {})


def test_tree_edges_include_an_empty_nested_dict_and_odd_leaves():
    """tree_sgd declares nested dicts of 0 to 3 keys: an empty nested dict is an edge, and
    a submission that drops {"opt": {}} must meet one."""
    inputs = tree_inputs()
    pool = inputs.pool(11011, 8)
    edges = inputs.edge_cases(pool, 11011)
    assert inputs.unreached(edges) == {}
    nested_empty = [e for e in edges if any(v == {} for v in e["x"].values())]
    assert nested_empty, [e["x"] for e in edges]
    found = inputs.specs["x"].reached(nested_empty[0]["x"])
    assert {"an empty nested dict", "a scalar leaf", "a zero-size leaf"} <= found


def test_unreached_edges_are_named():
    inputs = tree_inputs()
    leafy = {
        "x": {"w": Leaf(np.ones((2, 4), np.float32), "jax")},
        "g": {"w": Leaf(-np.ones((2, 4), np.float32), "jax")},
    }
    missing = inputs.unreached([leafy])
    assert "an empty nested dict" in missing["x"] and "an empty tree" in missing["x"]
    assert "keys in another order" in missing["g"]


def test_tree_key_orders_vary_per_argument():
    inputs = tree_inputs()
    pool = inputs.pool(4, 8)
    orders = set()

    @settings(max_examples=80, database=None, deadline=None, suppress_health_check=LOAD_CHECKS)
    @given(inputs.strategy(pool))
    def check(args):
        assert {k: None for k in args["x"]}.keys() == {k: None for k in args["g"]}.keys()
        orders.add(list(args["x"]) == list(args["g"]))

    check()
    assert orders == {True, False}
    # at the edges, the tree shaped like another lists its keys the other way round
    edges = inputs.edge_cases(pool, 4)
    assert any(len(e["x"]) > 1 and list(e["x"]) != list(e["g"]) for e in edges)


def test_edge_cases_reach_value_ends_and_every_option():
    dims = {"n": Dim("n", 0, 32)}
    inputs = Inputs(
        {
            "x": spec({"type": "array", "shape": ["n"], "values": [-2, 2]}, dims),
            "degree": parse_spec(
                FieldReader({"type": "int", "values": [0, 12]}, "t.yaml", "t", "args.degree"),
                dims,
                "degree",
            ),
            "s": parse_spec(
                FieldReader(
                    {
                        "type": "one_of",
                        "options": [
                            {"type": "float"},
                            {"type": "int"},
                            {"type": "scalar", "kind": "numpy"},
                        ],
                    },
                    "t.yaml",
                    "t",
                    "args.s",
                ),
                dims,
                "s",
            ),
        },
        dims,
    )
    edges = inputs.edge_cases(inputs.pool(0, 6), 0)
    top = [e for e in edges if e["x"].array.shape == (32,)]
    assert top and all(
        e["degree"] == 12 and e["x"].array.min() == -2 and e["x"].array.max() == 2 for e in top
    )
    assert {type(e["s"]).__name__ if not isinstance(e["s"], Leaf) else "leaf" for e in edges} == {
        "float",
        "int",
        "leaf",
    }
    assert inputs.unreached(edges) == {}


def test_a_bool_array_is_described_without_a_number_range():
    dims = {"n": Dim("n", 0, 8)}
    mask = spec({"type": "array", "dtype": "bool", "shape": ["n"]}, dims)
    assert mask.describe() == "jax bool[n]"
    mixed = spec(
        {"type": "array", "dtype": ["bool", "float32"], "shape": ["n"], "values": [-1, 1]}, dims
    )
    assert mixed.describe().startswith("jax bool|float32[n] in [-1")
    assert mixed.describe().endswith("(bool: True or False)")
