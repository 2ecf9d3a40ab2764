"""Array-like specs: ``array`` (a dtype, a shape of ints and dims, a value range, an
optional placement on a mesh), ``scalar`` (a 0-d typed array) and ``key`` (a typed JAX
random key)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ...values import is_floating
from ...worker.wire import Leaf, dtype_from_name
from .core import (
    JAX_DTYPES,
    MAX_DIM,
    MAX_ELEMENTS,
    MAX_RANK,
    Spec,
    _arrays_of,
    _at_ends,
    _bound_dim,
    _dtype_list,
    _range,
    _resolve,
    _spread_enough,
    _value_edges,
    _values_reached,
    sample_values,
    spec_type,
    st,
)
from .mesh import _bind_partition, _partition, _placed, _placement_words
from .shapes import ShapeVar, draw_size


@spec_type("array")
class ArraySpec(Spec):
    """A JAX or NumPy array: dtype(s), shape of ints and dimension names, value range.

    ``shape`` is a list (``[n, 3]``) or ``{rank: [0, 2], size: [0, 8]}`` for any rank."""

    FIELDS = Spec.FIELDS + ("kind", "dtype", "shape", "values", "min_spread", "sharding")

    def __init__(self, r, dims, name):
        self.min_spread = float(r.number("min_spread", 0.0, low=0))
        self.partition = _partition(r)
        self.layout: dict | None = None  # set by bind_mesh for a sharded argument
        self.kind = r.get("kind", str, "jax")
        if self.kind not in ("jax", "numpy"):
            r.fail("must be 'jax' or 'numpy'", "kind")
        self.dtypes = _dtype_list(r, "float32")
        if self.kind == "jax":
            for n in self.dtypes:
                if n not in JAX_DTYPES:
                    r.fail(f"'{n}' cannot be a JAX array with x64 off; use kind: numpy", "dtype")
        self.values = _range(r, "values", [-10.0, 10.0], dims)
        super().__init__(r, dims, name)
        raw = r.get("shape", (list, dict))
        self.free: FreeShape | None = None
        if isinstance(raw, dict):
            sr = r.child("shape")
            sr.only(("rank", "size"))
            rank = _range(sr, "rank", [0, 2], {})
            size = _range(sr, "size", [0, 8], {})
            if rank[1] > MAX_RANK:
                sr.fail(f"at most rank {MAX_RANK}, got {rank[1]}", "rank")
            if size[1] > MAX_DIM or size[1] ** rank[1] > MAX_ELEMENTS:
                sr.fail(
                    f"size {size[1]} at rank {rank[1]} is up to {size[1] ** rank[1]:,} "
                    f"elements; an array has at most {MAX_ELEMENTS:,}",
                    "size",
                )
            self.free = FreeShape(
                f"{name}.shape", int(rank[0]), int(rank[1]), int(size[0]), int(size[1])
            )
            self.shape: list = []
        else:
            for d in raw:
                if not (
                    (isinstance(d, int) and not isinstance(d, bool) and d >= 0)
                    or (isinstance(d, str) and d in dims)
                ):
                    r.fail(
                        f"each entry is a size or a name from dims ({', '.join(dims) or 'none declared'}), got {d!r}",
                        "shape",
                    )
            largest = math.prod(dims[d].hi if isinstance(d, str) else d for d in raw)
            if len(raw) > MAX_RANK or largest > MAX_ELEMENTS:
                r.fail(
                    f"is up to {largest:,} elements at its largest; an array has at most "
                    f"{MAX_ELEMENTS:,} (and rank {MAX_RANK})",
                    "shape",
                )
            self.shape = list(raw)
        self.axis_dims = {i: dims[d] for i, d in enumerate(self.shape) if isinstance(d, str)}

    def default_data(self) -> bool:
        # integers bounded by a dimension (lengths in [0, T]) are counts, not data
        counts = all(dtype_from_name(n).kind in "iub" for n in self.dtypes) and any(
            isinstance(b, str) for b in self.values
        )
        return not counts

    def matches(self, value) -> bool:
        return (
            isinstance(value, Leaf)
            and value.kind == self.kind
            and value.array.dtype.name in self.dtypes
            and (self.free is not None or value.array.ndim == len(self.shape))
        )

    def edges(self):
        out = [f"dtype {d}" for d in self.dtypes] if len(self.dtypes) > 1 else []
        for axis, dim in self.axis_dims.items():
            out += [f"axis {axis} ({dim.name}) of {n}" for n in dict.fromkeys((dim.lo, dim.hi))]
        if self.free:
            f = self.free
            out += [f"rank {r}" for r in dict.fromkeys((f.rank_lo, f.rank_hi))]
            if f.size_lo == 0 and f.rank_hi >= 1:
                out.append("an empty array")
        if any(dtype_from_name(d).kind != "b" for d in self.dtypes):
            out += _value_edges(self.values)
        return out

    def reached(self, value):
        if not isinstance(value, Leaf):
            return set()
        a = value.array
        found = {f"dtype {a.dtype.name}"}
        for axis, dim in self.axis_dims.items():
            if axis < a.ndim:
                found.add(f"axis {axis} ({dim.name}) of {a.shape[axis]}")
        found.add(f"rank {a.ndim}")
        if a.size == 0 and a.ndim:
            found.add("an empty array")
        if a.dtype.kind in "iuf" or is_floating(a.dtype):
            found |= _values_reached(self.values, a)
        return found

    def variables(self):
        return [self.free] if self.free else []

    def bind_mesh(self, mesh, r, steps):
        if self.partition is None:
            return
        if self.free:
            r.fail("a sharded argument needs a shape of sizes and dimension names", "sharding")
        self.layout = _bind_partition(self.partition, self.shape, self.kind, mesh, r, steps)

    def place(self, value, fail):
        return _placed(value, self.layout, fail)

    def dims_used(self):
        used = {d for d in self.shape if isinstance(d, str)}
        return used | {_bound_dim(b) for b in self.values if isinstance(b, str)}

    def concrete_shape(self, assign) -> tuple:
        if self.free:
            return tuple(assign[self.free.name])
        return tuple(assign[d] if isinstance(d, str) else d for d in self.shape)

    def _bounds(self, assign):
        return _resolve(self.values[0], assign), _resolve(self.values[1], assign)

    def strategy(self, assign, drawn):
        shape = self.concrete_shape(assign)
        lo, hi = self._bounds(assign)
        arrays = _arrays_of(self.dtypes, shape, lo, hi)
        if self.min_spread:
            arrays = arrays.filter(functools.partial(_spread_enough, spread=self.min_spread))
        return arrays.map(functools.partial(Leaf, kind=self.kind, sharding=self.layout))

    def sample(self, assign, drawn, rng, edge=None):
        dtype = dtype_from_name(self.dtypes[int(rng.integers(0, len(self.dtypes)))])
        lo, hi = self._bounds(assign)
        values = _at_ends(
            sample_values(dtype, self.concrete_shape(assign), lo, hi, rng), lo, hi, edge
        )
        if self.min_spread and not _spread_enough(values, self.min_spread):
            values.reshape(-1)[[0, -1]] = np.asarray([lo, hi], dtype)
        return Leaf(values, self.kind, sharding=self.layout)

    def describe(self):
        shape = "any rank" if self.free else "[" + ", ".join(map(str, self.shape)) + "]"
        # a bool array holds True and False, whatever range the numeric dtypes beside it get
        ranged = [d for d in self.dtypes if d != "bool"]
        values = f" in [{self.values[0]}, {self.values[1]}]" if ranged else ""
        if ranged and len(ranged) < len(self.dtypes):
            values += " (bool: True or False)"
        return f"{self.kind} {'|'.join(self.dtypes)}{shape}{values}" + _placement_words(self.layout)


@dataclass(frozen=True)
class FreeShape(ShapeVar):
    name: str
    rank_lo: int
    rank_hi: int
    size_lo: int
    size_hi: int

    def candidates(self):
        """Smallest rank first; an empty array whenever sizes may be 0 (a rank-0
        scalar is not empty); length one; the largest shape."""
        out = [(self.size_lo,) * self.rank_lo]
        if self.size_lo == 0 and self.rank_hi >= 1:
            out.append((0,) * max(self.rank_lo, 1))
        one = min(max(1, self.size_lo), self.size_hi)
        out.append((one,) * max(self.rank_lo, 1 if self.rank_hi else 0))
        out.append((self.size_hi,) * self.rank_hi)
        return [list(s) for s in dict.fromkeys(out)]

    def draw(self, rng):
        rank = int(rng.integers(self.rank_lo, self.rank_hi + 1))
        return [draw_size(rng, self.size_lo, self.size_hi) for _ in range(rank)]


@spec_type("scalar")
class TypedScalarSpec(Spec):
    """A 0-d typed scalar: a NumPy scalar (np.float32(2.0)) or a JAX 0-d array."""

    FIELDS = Spec.FIELDS + ("kind", "dtype", "values", "sharding")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.kind = r.get("kind", str, "jax")
        if self.kind not in ("jax", "numpy"):
            r.fail("must be 'jax' or 'numpy'", "kind")
        self.dtypes = _dtype_list(r, "float32")
        self.values = _range(r, "values", [-10.0, 10.0], dims)
        self.partition = _partition(r)
        self.layout: dict | None = None

    def bind_mesh(self, mesh, r, steps):
        if self.partition is not None:
            self.layout = _bind_partition(self.partition, [], self.kind, mesh, r, steps)

    def place(self, value, fail):
        return _placed(value, self.layout, fail)

    def matches(self, value) -> bool:
        return (
            isinstance(value, Leaf)
            and value.array.ndim == 0
            and value.kind == ("npscalar" if self.kind == "numpy" else "jax")
            and value.array.dtype.name in self.dtypes
        )

    def edges(self):
        return ([f"dtype {d}" for d in self.dtypes] if len(self.dtypes) > 1 else []) + _value_edges(
            self.values
        )

    def reached(self, value):
        if not isinstance(value, Leaf):
            return set()
        return {f"dtype {value.array.dtype.name}"} | _values_reached(self.values, value.array)

    def _leaf(self, arr):
        return Leaf(arr, "npscalar" if self.kind == "numpy" else "jax", sharding=self.layout)

    def strategy(self, assign, drawn):
        lo, hi = _resolve(self.values[0], assign), _resolve(self.values[1], assign)
        return _arrays_of(self.dtypes, (), lo, hi).map(self._leaf)

    def sample(self, assign, drawn, rng, edge=None):
        lo, hi = _resolve(self.values[0], assign), _resolve(self.values[1], assign)
        values = sample_values(dtype_from_name(self.dtypes[0]), (), lo, hi, rng)
        return self._leaf(_at_ends(values, lo, hi, edge))

    def describe(self):
        return (
            f"{'NumPy' if self.kind == 'numpy' else 'JAX'} {'|'.join(self.dtypes)} scalar"
            + _placement_words(self.layout)
        )


def key_leaf(seed: int) -> Leaf:
    """The typed PRNG key ``jax.random.key(seed)`` as it crosses the channel: its raw
    threefry2x32 data, which for 0 <= seed < 2**32 is [0, seed] (made without jax, which
    the judge never imports; the worker wraps it back into a key)."""
    return Leaf(np.array([0, seed], dtype=np.uint32), "key")


@spec_type("key")
class KeySpec(Spec):
    """A typed PRNG key, ``jax.random.key(seed)``, its seed drawn from ``values``."""

    FIELDS = Spec.FIELDS + ("values",)
    DATA = False  # a key's bits are no scale for a tolerance

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.values = _range(r, "values", [0, 2**31 - 1], {})
        if not (
            0 <= self.values[0] <= self.values[1] < 2**32
            and all(isinstance(v, int) for v in self.values)
        ):
            r.fail("seeds are integers with 0 <= low <= high < 2**32", "values")

    def strategy(self, assign, drawn):
        return st.integers(*self.values).map(key_leaf)

    def sample(self, assign, drawn, rng, edge=None):
        if edge is not None:
            return key_leaf(self.values[0] if edge.end == "low" else self.values[1])
        return key_leaf(int(rng.integers(self.values[0], self.values[1] + 1)))

    def matches(self, value) -> bool:
        return isinstance(value, Leaf) and value.kind == "key"

    def describe(self):
        return "a JAX random key (jax.random.key(seed))"
