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
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .worker.wire import Leaf, dtype_from_name


class _Strategies:
    """hypothesis.strategies, imported on first use: loading a bank (every command
    does) should not pay for hypothesis, and `judge run` starts its workers first."""

    def __getattr__(self, name):
        from hypothesis import strategies

        return getattr(strategies, name)


st = _Strategies()

SPEC_TYPES: dict[str, type["Spec"]] = {}
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
        return int(rng.integers(self.lo // self.step, self.hi // self.step + 1)) * self.step


def parse_dims(r) -> dict[str, Dim]:
    dims = {}
    for name, bounds in r.data.items():
        if not (isinstance(bounds, list) and len(bounds) == 2
                and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
                and 0 <= bounds[0] <= bounds[1]):
            r.fail("must be [low, high], two integers with 0 <= low <= high", str(name))
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


def shape_pool(variables: list, seed: int, size: int) -> list[dict[str, Any]]:
    """A few assignments of every variable: all-min first, then all-one, all-max,
    each variable alone at its minimum, then seeded random ones up to ``size``."""
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
            add({w.name: (w.candidates()[0] if w is v else w.draw(rng)) for w in variables})
            add({w.name: (w.candidates()[-1] if w is v else w.draw(rng)) for w in variables})
    tries = 0
    while len(pool) < size and tries < 50 * size:
        tries += 1
        add({v.name: v.draw(rng) for v in variables})
    return pool


# ---------------------------------------------------------------- specs

class Spec:
    type_name = "?"
    FIELDS: tuple[str, ...] = ("type",)

    def __init__(self, r, dims: dict[str, Dim], name: str):
        self.name = name

    def variables(self) -> list:
        """Shape variables this spec adds to the pool (beyond named dims)."""
        return []

    def dims_used(self) -> set[str]:
        return set()

    def strategy(self, assign: dict[str, Any], drawn: dict[str, Any]) -> st.SearchStrategy:
        raise NotImplementedError

    def sample(self, assign: dict[str, Any], drawn: dict[str, Any], rng) -> Any:
        raise NotImplementedError

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


def _range(r, key: str, default, dims: dict[str, Dim]):
    """[low, high]; an end may name a dimension (entries in [0, T])."""
    raw = r.get(key, list, default)
    if not (isinstance(raw, list) and len(raw) == 2):
        r.fail("must be [low, high]", key)
    for end in raw:
        ok = (isinstance(end, str) and end in dims) or (
            isinstance(end, (int, float)) and not isinstance(end, bool))
        if not ok:
            r.fail(f"an end must be a number or a dimension name, got {end!r}", key)
    return list(raw)


def _resolve(bound, assign) -> float:
    return assign[bound] if isinstance(bound, str) else bound


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
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(int(math.ceil(lo)), int(math.floor(hi)) + 1, size=shape).astype(dtype)
    return np.round(rng.uniform(lo, hi, size=shape), 2).astype(dtype)


@spec_type("array")
class ArraySpec(Spec):
    """A JAX or NumPy array: dtype(s), shape of ints and dimension names, value range.

    ``shape`` is a list (``[n, 3]``) or ``{rank: [0, 2], size: [0, 8]}`` for any rank."""

    FIELDS = ("type", "kind", "dtype", "shape", "values", "min_spread", "sharding", "doc")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
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
        raw = r.get("shape", (list, dict))
        self.free: FreeShape | None = None
        if isinstance(raw, dict):
            sr = r.child("shape")
            sr.only(("rank", "size"))
            rank = _range(sr, "rank", [0, 2], {})
            size = _range(sr, "size", [0, 8], {})
            self.free = FreeShape(f"{name}.shape", int(rank[0]), int(rank[1]), int(size[0]), int(size[1]))
            self.shape: list = []
        else:
            for d in raw:
                if not ((isinstance(d, int) and not isinstance(d, bool) and d >= 0) or
                        (isinstance(d, str) and d in dims)):
                    r.fail(f"each entry is a size or a name from dims ({', '.join(dims) or 'none declared'}), got {d!r}", "shape")
            self.shape = list(raw)

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
        return used | {b for b in self.values if isinstance(b, str)}

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

    def sample(self, assign, drawn, rng):
        dtype = dtype_from_name(self.dtypes[int(rng.integers(0, len(self.dtypes)))])
        lo, hi = self._bounds(assign)
        values = sample_values(dtype, self.concrete_shape(assign), lo, hi, rng)
        if self.min_spread and not _spread_enough(values, self.min_spread):
            values.reshape(-1)[[0, -1]] = np.asarray([lo, hi], dtype)
        return Leaf(values, self.kind, sharding=self.layout)

    def describe(self):
        shape = "any rank" if self.free else "[" + ", ".join(map(str, self.shape)) + "]"
        return (f"{self.kind} {'|'.join(self.dtypes)}{shape} in [{self.values[0]}, "
                f"{self.values[1]}]" + _placement_words(self.layout))


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
        return [int(rng.integers(self.size_lo, self.size_hi + 1)) for _ in range(rank)]


@spec_type("scalar")
class TypedScalarSpec(Spec):
    """A 0-d typed scalar: a NumPy scalar (np.float32(2.0)) or a JAX 0-d array."""

    FIELDS = ("type", "kind", "dtype", "values", "sharding", "doc")

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

    def _leaf(self, arr):
        return Leaf(arr, "npscalar" if self.kind == "numpy" else "jax", sharding=self.layout)

    def strategy(self, assign, drawn):
        lo, hi = _resolve(self.values[0], assign), _resolve(self.values[1], assign)
        return _arrays_of(self.dtypes, (), lo, hi).map(self._leaf)

    def sample(self, assign, drawn, rng):
        lo, hi = _resolve(self.values[0], assign), _resolve(self.values[1], assign)
        return self._leaf(sample_values(dtype_from_name(self.dtypes[0]), (), lo, hi, rng))

    def describe(self):
        return (f"{'NumPy' if self.kind == 'numpy' else 'JAX'} {'|'.join(self.dtypes)} scalar"
                + _placement_words(self.layout))


@spec_type("float")
class FloatSpec(Spec):
    """A Python float."""

    FIELDS = ("type", "values", "doc")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.values = _range(r, "values", [-10.0, 10.0], dims)

    def strategy(self, assign, drawn):
        lo, hi = (_resolve(b, assign) for b in self.values)
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False, allow_subnormal=False)

    def sample(self, assign, drawn, rng):
        lo, hi = (_resolve(b, assign) for b in self.values)
        return float(round(rng.uniform(lo, hi), 2))

    def describe(self):
        return f"Python float in [{self.values[0]}, {self.values[1]}]"


@spec_type("int")
class IntSpec(Spec):
    """A Python int."""

    FIELDS = ("type", "values", "doc")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.values = _range(r, "values", [0, 10], dims)

    def dims_used(self):
        return {b for b in self.values if isinstance(b, str)}

    def strategy(self, assign, drawn):
        lo, hi = (int(_resolve(b, assign)) for b in self.values)
        return st.integers(lo, hi)

    def sample(self, assign, drawn, rng):
        lo, hi = (int(_resolve(b, assign)) for b in self.values)
        return int(rng.integers(lo, hi + 1))

    def describe(self):
        return f"Python int in [{self.values[0]}, {self.values[1]}]"


@spec_type("bool")
class BoolSpec(Spec):
    FIELDS = ("type", "doc")

    def strategy(self, assign, drawn):
        return st.booleans()

    def sample(self, assign, drawn, rng):
        return bool(rng.integers(0, 2))

    def describe(self):
        return "Python bool"


class _Container(Spec):
    def _children(self) -> list[Spec]:
        raise NotImplementedError

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

    FIELDS = ("type", "items", "length", "min_spread", "doc")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.min_spread = float(r.number("min_spread", 0.0, low=0))
        self.items = parse_spec(r.child("items"), dims, f"{name}[]")
        self.length = r.get("length", (int, str))
        if isinstance(self.length, str) and self.length not in dims:
            r.fail(f"'{self.length}' is not declared in dims", "length")

    def _children(self):
        return [self.items]

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

    def sample(self, assign, drawn, rng):
        out = [self.items.sample(assign, drawn, rng) for _ in range(self._n(assign))]
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

    FIELDS = ("type", "items", "as", "doc")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        raw = r.get("items", list)
        self.items = [parse_spec(r.reader_at(f"{r.path}.items[{i}]", it), dims, f"{name}[{i}]")
                      for i, it in enumerate(raw)]
        self.container = tuple if r.get("as", str, "tuple") == "tuple" else list

    def _children(self):
        return self.items

    def strategy(self, assign, drawn):
        return st.tuples(*(i.strategy(assign, drawn) for i in self.items)).map(self.container)

    def sample(self, assign, drawn, rng):
        return self.container(i.sample(assign, drawn, rng) for i in self.items)

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

    FIELDS = ("type", "fields", "key_orders", "doc")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        fr = r.child("fields")
        self.fields = {str(k): parse_spec(fr.child(str(k)), dims, f"{name}.{k}") for k in fr.data}
        self.key_orders = r.get("key_orders", bool, False)

    def _children(self):
        return list(self.fields.values())

    def strategy(self, assign, drawn):
        base = st.fixed_dictionaries({k: s.strategy(assign, drawn) for k, s in self.fields.items()})
        if not self.key_orders:
            return base
        return st.tuples(base, st.permutations(list(self.fields))).map(_reorder)

    def sample(self, assign, drawn, rng):
        return {k: s.sample(assign, drawn, rng) for k, s in self.fields.items()}

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

    FIELDS = ("type", "options", "doc")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        raw = r.get("options", list)
        if not raw:
            r.fail("needs at least one option", "options")
        self.options = [parse_spec(r.reader_at(f"{r.path}.options[{i}]", o), dims, name)
                        for i, o in enumerate(raw)]

    def _children(self):
        return self.options

    def strategy(self, assign, drawn):
        return st.one_of(*(o.strategy(assign, drawn) for o in self.options))

    def sample(self, assign, drawn, rng):
        return self.options[int(rng.integers(0, len(self.options)))].sample(assign, drawn, rng)

    def describe(self):
        return " or ".join(o.describe() for o in self.options)


@dataclass(frozen=True)
class TreeShape(ShapeVar):
    """A nested dict structure with the shape of every leaf."""
    name: str
    depth: int
    keys_lo: int
    keys_hi: int
    rank_hi: int
    size_hi: int

    def candidates(self):
        one = {"w": [1]}
        full = self._full(self.depth)
        return [{}, one, full]

    def _full(self, depth):
        out = {}
        for i in range(self.keys_hi):
            key = "abcdefgh"[i]
            out[key] = self._full(depth - 1) if depth > 0 and i == 0 else [self.size_hi] * self.rank_hi
        return out

    def draw(self, rng, depth=None):
        depth = self.depth if depth is None else depth
        out = {}
        for i in range(int(rng.integers(max(self.keys_lo, 1), self.keys_hi + 1))):
            key = ["w", "b", "scale", "emb", "gamma", "beta"][i % 6] + ("" if i < 6 else str(i))
            if depth > 0 and rng.random() < 0.3:
                out[key] = self.draw(rng, depth - 1)
            else:
                rank = int(rng.integers(0, self.rank_hi + 1))
                out[key] = [int(rng.integers(0, self.size_hi + 1)) for _ in range(rank)]
        return out


@spec_type("tree")
class TreeSpec(Spec):
    """A nested dict of arrays (e.g. model parameters); ``like: other_arg`` reuses that
    argument's structure and leaf shapes with fresh values."""

    FIELDS = ("type", "kind", "dtype", "values", "depth", "keys", "rank", "size", "like", "doc")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.kind = r.get("kind", str, "jax")
        self.dtypes = _dtype_list(r, "float32")
        self.values = _range(r, "values", [-10.0, 10.0], dims)
        self.like = r.get("like", str, None)
        keys = _range(r, "keys", [0, 3], {})
        self.shape_var = TreeShape(f"{self.like or name}.tree", int(r.get("depth", int, 1)),
                                   int(keys[0]), int(keys[1]), int(r.get("rank", int, 2)),
                                   int(r.get("size", int, 4)))

    def variables(self):
        return [] if self.like else [self.shape_var]

    def _build(self, structure, make_leaf):
        if isinstance(structure, dict):
            return {k: self._build(v, make_leaf) for k, v in structure.items()}
        return make_leaf(tuple(structure))

    def strategy(self, assign, drawn):
        structure = assign[self.shape_var.name]
        leaves = []
        self._build(structure, lambda s: leaves.append(s))
        dtype = dtype_from_name(self.dtypes[0])
        lo, hi = self.values
        leaf_strats = [_array_values(dtype, s, lo, hi) for s in leaves]

        def assemble(arrays):
            it = iter(arrays)
            return self._build(structure, lambda s: Leaf(next(it), self.kind))
        return st.tuples(*leaf_strats).map(assemble)

    def sample(self, assign, drawn, rng):
        dtype = dtype_from_name(self.dtypes[0])
        return self._build(assign[self.shape_var.name],
                           lambda s: Leaf(sample_values(dtype, s, *self.values, rng), self.kind))

    def describe(self):
        return f"nested dict of {self.kind} {'|'.join(self.dtypes)} arrays" + (
            f" shaped like {self.like}" if self.like else "")


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
        @st.composite
        def args(draw):
            assign = draw(st.sampled_from(pool))
            drawn: dict[str, Any] = {}
            for name, spec in self.specs.items():
                drawn[name] = draw(spec.strategy(assign, drawn))
            return drawn
        return args()

    def sample(self, assign: dict[str, Any], rng) -> dict[str, Any]:
        drawn: dict[str, Any] = {}
        for name, spec in self.specs.items():
            drawn[name] = spec.sample(assign, drawn, rng)
        return drawn

    def edge_cases(self, pool: list[dict[str, Any]], seed: int) -> list[dict[str, Any]]:
        """Deterministic inputs at the pool's edges: all-min, (all-empty), all-one, all-max."""
        rng = np.random.default_rng(seed)
        return [self.sample(assign, rng) for assign in pool[:edge_count(self.variables)]]
