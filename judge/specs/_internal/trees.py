"""Nested containers of arrays, in two vocabularies that draw differently:
``pytree`` (dicts, lists and tuples mixed; widths, ranks and sizes as ranges) and
``tree`` (dicts only, whose structure another argument may share with ``like`` and whose
keys may come in any order with ``key_orders``).  Both are kept: a ``tree``'s pool and
edges are not a ``pytree``'s, and merging them would change every input drawn for the
tasks that use it (see docs/tasks-yaml.md)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...worker.wire import Leaf, dtype_from_name
from .core import (
    Spec,
    _array_values,
    _at_ends,
    _dtype_list,
    _range,
    _spread_enough,
    _value_edges,
    _values_reached,
    sample_values,
    spec_type,
    st,
)
from .shapes import ShapeVar

CONTAINERS = ("dict", "list", "tuple")
_PYTREE_KEYS = ("w", "b", "layers", "head", "scale", "emb", "gamma", "beta")


@dataclass(frozen=True)
class PytreeNode:
    """One container of a pytree's structure: ``kind`` one of CONTAINERS; ``children``
    a tuple of structures, for a dict of (key, structure) pairs in insertion order."""

    kind: str
    children: tuple


@dataclass(frozen=True)
class LeafShape:
    shape: tuple


@dataclass(frozen=True)
class PytreeShape(ShapeVar):
    """The structure of a nested pytree of dicts, lists and tuples with the shape of
    every leaf; the top is always a container."""

    name: str
    containers: tuple
    depth: int
    width: tuple
    rank: tuple
    size: tuple

    def candidates(self):
        """Smallest first: the empty container of each kind; one length-1 leaf; every
        kind of container nested with empty ones, a zero-size leaf and a rank-0 one; the
        largest structure (every container full, every leaf at the largest shape)."""
        kinds = self.containers
        empty = [PytreeNode(k, ()) for k in kinds]
        one = (min(max(1, self.size[0]), self.size[1]),) * max(
            self.rank[0], 1 if self.rank[1] else 0
        )
        out = empty + [self._node(kinds[0], [LeafShape(one)])]
        smallest = LeafShape((self.size[0],) * max(self.rank[0], 1 if self.rank[1] else 0))
        lowest = LeafShape((self.size[1],) * self.rank[0])
        inner = (
            self._node(kinds[0], [PytreeNode(kinds[1 % len(kinds)], ()), lowest])
            if self.depth
            else lowest
        )
        if self.width[1] >= 2:
            out.append(self._node(kinds[-1], [smallest, inner]))
        out.append(self._full(self.depth, 0))
        return list(dict.fromkeys(out))

    def _node(self, kind: str, children: list) -> PytreeNode:
        if kind == "dict":
            return PytreeNode(kind, tuple(zip(_PYTREE_KEYS, children)))
        return PytreeNode(kind, tuple(children))

    def _full(self, depth: int, at: int) -> PytreeNode:
        kind = self.containers[at % len(self.containers)]
        children = [
            self._full(depth - 1, at + 1)
            if depth and i == 0
            else LeafShape((self.size[1],) * self.rank[1])
            for i in range(self.width[1])
        ]
        return self._node(kind, children)

    def draw(self, rng, depth=None):
        depth = self.depth if depth is None else depth
        kind = self.containers[int(rng.integers(0, len(self.containers)))]
        children = []
        for _ in range(int(rng.integers(self.width[0], self.width[1] + 1))):
            if depth and rng.random() < 0.35:
                children.append(self.draw(rng, depth - 1))
            else:
                rank = int(rng.integers(self.rank[0], self.rank[1] + 1))
                children.append(
                    LeafShape(
                        tuple(
                            int(rng.integers(self.size[0], self.size[1] + 1)) for _ in range(rank)
                        )
                    )
                )
        if kind == "dict":  # keys in no particular order: flattening sorts them
            keys = [_PYTREE_KEYS[i] for i in rng.permutation(len(_PYTREE_KEYS))[: len(children)]]
            return PytreeNode(kind, tuple(zip(keys, children)))
        return PytreeNode(kind, tuple(children))


@spec_type("pytree")
class PytreeSpec(Spec):
    """A nested pytree of dicts, lists and tuples (``containers``) of arrays of any
    shape: up to ``depth`` levels of containers below the top, ``width`` children per
    container, leaves of ``rank`` and ``size`` per dimension; empty containers and
    zero-size leaves are among the edges.  ``min_spread``: max - min of every leaf with
    two or more elements is at least this."""

    FIELDS = Spec.FIELDS + (
        "kind",
        "dtype",
        "values",
        "containers",
        "depth",
        "width",
        "rank",
        "size",
        "min_spread",
    )

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.kind = r.get("kind", str, "jax")
        if self.kind not in ("jax", "numpy"):
            r.fail("must be 'jax' or 'numpy'", "kind")
        self.dtype = dtype_from_name(_dtype_list(r, "float32")[0])
        self.values = [float(v) for v in _range(r, "values", [-10.0, 10.0], {})]
        self.min_spread = float(r.number("min_spread", 0.0, low=0))
        containers = r.get("containers", list, list(CONTAINERS))
        if not containers or any(c not in CONTAINERS for c in containers):
            r.fail(f"a list of {', '.join(CONTAINERS)}", "containers")
        ranges = {}
        for key, default in (("width", [0, 3]), ("rank", [0, 2]), ("size", [0, 4])):
            lo, hi = _range(r, key, default, {})
            if not (isinstance(lo, int) and isinstance(hi, int) and 0 <= lo <= hi):
                r.fail("must be [low, high], two integers with 0 <= low <= high", key)
            ranges[key] = (lo, hi)
        depth = r.get("depth", int, 2)
        if depth < 0:
            r.fail("must be at least 0", "depth")
        self.shape_var = PytreeShape(
            f"{name}.pytree",
            tuple(dict.fromkeys(containers)),
            depth,
            ranges["width"],
            ranges["rank"],
            ranges["size"],
        )

    def variables(self):
        return [self.shape_var]

    def _build(self, node, make_leaf):
        if isinstance(node, LeafShape):
            return make_leaf(node.shape)
        if node.kind == "dict":
            return {k: self._build(child, make_leaf) for k, child in node.children}
        built = [self._build(child, make_leaf) for child in node.children]
        return built if node.kind == "list" else tuple(built)

    def _leaves(self, node) -> list[tuple]:
        shapes: list[tuple] = []
        self._build(node, shapes.append)
        return shapes

    def strategy(self, assign, drawn):
        node = assign[self.shape_var.name]
        lo, hi = self.values
        leaf_strategies = []
        for shape in self._leaves(node):
            arrays = _array_values(self.dtype, shape, lo, hi)
            if self.min_spread:
                arrays = arrays.filter(functools.partial(_spread_enough, spread=self.min_spread))
            leaf_strategies.append(arrays)
        return st.tuples(*leaf_strategies).map(functools.partial(self._assemble, node))

    def _assemble(self, node, arrays):
        it = iter(arrays)
        return self._build(node, lambda shape: Leaf(next(it), self.kind))

    def sample(self, assign, drawn, rng, edge=None):
        lo, hi = self.values

        def leaf(shape):
            values = _at_ends(sample_values(self.dtype, shape, lo, hi, rng), lo, hi, edge)
            if self.min_spread and not _spread_enough(values, self.min_spread):
                values.reshape(-1)[[0, -1]] = np.asarray([lo, hi], self.dtype)
            return Leaf(values, self.kind)

        return self._build(assign[self.shape_var.name], leaf)

    def matches(self, value) -> bool:
        return isinstance(value, (dict, list, tuple))

    def edges(self):
        v = self.shape_var
        out = [f"an empty {k}" for k in v.containers] if v.width[0] == 0 else []
        if v.rank[0] == 0:
            out.append("a scalar leaf")
        if v.rank[1] >= 1:
            out.append(f"a leaf of rank {v.rank[1]}")
            if v.size[0] == 0:
                out.append("a zero-size leaf")
        if v.width[1]:
            out.append(f"a container of {v.width[1]} children")
        return out + _value_edges(self.values)

    def reached(self, value):
        found: set[str] = set()
        numbers: list = []

        def walk(node):
            if isinstance(node, (dict, list, tuple)):
                kind = "dict" if isinstance(node, dict) else type(node).__name__
                if not node:
                    found.add(f"an empty {kind}")
                found.add(f"a container of {len(node)} children")
                for child in node.values() if isinstance(node, dict) else node:
                    walk(child)
            elif isinstance(node, Leaf):
                a = node.array
                found.add("a scalar leaf" if a.ndim == 0 else f"a leaf of rank {a.ndim}")
                if a.ndim and a.size == 0:
                    found.add("a zero-size leaf")
                numbers.append(a.reshape(-1))

        walk(value)
        flat = np.concatenate(numbers) if numbers else np.zeros(0, self.dtype)
        return found | _values_reached(self.values, flat)

    def describe(self):
        return (
            f"nested {'/'.join(self.shape_var.containers)} of {self.kind} {self.dtype.name} arrays"
        )


_TREE_KEYS = ("w", "b", "scale", "emb", "gamma", "beta")


def _tree_key(i: int) -> str:
    return _TREE_KEYS[i % len(_TREE_KEYS)] + ("" if i < len(_TREE_KEYS) else str(i))


@dataclass(frozen=True)
class TreeShape(ShapeVar):
    """A nested dict structure with the shape of every leaf: a dict holds ``keys_lo`` to
    ``keys_hi`` keys, nests ``depth`` levels deep at most, and its leaves have rank 0 to
    ``rank_hi`` and sizes 0 to ``size_hi``."""

    name: str
    depth: int
    keys_lo: int
    keys_hi: int
    rank_hi: int
    size_hi: int

    def candidates(self):
        """Smallest first: the emptiest tree, one leaf of size one, the odd edges (an empty
        nested dict, a scalar leaf, a zero-size leaf), the largest tree."""
        one_leaf = [1] * min(1, self.rank_hi)
        out = [self._padded({}), self._padded({_tree_key(0): one_leaf})]
        odd: list[tuple[str, Any]] = [(_tree_key(0), [])]  # a scalar leaf
        if self.rank_hi >= 1:
            odd.append((_tree_key(1), [0] * self.rank_hi))  # a zero-size leaf
        if self.depth >= 1 and self.keys_lo == 0:
            odd.append(("opt", {}))  # an empty nested dict
        width = max(1, self.keys_hi)
        for i in range(0, len(odd), width):
            out.append(self._padded(dict(odd[i : i + width])))
        out.append(self._full(self.depth))
        return [c for i, c in enumerate(out) if c not in out[:i]] if self.keys_hi else [{}]

    def _padded(self, tree: dict) -> dict:
        """``tree`` with leaves of size one added until it holds ``keys_lo`` keys."""
        i = 0
        while len(tree) < self.keys_lo:
            key = _tree_key(i)
            if key not in tree:
                tree[key] = [1] * min(1, self.rank_hi)
            i += 1
        return tree

    def _full(self, depth):
        out = {}
        for i in range(self.keys_hi):
            key = "abcdefgh"[i]
            out[key] = (
                self._full(depth - 1) if depth > 0 and i == 0 else [self.size_hi] * self.rank_hi
            )
        return out

    def draw(self, rng, depth=None):
        depth = self.depth if depth is None else depth
        out = {}
        for i in range(int(rng.integers(self.keys_lo, self.keys_hi + 1))):
            key = _tree_key(i)
            if depth > 0 and rng.random() < 0.3:
                out[key] = self.draw(rng, depth - 1)
            else:
                rank = int(rng.integers(0, self.rank_hi + 1))
                out[key] = [int(rng.integers(0, self.size_hi + 1)) for _ in range(rank)]
        return out

    def edges(self) -> list[str]:
        out = []
        if self.keys_lo == 0:
            out.append("an empty tree")
            if self.depth >= 1 and self.keys_hi:
                out.append("an empty nested dict")
        if self.keys_hi:
            if self.depth >= 1:
                out.append(f"dicts nested {self.depth} deep")
            out += [f"a dict of {self.keys_hi} keys", "a scalar leaf"]
            if self.rank_hi >= 1:
                out += [f"a leaf of rank {self.rank_hi}", "a zero-size leaf"]
                if self.size_hi:
                    out.append(f"a leaf dimension of {self.size_hi}")
        return out

    @staticmethod
    def reached(tree, top: bool = True, level: int = 0) -> set[str]:
        found = set()
        if not isinstance(tree, dict):
            if isinstance(tree, Leaf):
                a = tree.array
                found.add("a scalar leaf" if a.ndim == 0 else f"a leaf of rank {a.ndim}")
                if a.ndim and a.size == 0:
                    found.add("a zero-size leaf")
                found |= {f"a leaf dimension of {n}" for n in a.shape}
            return found
        if not tree:
            found.add("an empty tree" if top else "an empty nested dict")
        if level:
            found.add(f"dicts nested {level} deep")
        found.add(f"a dict of {len(tree)} keys")
        for v in tree.values():
            found |= TreeShape.reached(v, False, level + 1 if isinstance(v, dict) else level)
        return found


def _in_generated_order(keys) -> bool:
    """Are a generated dict's keys in the order the generator writes them?"""
    rank = {k: i for i, k in enumerate(list(_TREE_KEYS) + ["opt"] + list("abcdefgh"))}
    order = [rank.get(str(k).rstrip("0123456789"), 99) for k in keys]
    return order == sorted(order)


def _tree_nodes(structure, nodes: list, shapes: list) -> None:
    """Every dict's keys (outermost first) and every leaf's shape, in one walk."""
    if isinstance(structure, dict):
        nodes.append(list(structure))
        for v in structure.values():
            _tree_nodes(v, nodes, shapes)
    else:
        shapes.append(tuple(structure))


def _assemble_tree(parts, structure, kind: str) -> dict:
    """Leaves and key orders (drawn in ``_tree_nodes``'s walk) into a tree."""
    arrays, orders = iter(parts[0]), iter(parts[1])

    def build(node):
        if isinstance(node, dict):
            order = next(orders)
            built = {k: build(v) for k, v in node.items()}
            return {k: built[k] for k in order}
        return Leaf(next(arrays), kind)

    return build(structure)


@spec_type("tree")
class TreeSpec(Spec):
    """A nested dict of arrays (e.g. model parameters); ``like: other_arg`` reuses that
    argument's structure and leaf shapes with fresh values; ``key_orders: true`` lists
    every dict's keys in any order (each argument its own)."""

    FIELDS = Spec.FIELDS + (
        "kind",
        "dtype",
        "values",
        "depth",
        "keys",
        "rank",
        "size",
        "like",
        "key_orders",
    )

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.kind = r.get("kind", str, "jax")
        self.dtypes = _dtype_list(r, "float32")
        self.values = _range(r, "values", [-10.0, 10.0], dims)
        self.like = r.get("like", str, None)
        self.key_orders = r.get("key_orders", bool, False)
        keys = _range(r, "keys", [0, 3], {})
        self.shape_var = TreeShape(
            f"{self.like or name}.tree",
            int(r.get("depth", int, 1)),
            int(keys[0]),
            int(keys[1]),
            int(r.get("rank", int, 2)),
            int(r.get("size", int, 4)),
        )

    def variables(self):
        return [] if self.like else [self.shape_var]

    def matches(self, value) -> bool:
        return isinstance(value, dict)

    def _build(self, structure, make_leaf):
        if isinstance(structure, dict):
            return {k: self._build(v, make_leaf) for k, v in structure.items()}
        return make_leaf(tuple(structure))

    def strategy(self, assign, drawn):
        structure = assign[self.shape_var.name]
        nodes: list = []
        shapes: list = []
        _tree_nodes(structure, nodes, shapes)
        dtype = dtype_from_name(self.dtypes[0])
        lo, hi = self.values
        leaf_strats = [_array_values(dtype, s, lo, hi) for s in shapes]
        orders = [
            st.permutations(keys) if self.key_orders and len(keys) > 1 else st.just(keys)
            for keys in nodes
        ]
        return st.tuples(st.tuples(*leaf_strats), st.tuples(*orders)).map(
            functools.partial(_assemble_tree, structure=structure, kind=self.kind)
        )

    def sample(self, assign, drawn, rng, edge=None):
        dtype = dtype_from_name(self.dtypes[0])
        lo, hi = self.values
        tree = self._build(
            assign[self.shape_var.name],
            lambda s: Leaf(_at_ends(sample_values(dtype, s, lo, hi, rng), lo, hi, edge), self.kind),
        )
        # at the edges, a tree shaped like another lists its keys the other way round
        if self.key_orders and edge is not None and (edge.end == "high") != bool(self.like):
            tree = _reversed_keys(tree)
        return tree

    def edges(self):
        out = [] if self.like else self.shape_var.edges()
        if self.key_orders:
            out.append("keys in another order")
        return out + _value_edges(self.values)

    def reached(self, value):
        if not isinstance(value, dict):
            return set()
        found = set() if self.like else TreeShape.reached(value)
        nodes: list = []
        numbers: list = []
        _dict_nodes(value, nodes, numbers)
        if any(not _in_generated_order(keys) for keys in nodes):
            found.add("keys in another order")
        flat = np.concatenate([np.ravel(n) for n in numbers]) if numbers else np.zeros(0)
        return found | _values_reached(self.values, flat)

    def describe(self):
        return f"nested dict of {self.kind} {'|'.join(self.dtypes)} arrays" + (
            f" shaped like {self.like}" if self.like else ""
        )


def _reversed_keys(tree):
    if isinstance(tree, dict):
        return {k: _reversed_keys(v) for k, v in reversed(tree.items())}
    return tree


def _dict_nodes(tree, nodes: list, numbers: list) -> None:
    if isinstance(tree, dict):
        nodes.append(list(tree))
        for v in tree.values():
            _dict_nodes(v, nodes, numbers)
    elif isinstance(tree, Leaf):
        numbers.append(tree.array)
