"""Argument specs: how a task's inputs look, as hypothesis strategies.

Grading cost is compiles, and compiles follow distinct shapes, not examples.  So every
run first fixes a small *pool* of shape assignments (each symbolic dimension, free
shape and tree structure gets a concrete value; empty, length-1 and maximal always
among them) and hypothesis then draws an assignment from the pool and values freely.
``sampled_from`` shrinks towards the pool's first entry, the all-minimum one, so a
failure shrinks towards the empty input.

A new spec type is a ``Spec`` subclass registered with ``@spec_type``; nothing else
needs to change.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .values import is_floating, numeric_leaves
from .worker.wire import Leaf, dtype_from_name


@functools.lru_cache(maxsize=1)
def import_hypothesis():
    """hypothesis, without the plugins other installed packages register with it (trio's,
    for one, imports trio and pytest: 80 ms): the inputs drawn for a task and seed must
    not depend on what else is installed."""
    previous = os.environ.get("HYPOTHESIS_NO_PLUGINS")
    os.environ["HYPOTHESIS_NO_PLUGINS"] = "1"
    try:
        import hypothesis
        import hypothesis.strategies  # noqa: F401
    finally:
        if previous is None:
            del os.environ["HYPOTHESIS_NO_PLUGINS"]
        else:
            os.environ["HYPOTHESIS_NO_PLUGINS"] = previous
    return hypothesis


class _Strategies:
    """hypothesis.strategies, imported on first use: loading a bank (every command
    does) should not pay for hypothesis, and `judge run` starts its workers first."""

    def __getattr__(self, name):
        return getattr(import_hypothesis().strategies, name)


st = _Strategies()

SPEC_TYPES: dict[str, type["Spec"]] = {}
# Sizes the judge allocates while it draws inputs: a bank cannot ask for gigabytes.
MAX_DIM = 1 << 16           # one dimension, one list's length
MAX_RANK = 8
MAX_ELEMENTS = 1 << 22      # one array, at its largest
JAX_DTYPES = ("bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "float16",
              "bfloat16", "float32", "complex64")


def spec_type(name: str) -> Callable[[type], type]:
    def register(cls):
        SPEC_TYPES[name] = cls
        cls.type_name = name
        return cls
    return register


# ---------------------------------------------------------------- shape variables

@dataclass(frozen=True)
class Dim:
    """A symbolic dimension shared by every argument that names it.  One split over mesh
    axes takes multiples of their size (``step``) only; empty, the smallest non-empty and
    the largest size stay its edges."""
    name: str
    lo: int
    hi: int
    step: int = 1

    def candidates(self) -> list[int]:
        return sorted({self.lo, min(max(self.step, self.lo), self.hi), self.hi})

    def draw(self, rng: np.random.Generator) -> int:
        return draw_size(rng, self.lo // self.step, self.hi // self.step) * self.step

    def strata(self) -> list[tuple[int, int]]:
        """The sizes between the edges cut into bands (see ``size_bands``), as sizes."""
        edges = self.candidates()
        if len(edges) < 2:
            return []
        return [(a * self.step, b * self.step)
                for a, b in size_bands(edges[-2] // self.step + 1,
                                       self.hi // self.step - 1, self.hi // self.step)]

    def draw_in(self, rng: np.random.Generator, band: tuple[int, int]) -> int:
        return int(rng.integers(band[0] // self.step, band[1] // self.step + 1)) * self.step


# The top of a size range is cut in this many bands of equal width, each holding one size
# of the pool; below that width the bands double (2-3, 4-7, 8-15, ...).  So a run of more
# than 2 * ceil(high / LINEAR_BANDS) - 2 consecutive sizes always holds a pool size: for
# n in [0, 64] any 15 (a quarter of the range), and a range of up to 8 sizes holds all.
LINEAR_BANDS = 8


def size_bands(first: int, last: int, high: int) -> list[tuple[int, int]]:
    """Bands covering the sizes ``first``..``last``: doubling while narrower than
    ``ceil(high / LINEAR_BANDS)``, then of that width; small sizes are where programs
    special-case (no padding below 32, one row by hand), large ones where a band hides."""
    width = max(1, -(-high // LINEAR_BANDS))
    bands, a = [], first
    while a <= last:
        b = min(last, a + (min(a, width) if a < width else width) - 1)
        bands.append((a, b))
        a = b + 1
    return bands


def draw_size(rng: np.random.Generator, lo: int, hi: int) -> int:
    """A size in [lo, hi], log-uniformly: as many small sizes as large ones, because
    small sizes are where programs special-case (no padding below 32, one row sliced
    by hand) and the pool holds only a few."""
    return min(hi, lo + int((hi - lo + 2) ** rng.random()) - 1)


def parse_dims(r) -> dict[str, Dim]:
    dims = {}
    for name, bounds in r.data.items():
        if not (isinstance(bounds, list) and len(bounds) == 2
                and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
                and 0 <= bounds[0] <= bounds[1]):
            r.fail("must be [low, high], two integers with 0 <= low <= high", str(name))
        if bounds[1] > MAX_DIM:
            r.fail(f"the high end is at most {MAX_DIM}, got {bounds[1]}", str(name))
        dims[str(name)] = Dim(str(name), bounds[0], bounds[1])
    return dims


class ShapeVar:
    """A value the pool fixes per run: a free shape, a tree structure, a length."""

    name: str

    def candidates(self) -> list[Any]:
        raise NotImplementedError

    def draw(self, rng: np.random.Generator) -> Any:
        raise NotImplementedError


def edge_count(variables: list) -> int:
    return max([len(v.candidates()) for v in variables] + [1])


def _not_at(variable, edge, rng, tries: int = 8):
    """A draw of ``variable`` other than ``edge`` where one can be had: the others vary
    while one variable sits at its edge."""
    value = variable.draw(rng)
    while value == edge and tries:
        value, tries = variable.draw(rng), tries - 1
    return value


def shape_pool(variables: list, seed: int, size: int) -> list[dict[str, Any]]:
    """The shape assignments of a run: all-min first, then all-one, all-max, each
    variable alone at either end; then one assignment per band of every dimension's range
    (``size_bands``: a Latin square, so each dimension's bands are all covered whatever
    the number of dimensions); then seeded random ones up to ``size``.  Deterministic per
    seed; the bands make the pool larger than ``size`` where a range needs them."""
    if not variables:
        return [{}]
    rng = np.random.default_rng(seed)
    pool: list[dict[str, Any]] = []

    def add(assign):
        if assign not in pool:
            pool.append(assign)

    for pick in range(edge_count(variables)):  # candidates run from the smallest up
        add({v.name: v.candidates()[min(pick, len(v.candidates()) - 1)] for v in variables})
    if len(variables) > 1:
        for v in variables:
            add({w.name: (w.candidates()[0] if w is v else _not_at(w, w.candidates()[0], rng))
                 for w in variables})
            add({w.name: (w.candidates()[-1] if w is v else _not_at(w, w.candidates()[-1], rng))
                 for w in variables})
    for assign in _stratified(variables, np.random.default_rng([seed, 2])):
        add(assign)
    tries = 0
    while len(pool) < size and tries < 50 * size:
        tries += 1
        add({v.name: v.draw(rng) for v in variables})
    return pool


def _stratified(variables: list, rng: np.random.Generator) -> list[dict[str, Any]]:
    """One assignment per band of the dimension with the most bands; every other
    dimension's bands are dealt out over the same assignments in a seeded order (each of
    them covered, repeated where it has fewer), the other variables drawn freely."""
    bands = {v.name: v.strata() for v in variables if isinstance(v, Dim) and v.strata()}
    rows = max([len(b) for b in bands.values()] + [0])
    dealt = {}
    for name, own in bands.items():
        order = [own[i % len(own)] for i in range(rows)]
        dealt[name] = [order[i] for i in rng.permutation(rows)]
    return [{v.name: (v.draw_in(rng, dealt[v.name][i]) if v.name in dealt else v.draw(rng))
             for v in variables} for i in range(rows)]


# ---------------------------------------------------------------- specs

class Spec:
    """One argument's spec.  ``data`` says whether its values are data the result is
    computed from: only those scale a tolerance (``compare.Tolerance``), never counts,
    sizes or static parameters.  Each type has its own default (``DATA``)."""

    type_name = "?"
    FIELDS: tuple[str, ...] = ("type", "data", "doc")
    DATA = True

    def __init__(self, r, dims: dict[str, Dim], name: str):
        self.name = name
        self.data = r.get("data", bool, self.default_data())

    def default_data(self) -> bool:
        return self.DATA

    def matches(self, value) -> bool:
        """Could ``value`` have come from this spec?  (Which option of a ``one_of``.)"""
        return True

    def data_leaves(self, value) -> list[np.ndarray]:
        """The numbers of ``value`` that are data (see ``data``), as arrays."""
        return numeric_leaves(value) if self.data else []

    def variables(self) -> list:
        """Shape variables this spec adds to the pool (beyond named dims)."""
        return []

    def dims_used(self) -> set[str]:
        return set()

    def strategy(self, assign: dict[str, Any], drawn: dict[str, Any]) -> st.SearchStrategy:
        raise NotImplementedError

    def sample(self, assign: dict[str, Any], drawn: dict[str, Any], rng,
               edge: "Edge | None" = None) -> Any:
        """A seeded value; at an ``edge``, at that end of the declared domain (an array
        holds both ends where it has room for them) and in the edge's option."""
        raise NotImplementedError

    def edges(self) -> list[str]:
        """The edges this spec declares (``judge validate`` checks the drawn inputs reach
        every one): dimensions at their ends, both signs, each dtype, each option, an
        empty nested dict, ..."""
        return []

    def reached(self, value) -> set[str]:
        """Which of ``edges()`` this value reaches."""
        return set()

    def describe(self) -> str:
        raise NotImplementedError

    def bind_mesh(self, mesh: "MeshSpec | None", r, steps: dict[str, int]) -> None:
        """Check this spec's ``sharding`` against the task's mesh and note, in ``steps``,
        the multiple each dimension it splits must be.  Nothing to do for most specs."""

    def place(self, value, fail):
        """A literal value of this argument (an example's, a script's) placed as the spec
        says; ``fail(message)`` reports one that cannot be."""
        return value


def parse_spec(r, dims: dict[str, Dim], name: str | None = None) -> Spec:
    name = name or r.path.rsplit(".", 1)[-1]
    kind = r.get("type", str)
    if kind not in SPEC_TYPES:
        import difflib

        close = difflib.get_close_matches(kind, list(SPEC_TYPES), n=1)
        r.fail(f"unknown type '{kind}'" + (f" (did you mean '{close[0]}'?)" if close else
                                            f" (known: {', '.join(sorted(SPEC_TYPES))})"), "type")
    cls = SPEC_TYPES[kind]
    r.only(cls.FIELDS)
    return cls(r, dims, name)


_DIM_BOUND = re.compile(r"^\s*(-)?\s*([A-Za-z_]\w*)\s*(?:([+-])\s*(\d+))?\s*$")


def _range(r, key: str, default, dims: dict[str, Dim]):
    """[low, high]; an end may name a dimension, negated or offset by an integer
    (entries in [0, T]; indices in [-n - 3, n + 3])."""
    raw = r.get(key, list, default)
    if not (isinstance(raw, list) and len(raw) == 2):
        r.fail("must be [low, high]", key)
    for end in raw:
        m = _DIM_BOUND.match(end) if isinstance(end, str) else None
        ok = (m is not None and m.group(2) in dims) or (
            isinstance(end, (int, float)) and not isinstance(end, bool))
        if not ok:
            r.fail(f"an end must be a number or a dimension name (n, n + 3, -n - 3), "
                   f"got {end!r}", key)
    return list(raw)


def _bound_dim(bound: str) -> str:
    """The dimension an end of a range names ('n' in '-n - 3')."""
    return _DIM_BOUND.match(bound).group(2)


def _resolve(bound, assign) -> float:
    if not isinstance(bound, str):
        return bound
    negate, name, sign, offset = _DIM_BOUND.match(bound).groups()
    value = -assign[name] if negate else assign[name]
    return value + (int(offset) if sign == "+" else -int(offset)) if offset else value


def _value_edges(values: list, what: str = "value") -> list[str]:
    """Both signs and both ends of a numeric value range (ends named by a dimension are
    reached with the dimension)."""
    lo, hi = values
    out = []
    if all(isinstance(b, (int, float)) for b in values):
        if lo < 0 < hi:
            out += ["a negative value", "a positive value"]
        out += [f"the {what} {lo:g}", f"the {what} {hi:g}"]
    return list(dict.fromkeys(out))


def _values_reached(values: list, numbers, what: str = "value") -> set[str]:
    """Which value edges ``numbers`` reach; an end is reached when a number equals it as
    the numbers' own dtype holds it (0.01 as a float32 is 0.0099999998)."""
    lo, hi = values
    found = set()
    numbers = np.asarray(numbers)
    if not numbers.size or not all(isinstance(b, (int, float)) for b in values):
        return found
    flat = numbers.astype(np.float64).reshape(-1)
    if (flat < 0).any():
        found.add("a negative value")
    if (flat > 0).any():
        found.add("a positive value")
    for b in (lo, hi):
        as_held = float(np.asarray(b).astype(numbers.dtype)) if is_floating(numbers.dtype) else b
        if (flat == as_held).any():
            found.add(f"the {what} {b:g}")
    return found


@dataclass(frozen=True)
class Edge:
    """Where an edge case sits in the declared domain: the ``end`` of every value range
    ("low" or "high"), and which ``option`` of every ``one_of`` (modulo their number)."""
    end: str
    option: int = 0

    def at(self, end: str | None) -> "Edge | None":
        return None if end is None else Edge(end, self.option)


def _at_ends(values: np.ndarray, lo, hi, edge: Edge | None) -> np.ndarray:
    """Put the range's ends into a sampled array: both where it has two elements or more,
    else the one the edge asks for."""
    flat = values.reshape(-1)
    if edge is None or not flat.size or values.dtype.kind == "b":
        return values
    if values.dtype.kind in "iu":
        lo, hi = math.ceil(lo), math.floor(hi)
    if flat.size >= 2:
        flat[0], flat[-1] = lo, hi
    else:
        flat[0] = lo if edge.end == "low" else hi
    return values


def _prefixed(prefix: str, edges) -> list[str]:
    return [f"{prefix}: {e}" for e in edges]


def _dtype_list(r, default: str | None) -> list[str]:
    raw = r.get("dtype", (str, list), default)
    names = raw if isinstance(raw, list) else [raw]
    for n in names:
        try:
            dtype_from_name(n)
        except ValueError:
            r.fail(f"unknown dtype '{n}'", "dtype")
    return names


def _elements(dtype: np.dtype, lo: float, hi: float) -> st.SearchStrategy:
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return st.integers(max(int(math.ceil(lo)), int(info.min)), min(int(math.floor(hi)), int(info.max)))
    width = 16 if dtype.itemsize <= 2 else 32 if dtype.itemsize <= 4 else 64
    if dtype.kind == "c":
        lo, hi = _representable(lo, hi, 32)
        f = st.floats(lo, hi, width=32, allow_nan=False, allow_subnormal=False)
        return st.builds(complex, f, f)
    lo, hi = _representable(lo, hi, width)
    return st.floats(lo, hi, width=width, allow_nan=False, allow_infinity=False,
                     allow_subnormal=False)


def _representable(lo: float, hi: float, width: int) -> tuple[float, float]:
    """[lo, hi] narrowed to the nearest floats of that width inside it: 0.9 is no
    float32, and hypothesis refuses a bound its width cannot hold."""
    kind = {16: np.float16, 32: np.float32, 64: np.float64}[width]
    low, high = kind(lo), kind(hi)
    if float(low) < lo:
        low = np.nextafter(low, kind(np.inf))
    if float(high) > hi:
        high = np.nextafter(high, kind(-np.inf))
    return float(low), float(high)


def _array_values(dtype: np.dtype, shape: tuple, lo, hi) -> st.SearchStrategy:
    from hypothesis.extra import numpy as hnp

    if dtype.name in ("bfloat16",) or dtype.kind == "V" or dtype.name.startswith("float8"):
        base = np.dtype("float32")
        return hnp.arrays(base, shape, elements=_elements(base, lo, hi)).map(
            functools.partial(_cast, dtype=dtype))
    return hnp.arrays(dtype, shape, elements=_elements(dtype, lo, hi))


# Strategies take named functions, never lambdas: hypothesis reads a lambda's source with
# ast to describe it, and ast.parse from several threads at once (a batch grading in
# parallel) crashes CPython 3.11.
def _cast(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return a.astype(dtype)


def _arrays_of(names: list[str], shape: tuple, lo, hi) -> st.SearchStrategy:
    """Arrays of any of these dtypes (shrinking towards the first).  one_of, not
    sampled_from(...).flatmap: a flatmap's label hashes its function, a partial's hash is
    its address, and hypothesis groups what it mutates by label, so the same seed would
    draw different inputs in different processes."""
    return st.one_of(*(_array_values(dtype_from_name(n), shape, lo, hi) for n in names))


def _spread_enough(values, spread: float) -> bool:
    """Keep near-constant inputs out where the task is ill-conditioned on them
    (normalising by a standard deviation of ~0 amplifies rounding without bound)."""
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    return flat.size < 2 or float(flat.max() - flat.min()) >= spread


def _reorder(pair) -> dict:
    values, order = pair
    return {k: values[k] for k in order}


def sample_values(dtype: np.dtype, shape: tuple, lo, hi, rng) -> np.ndarray:
    """Seeded values in [lo, hi] (floats to two decimals, so they read well)."""
    if dtype.kind == "b":
        return np.asarray(rng.integers(0, 2, size=shape).astype(bool))
    if dtype.kind in "iu":
        return np.asarray(rng.integers(int(math.ceil(lo)), int(math.floor(hi)) + 1, size=shape).astype(dtype))
    return np.asarray(np.round(rng.uniform(lo, hi, size=shape), 2).astype(dtype))


@spec_type("array")
class ArraySpec(Spec):
    """A JAX or NumPy array: dtype(s), shape of ints and dimension names, value range.

    ``shape`` is a list (``[n, 3]``) or ``{rank: [0, 2], size: [0, 8]}`` for any rank."""

    FIELDS = Spec.FIELDS + ("kind", "dtype", "shape", "values", "min_spread", "sharding")

    def __init__(self, r, dims, name):
        self.min_spread = float(r.number("min_spread", 0.0, low=0))
        self.partition = _partition(r)
        self.layout: dict | None = None      # set by bind_mesh for a sharded argument
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
                sr.fail(f"size {size[1]} at rank {rank[1]} is up to {size[1] ** rank[1]:,} "
                        f"elements; an array has at most {MAX_ELEMENTS:,}", "size")
            self.free = FreeShape(f"{name}.shape", int(rank[0]), int(rank[1]), int(size[0]), int(size[1]))
            self.shape: list = []
        else:
            for d in raw:
                if not ((isinstance(d, int) and not isinstance(d, bool) and d >= 0) or
                        (isinstance(d, str) and d in dims)):
                    r.fail(f"each entry is a size or a name from dims ({', '.join(dims) or 'none declared'}), got {d!r}", "shape")
            largest = math.prod(dims[d].hi if isinstance(d, str) else d for d in raw)
            if len(raw) > MAX_RANK or largest > MAX_ELEMENTS:
                r.fail(f"is up to {largest:,} elements at its largest; an array has at most "
                       f"{MAX_ELEMENTS:,} (and rank {MAX_RANK})", "shape")
            self.shape = list(raw)
        self.axis_dims = {i: dims[d] for i, d in enumerate(self.shape) if isinstance(d, str)}

    def default_data(self) -> bool:
        # integers bounded by a dimension (lengths in [0, T]) are counts, not data
        counts = all(dtype_from_name(n).kind in "iub" for n in self.dtypes) and any(
            isinstance(b, str) for b in self.values)
        return not counts

    def matches(self, value) -> bool:
        return (isinstance(value, Leaf) and value.kind == self.kind
                and value.array.dtype.name in self.dtypes
                and (self.free is not None or value.array.ndim == len(self.shape)))

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
        values = _at_ends(sample_values(dtype, self.concrete_shape(assign), lo, hi, rng), lo, hi, edge)
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
        return (isinstance(value, Leaf) and value.array.ndim == 0
                and value.kind == ("npscalar" if self.kind == "numpy" else "jax")
                and value.array.dtype.name in self.dtypes)

    def edges(self):
        return ([f"dtype {d}" for d in self.dtypes] if len(self.dtypes) > 1 else []) + \
            _value_edges(self.values)

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
        return (f"{'NumPy' if self.kind == 'numpy' else 'JAX'} {'|'.join(self.dtypes)} scalar"
                + _placement_words(self.layout))


def key_leaf(seed: int) -> Leaf:
    """The typed PRNG key ``jax.random.key(seed)`` as it crosses the channel: its raw
    threefry2x32 data, which for 0 <= seed < 2**32 is [0, seed] (made without jax, which
    the judge never imports; the worker wraps it back into a key)."""
    return Leaf(np.array([0, seed], dtype=np.uint32), "key")


@spec_type("key")
class KeySpec(Spec):
    """A typed PRNG key, ``jax.random.key(seed)``, its seed drawn from ``values``."""

    FIELDS = Spec.FIELDS + ("values",)
    DATA = False          # a key's bits are no scale for a tolerance

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.values = _range(r, "values", [0, 2**31 - 1], {})
        if not (0 <= self.values[0] <= self.values[1] < 2**32
                and all(isinstance(v, int) for v in self.values)):
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
        one = (min(max(1, self.size[0]), self.size[1]),) * max(self.rank[0], 1 if self.rank[1] else 0)
        out = empty + [self._node(kinds[0], [LeafShape(one)])]
        smallest = LeafShape((self.size[0],) * max(self.rank[0], 1 if self.rank[1] else 0))
        lowest = LeafShape((self.size[1],) * self.rank[0])
        inner = self._node(kinds[0], [PytreeNode(kinds[1 % len(kinds)], ()), lowest]) \
            if self.depth else lowest
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
        children = [self._full(depth - 1, at + 1) if depth and i == 0
                    else LeafShape((self.size[1],) * self.rank[1]) for i in range(self.width[1])]
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
                children.append(LeafShape(tuple(int(rng.integers(self.size[0], self.size[1] + 1))
                                                for _ in range(rank))))
        if kind == "dict":        # keys in no particular order: flattening sorts them
            keys = [_PYTREE_KEYS[i] for i in rng.permutation(len(_PYTREE_KEYS))[:len(children)]]
            return PytreeNode(kind, tuple(zip(keys, children)))
        return PytreeNode(kind, tuple(children))


@spec_type("pytree")
class PytreeSpec(Spec):
    """A nested pytree of dicts, lists and tuples (``containers``) of arrays of any
    shape: up to ``depth`` levels of containers below the top, ``width`` children per
    container, leaves of ``rank`` and ``size`` per dimension; empty containers and
    zero-size leaves are among the edges.  ``min_spread``: max - min of every leaf with
    two or more elements is at least this."""

    FIELDS = Spec.FIELDS + ("kind", "dtype", "values", "containers", "depth", "width", "rank",
                            "size", "min_spread")

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
        self.shape_var = PytreeShape(f"{name}.pytree", tuple(dict.fromkeys(containers)), depth,
                                     ranges["width"], ranges["rank"], ranges["size"])

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
                for child in (node.values() if isinstance(node, dict) else node):
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
        return (f"nested {'/'.join(self.shape_var.containers)} of {self.kind} "
                f"{self.dtype.name} arrays")


@spec_type("float")
class FloatSpec(Spec):
    """A Python float."""

    FIELDS = Spec.FIELDS + ("values",)

    def matches(self, value) -> bool:
        return isinstance(value, float)

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.values = _range(r, "values", [-10.0, 10.0], dims)

    def strategy(self, assign, drawn):
        lo, hi = (_resolve(b, assign) for b in self.values)
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False, allow_subnormal=False)

    def sample(self, assign, drawn, rng, edge=None):
        lo, hi = (_resolve(b, assign) for b in self.values)
        if edge is not None:
            return float(lo if edge.end == "low" else hi)
        return float(round(rng.uniform(lo, hi), 2))

    def edges(self):
        return _value_edges(self.values)

    def reached(self, value):
        return _values_reached(self.values, np.asarray(value)) if self.matches(value) else set()

    def describe(self):
        return f"Python float in [{self.values[0]}, {self.values[1]}]"


@spec_type("int")
class IntSpec(Spec):
    """A Python int: a count, a size or a static parameter unless it says ``data: true``."""

    FIELDS = Spec.FIELDS + ("values",)
    DATA = False

    def matches(self, value) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.values = _range(r, "values", [0, 10], dims)

    def dims_used(self):
        return {_bound_dim(b) for b in self.values if isinstance(b, str)}

    def strategy(self, assign, drawn):
        lo, hi = (int(_resolve(b, assign)) for b in self.values)
        return st.integers(lo, hi)

    def sample(self, assign, drawn, rng, edge=None):
        lo, hi = (int(_resolve(b, assign)) for b in self.values)
        if edge is not None:
            return lo if edge.end == "low" else hi
        return int(rng.integers(lo, hi + 1))

    def edges(self):
        return _value_edges(self.values)

    def reached(self, value):
        return _values_reached(self.values, np.asarray(value)) if self.matches(value) else set()

    def describe(self):
        return f"Python int in [{self.values[0]}, {self.values[1]}]"


@spec_type("bool")
class BoolSpec(Spec):
    FIELDS = Spec.FIELDS
    DATA = False

    def matches(self, value) -> bool:
        return isinstance(value, bool)

    def strategy(self, assign, drawn):
        return st.booleans()

    def sample(self, assign, drawn, rng, edge=None):
        if edge is not None:
            return edge.end == "high"
        return bool(rng.integers(0, 2))

    def edges(self):
        return ["True", "False"]

    def reached(self, value):
        return {str(value)} if isinstance(value, bool) else set()

    def describe(self):
        return "Python bool"


class _Container(Spec):
    """A container's numbers are data as its items say; ``data`` on the container itself
    is not read."""

    def _children(self) -> list[Spec]:
        raise NotImplementedError

    def _parts(self, value) -> list[tuple[Spec, Any]] | None:
        """(item spec, item value) pairs, or None when ``value`` is not shaped like this
        spec (an example written another way): then all its numbers count."""
        raise NotImplementedError

    def data_leaves(self, value) -> list[np.ndarray]:
        parts = self._parts(value)
        if parts is None:
            return numeric_leaves(value)
        return [a for spec, v in parts for a in spec.data_leaves(v)]

    def _label(self, child: Spec) -> str:
        """How a child's edges are named inside this container's."""
        raise NotImplementedError

    def edges(self):
        return [e for c in self._children() for e in _prefixed(self._label(c), c.edges())]

    def reached(self, value):
        return {e for c, v in self._parts(value) or [] for e in _prefixed(self._label(c), c.reached(v))}

    def variables(self):
        return [v for c in self._children() for v in c.variables()]

    def bind_mesh(self, mesh, r, steps):
        for c in self._children():
            c.bind_mesh(mesh, r, steps)

    def dims_used(self):
        return set().union(*(c.dims_used() for c in self._children())) if self._children() else set()


@spec_type("list")
class ListSpec(_Container):
    """A Python list of ``items``, its length an int or a dimension name."""

    FIELDS = Spec.FIELDS + ("items", "length", "min_spread")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.min_spread = float(r.number("min_spread", 0.0, low=0))
        self.items = parse_spec(r.child("items"), dims, f"{name}[]")
        self.length = r.get("length", (int, str))
        if isinstance(self.length, str) and self.length not in dims:
            r.fail(f"'{self.length}' is not declared in dims", "length")
        if isinstance(self.length, int) and not 0 <= self.length <= MAX_DIM:
            r.fail(f"must be between 0 and {MAX_DIM}, got {self.length}", "length")
        self.dims = dims

    def _children(self):
        return [self.items]

    def matches(self, value) -> bool:
        return isinstance(value, list) and all(self.items.matches(v) for v in value)

    def _parts(self, value):
        return [(self.items, v) for v in value] if isinstance(value, (list, tuple)) else None

    def _label(self, child):
        return "an item"

    def _length_edges(self) -> list[int]:
        if isinstance(self.length, int):
            return []
        dim = self.dims[self.length]
        return list(dict.fromkeys((dim.lo, dim.hi)))

    def edges(self):
        return [f"length {n}" for n in self._length_edges()] + super().edges()

    def reached(self, value):
        return ({f"length {len(value)}"} | super().reached(value)) if isinstance(value, list) else set()

    def dims_used(self):
        return super().dims_used() | ({self.length} if isinstance(self.length, str) else set())

    def _n(self, assign):
        return assign[self.length] if isinstance(self.length, str) else self.length

    def strategy(self, assign, drawn):
        lists = st.lists(self.items.strategy(assign, drawn), min_size=self._n(assign),
                         max_size=self._n(assign))
        if self.min_spread:
            lists = lists.filter(functools.partial(_spread_enough, spread=self.min_spread))
        return lists

    def sample(self, assign, drawn, rng, edge=None):
        n = self._n(assign)
        # the first item at the low end and the last at the high end, like an array's
        out = [self.items.sample(assign, drawn, rng, edge and edge.at(
            "low" if i == 0 and n > 1 else "high" if i == n - 1 else None)) for i in range(n)]
        if self.min_spread and len(out) >= 2 and not _spread_enough(out, self.min_spread):
            out[0], out[-1] = out[0] - self.min_spread, out[-1] + self.min_spread
        return out

    def place(self, value, fail):
        return [self.items.place(v, fail) for v in value] if isinstance(value, list) else value

    def describe(self):
        return f"list of {self.length} x {self.items.describe()}"


@spec_type("tuple")
class TupleSpec(_Container):
    """A Python tuple (or, with ``as: list``, a list) of fixed items."""

    FIELDS = Spec.FIELDS + ("items", "as")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        raw = r.get("items", list)
        self.items = [parse_spec(r.reader_at(f"{r.path}.items[{i}]", it), dims, f"{name}[{i}]")
                      for i, it in enumerate(raw)]
        self.container = tuple if r.get("as", str, "tuple") == "tuple" else list

    def _children(self):
        return self.items

    def matches(self, value) -> bool:
        return isinstance(value, self.container) and len(value) == len(self.items) and all(
            s.matches(v) for s, v in zip(self.items, value))

    def _parts(self, value):
        # an example may write a tuple as a list: its items still pair by position
        fits = isinstance(value, (tuple, list)) and len(value) == len(self.items)
        return list(zip(self.items, value)) if fits else None

    def _label(self, child):
        return f"item {self.items.index(child)}"

    def strategy(self, assign, drawn):
        return st.tuples(*(i.strategy(assign, drawn) for i in self.items)).map(self.container)

    def sample(self, assign, drawn, rng, edge=None):
        return self.container(i.sample(assign, drawn, rng, edge) for i in self.items)

    def place(self, value, fail):
        if not isinstance(value, (list, tuple)) or len(value) != len(self.items):
            return value
        return type(value)(i.place(v, fail) for i, v in zip(self.items, value))

    def describe(self):
        name = "tuple" if self.container is tuple else "list"
        return f"{name}({', '.join(i.describe() for i in self.items)})"


@spec_type("dict")
class DictSpec(_Container):
    """A dict with fixed string keys; ``key_orders: true`` also varies the insertion order."""

    FIELDS = Spec.FIELDS + ("fields", "key_orders")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        fr = r.child("fields")
        self.fields = {str(k): parse_spec(fr.child(str(k)), dims, f"{name}.{k}") for k in fr.data}
        self.key_orders = r.get("key_orders", bool, False)

    def _children(self):
        return list(self.fields.values())

    def matches(self, value) -> bool:
        return isinstance(value, dict) and set(value) == set(self.fields) and all(
            self.fields[k].matches(v) for k, v in value.items())

    def _parts(self, value):
        fits = isinstance(value, dict) and set(value) == set(self.fields)
        return [(self.fields[k], v) for k, v in value.items()] if fits else None

    def _label(self, child):
        return f"key {next(k for k, s in self.fields.items() if s is child)!r}"

    def edges(self):
        return super().edges() + (["keys in another order"] if self.key_orders and len(self.fields) > 1 else [])

    def reached(self, value):
        found = super().reached(value)
        if self.matches(value) and list(value) != list(self.fields):
            found.add("keys in another order")
        return found

    def strategy(self, assign, drawn):
        base = st.fixed_dictionaries({k: s.strategy(assign, drawn) for k, s in self.fields.items()})
        if not self.key_orders:
            return base
        return st.tuples(base, st.permutations(list(self.fields))).map(_reorder)

    def sample(self, assign, drawn, rng, edge=None):
        out = {k: s.sample(assign, drawn, rng, edge) for k, s in self.fields.items()}
        if self.key_orders and edge is not None and edge.end == "high":
            out = dict(reversed(out.items()))
        return out

    def place(self, value, fail):
        if not isinstance(value, dict):
            return value
        return {k: self.fields[k].place(v, fail) if k in self.fields else v
                for k, v in value.items()}

    def describe(self):
        return "dict(" + ", ".join(f"{k}: {s.describe()}" for k, s in self.fields.items()) + ")"


@spec_type("one_of")
class OneOfSpec(_Container):
    """Any one of ``options`` (e.g. a Python float, a NumPy scalar or a JAX scalar)."""

    FIELDS = Spec.FIELDS + ("options",)

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        raw = r.get("options", list)
        if not raw:
            r.fail("needs at least one option", "options")
        self.options = [parse_spec(r.reader_at(f"{r.path}.options[{i}]", o), dims, name)
                        for i, o in enumerate(raw)]

    def _children(self):
        return self.options

    def matches(self, value) -> bool:
        return any(o.matches(value) for o in self.options)

    def _parts(self, value):
        option = next((o for o in self.options if o.matches(value)), None)
        return [(option, value)] if option is not None else None

    def _label(self, child):
        return f"option {self.options.index(child) + 1} ({child.describe()})"

    def edges(self):
        # each option drawn, and the argument's edges over all options together (an
        # empty array of some option, both signs in some option, ...)
        return [self._label(o) for o in self.options] + list(dict.fromkeys(
            e for o in self.options for e in o.edges()))

    def reached(self, value):
        found = set()
        for option, _ in self._parts(value) or []:
            found |= {self._label(option)} | option.reached(value)
        return found

    def strategy(self, assign, drawn):
        return st.one_of(*(o.strategy(assign, drawn) for o in self.options))

    def sample(self, assign, drawn, rng, edge=None):
        pick = edge.option % len(self.options) if edge else int(rng.integers(0, len(self.options)))
        return self.options[pick].sample(assign, drawn, rng, edge)

    def describe(self):
        return " or ".join(o.describe() for o in self.options)


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
        odd: list[tuple[str, Any]] = [(_tree_key(0), [])]         # a scalar leaf
        if self.rank_hi >= 1:
            odd.append((_tree_key(1), [0] * self.rank_hi))         # a zero-size leaf
        if self.depth >= 1 and self.keys_lo == 0:
            odd.append(("opt", {}))                                # an empty nested dict
        width = max(1, self.keys_hi)
        for i in range(0, len(odd), width):
            out.append(self._padded(dict(odd[i:i + width])))
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
            out[key] = self._full(depth - 1) if depth > 0 and i == 0 else [self.size_hi] * self.rank_hi
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

    FIELDS = Spec.FIELDS + ("kind", "dtype", "values", "depth", "keys", "rank", "size", "like",
                            "key_orders")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.kind = r.get("kind", str, "jax")
        self.dtypes = _dtype_list(r, "float32")
        self.values = _range(r, "values", [-10.0, 10.0], dims)
        self.like = r.get("like", str, None)
        self.key_orders = r.get("key_orders", bool, False)
        keys = _range(r, "keys", [0, 3], {})
        self.shape_var = TreeShape(f"{self.like or name}.tree", int(r.get("depth", int, 1)),
                                   int(keys[0]), int(keys[1]), int(r.get("rank", int, 2)),
                                   int(r.get("size", int, 4)))

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
        orders = [st.permutations(keys) if self.key_orders and len(keys) > 1 else st.just(keys)
                  for keys in nodes]
        return st.tuples(st.tuples(*leaf_strats), st.tuples(*orders)).map(
            functools.partial(_assemble_tree, structure=structure, kind=self.kind))

    def sample(self, assign, drawn, rng, edge=None):
        dtype = dtype_from_name(self.dtypes[0])
        lo, hi = self.values
        tree = self._build(assign[self.shape_var.name], lambda s: Leaf(
            _at_ends(sample_values(dtype, s, lo, hi, rng), lo, hi, edge), self.kind))
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
            f" shaped like {self.like}" if self.like else "")


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


# ---------------------------------------------------------------- arguments on a mesh

@dataclass(frozen=True)
class MeshSpec:
    """The mesh a task's sharded arguments are placed on: ``{axes: {data: 8},
    axis_types: explicit}`` (``axis_types`` one of explicit, auto, manual for every
    axis, or a mapping per axis; explicit is what jax.make_mesh makes by default)."""
    axes: tuple[str, ...]
    sizes: tuple[int, ...]
    types: tuple[str, ...]

    FIELDS = ("axes", "axis_types", "doc")
    TYPES = ("explicit", "auto", "manual")

    @classmethod
    def parse(cls, r, devices: int | None) -> "MeshSpec":
        import re

        r.only(cls.FIELDS)
        if not devices:
            r.fail("a mesh needs the task's `devices: N`")
        axes_r = r.child("axes")
        if not axes_r.data:
            r.fail("needs at least one axis, as {name: size}", "axes")
        axes, sizes = [], []
        for name, size in axes_r.data.items():
            if not (isinstance(name, str) and re.match(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$", name)):
                axes_r.fail(f"an axis name is an identifier, got {name!r}")
            if not (isinstance(size, int) and not isinstance(size, bool) and size >= 1):
                axes_r.fail("an axis size is a whole number of devices, at least 1", str(name))
            axes.append(name)
            sizes.append(size)
        total = math.prod(sizes)
        if total > devices:
            r.fail(f"the axes need {total} devices and the task has {devices}", "axes")
        raw = r.get("axis_types", (str, dict), "explicit")
        kinds = raw if isinstance(raw, dict) else {a: raw for a in axes}
        for a in kinds:
            if a not in axes:
                r.fail(f"'{a}' is not an axis of the mesh", "axis_types")
        types = [kinds.get(a, "explicit") for a in axes]
        for t in types:
            if t not in cls.TYPES:
                r.fail(f"an axis type is one of {', '.join(cls.TYPES)}, got {t!r}", "axis_types")
        return cls(tuple(axes), tuple(sizes), tuple(types))

    def size_of(self, axes: list[str]) -> int:
        return math.prod(self.sizes[self.axes.index(a)] for a in axes)

    def describe(self) -> str:
        shape = ", ".join(f"{a}: {n}" for a, n in zip(self.axes, self.sizes))
        return f"{{{shape}}} ({'/'.join(dict.fromkeys(self.types))} axes)"


def _partition(r) -> list[list[str]] | None:
    """``sharding: [data, null]``: per dimension, the mesh axes it is split over (a name,
    a list of names, or null for none); [] places a scalar on every device."""
    raw = r.get("sharding", list, None)
    if raw is None:
        return None
    out = []
    for entry in raw:
        if entry is None:
            out.append([])
        elif isinstance(entry, str):
            out.append([entry])
        elif isinstance(entry, list) and entry and all(isinstance(a, str) for a in entry):
            out.append(list(entry))
        else:
            r.fail(f"each entry is an axis name, a list of names or null, got {entry!r}",
                   "sharding")
    return out


def _bind_partition(partition, shape, kind, mesh, r, steps) -> dict:
    if mesh is None:
        r.fail("a sharded argument needs the task's `mesh`", "sharding")
    if kind != "jax":
        r.fail("only a JAX array can be placed on a mesh (kind: jax)", "sharding")
    if len(partition) != len(shape):
        r.fail(f"gives {len(partition)} entries for an argument of rank {len(shape)}", "sharding")
    used = [a for axes in partition for a in axes]
    for a in used:
        if a not in mesh.axes:
            r.fail(f"'{a}' is not an axis of the mesh ({', '.join(mesh.axes)})", "sharding")
    if len(set(used)) != len(used):
        r.fail("an axis can split only one dimension", "sharding")
    for axes, dim in zip(partition, shape):
        factor = mesh.size_of(axes) if axes else 1
        if isinstance(dim, str):
            steps[dim] = math.lcm(steps.get(dim, 1), factor)
        elif dim % factor:
            r.fail(f"a dimension of {dim} cannot be split over {factor} devices", "sharding")
    return {"mesh": {"axes": list(mesh.axes), "sizes": list(mesh.sizes),
                     "types": list(mesh.types)}, "spec": [list(a) for a in partition]}


def _placed(value, layout, fail):
    if layout is None:
        return value
    mesh = layout["mesh"]
    sizes = dict(zip(mesh["axes"], mesh["sizes"]))
    # a Leaf ($array), or a $random placeholder (literals.RandomArray, a dataclass with
    # a shape and a sharding: not imported, literals imports this module)
    drawn = dataclasses.is_dataclass(value) and hasattr(value, "sharding")
    shape = value.shape if drawn else value.array.shape if isinstance(value, Leaf) else None
    if shape is None:
        fail("a sharded argument takes an array ($array or $random)")
    for axes, n in zip(layout["spec"], shape):
        factor = math.prod(sizes[a] for a in axes)
        if n % factor:
            fail(f"a dimension of {n} cannot be split over {factor} devices (axes "
                 f"{', '.join(axes)})")
    if drawn:
        return dataclasses.replace(value, kind="jax", sharding=layout)
    return Leaf(value.array, "jax", value.weak, layout)


def _placement_words(layout) -> str:
    if layout is None:
        return ""
    split = [f"dimension {i} over {', '.join(axes)}" for i, axes in enumerate(layout["spec"]) if axes]
    return ", " + ("split: " + "; ".join(split) if split else "on every device of the mesh")


def place_on_mesh(args: dict[str, Spec], dims: dict[str, Dim], mesh, readers) -> dict[str, Dim]:
    """Check every argument's ``sharding`` against the mesh; the dims with the multiples
    the sharded ones must be (a dimension split over 8 devices takes 0, 8, 16, ...)."""
    steps: dict[str, int] = {}
    for name, spec in args.items():
        spec.bind_mesh(mesh, readers(name), steps)
    out = dict(dims)
    for name, step in steps.items():
        if step > 1 and name in dims:
            d = dims[name]
            if d.lo % step or d.hi % step:
                readers(None).fail(f"dimension '{name}' is split over {step} devices, so its "
                                   f"bounds must be multiples of {step}, got [{d.lo}, {d.hi}]",
                                   f"dims.{name}")
            out[name] = dataclasses.replace(d, step=step)
    return out


def place_call(args: dict[str, Spec], values: dict[str, Any], fail) -> dict[str, Any]:
    """A literal call's arguments, each placed as its spec says."""
    return {k: args[k].place(v, fail) if k in args else v for k, v in values.items()}


# ---------------------------------------------------------------- whole argument lists

class Inputs:
    """All of a task's argument specs: the pool, the strategy and deterministic samples."""

    def __init__(self, specs: dict[str, Spec], dims: dict[str, Dim]):
        self.specs = specs
        used = set().union(*(s.dims_used() for s in specs.values())) if specs else set()
        self.variables: list = [d for n, d in dims.items() if n in used]
        for s in specs.values():
            self.variables += s.variables()

    def pool(self, seed: int, size: int) -> list[dict[str, Any]]:
        return shape_pool(self.variables, seed, size)

    def strategy(self, pool: list[dict[str, Any]]) -> st.SearchStrategy:
        return _arguments()(pool, self.specs)

    def sample(self, assign: dict[str, Any], rng, edge: Edge | None = None) -> dict[str, Any]:
        drawn: dict[str, Any] = {}
        for name, spec in self.specs.items():
            drawn[name] = spec.sample(assign, drawn, rng, edge)
        return drawn

    def edge_cases(self, pool: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
        """Deterministic inputs at the pool's edges (all-min, all-empty, all-one, ...,
        all-max), each once per option of the widest ``one_of``, values at the ends of
        their ranges (the low end, and at the all-max shape the high end; an array holds
        both where it can)."""
        rng = np.random.default_rng(seed)
        edges = pool[:edge_count(self.variables)]
        options = max([len(s.options) for s in self._all_specs() if isinstance(s, OneOfSpec)] + [1])
        return [self.sample(assign, rng, Edge("high" if i == len(edges) - 1 else "low", k))
                for i, assign in enumerate(edges) for k in range(options)]

    def pool_cases(self, pool: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
        """One seeded input of every shape of the pool beyond its edges: hypothesis
        favours the pool's first entries, and a budget measured on generated inputs must
        see every shape the reference sees."""
        rng = np.random.default_rng([seed, 1])
        return [self.sample(assign, rng) for assign in pool[edge_count(self.variables):]]

    def _all_specs(self) -> list[Spec]:
        out, todo = [], list(self.specs.values())
        while todo:
            spec = todo.pop()
            out.append(spec)
            todo += spec._children() if isinstance(spec, _Container) else []
        return out

    def unreached(self, inputs: list[dict[str, Any]]) -> dict[str, list[str]]:
        """Per argument, the declared edges none of ``inputs`` reaches (empty when all are)."""
        out = {}
        for name, spec in self.specs.items():
            found = set()
            for args in inputs:
                if name in args:
                    found |= spec.reached(args[name])
            missing = [e for e in spec.edges() if e not in found]
            if missing:
                out[name] = missing
        return out


@functools.lru_cache(maxsize=1)
def _arguments():
    """The strategy of a whole argument list, made once: hypothesis reads a composite's
    source with ast when it is made, which threads grading a batch must not do at once."""
    @st.composite
    def arguments(draw, pool, specs):
        assign = draw(st.sampled_from(pool))
        drawn: dict[str, Any] = {}
        for name, spec in specs.items():
            drawn[name] = draw(spec.strategy(assign, drawn))
        return drawn
    return arguments


def data_leaves(specs: dict[str, Spec], args: dict[str, Any]) -> list[np.ndarray]:
    """The numbers of a call's arguments that are data, as the specs declare them: what a
    tolerance scales with (an argument without a spec counts whole)."""
    out = []
    for name, value in args.items():
        spec = specs.get(name)
        out += spec.data_leaves(value) if spec is not None else numeric_leaves(value)
    return out
