"""The base of every argument spec: the registry of spec types (``@spec_type``), the
``Spec`` interface, ``parse_spec``, the size limits a bank may ask for, hypothesis loaded
without plugins, and the value helpers the spec types share (ranges bound to dims, edges
of a value range, arrays drawn and sampled within it)."""

from __future__ import annotations

import functools
import math
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ...values import is_floating, numeric_leaves
from ...worker.wire import dtype_from_name
from .shapes import MAX_DIM, Dim  # noqa: F401  (MAX_DIM: one of the limits below)

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy


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
# Sizes the judge allocates while it draws inputs: a bank cannot ask for gigabytes
# (MAX_DIM, one dimension or one list's length, lives with the dims in shapes.py).
MAX_RANK = 8
MAX_ELEMENTS = 1 << 22  # one array, at its largest
JAX_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "uint8",
    "uint16",
    "uint32",
    "float16",
    "bfloat16",
    "float32",
    "complex64",
)


def spec_type(name: str) -> Callable[[type], type]:
    def register(cls):
        SPEC_TYPES[name] = cls
        cls.type_name = name
        return cls

    return register


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

    def strategy(self, assign: dict[str, Any], drawn: dict[str, Any]) -> SearchStrategy:
        raise NotImplementedError

    def sample(
        self, assign: dict[str, Any], drawn: dict[str, Any], rng, edge: "Edge | None" = None
    ) -> Any:
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

    def bind_mesh(self, mesh, r, steps: dict[str, int]) -> None:
        """Check this spec's ``sharding`` against the task's mesh (a ``mesh.MeshSpec``, or
        None: a name only, since mesh.py builds on this module) and note, in ``steps``,
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
        r.fail(
            f"unknown type '{kind}'"
            + (
                f" (did you mean '{close[0]}'?)"
                if close
                else f" (known: {', '.join(sorted(SPEC_TYPES))})"
            ),
            "type",
        )
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
            isinstance(end, (int, float)) and not isinstance(end, bool)
        )
        if not ok:
            r.fail(
                f"an end must be a number or a dimension name (n, n + 3, -n - 3), got {end!r}", key
            )
    return list(raw)


def _bound_dim(bound: str) -> str:
    """The dimension an end of a range names ('n' in '-n - 3')."""
    return _DIM_BOUND.match(bound).group(2)  # type: ignore[union-attr]  # bounds are checked as read


def _resolve(bound, assign) -> float:
    if not isinstance(bound, str):
        return bound
    negate, name, sign, offset = _DIM_BOUND.match(bound).groups()  # type: ignore[union-attr]  # as above
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
    found: set[str] = set()
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


def _elements(dtype: np.dtype, lo: float, hi: float) -> SearchStrategy:
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return st.integers(
            max(int(math.ceil(lo)), int(info.min)), min(int(math.floor(hi)), int(info.max))
        )
    width = 16 if dtype.itemsize <= 2 else 32 if dtype.itemsize <= 4 else 64
    if dtype.kind == "c":
        lo, hi = _representable(lo, hi, 32)
        f = st.floats(lo, hi, width=32, allow_nan=False, allow_subnormal=False)
        return st.builds(complex, f, f)
    lo, hi = _representable(lo, hi, width)
    return st.floats(
        lo, hi, width=width, allow_nan=False, allow_infinity=False, allow_subnormal=False
    )


def _representable(lo: float, hi: float, width: int) -> tuple[float, float]:
    """[lo, hi] narrowed to the nearest floats of that width inside it: 0.9 is no
    float32, and hypothesis refuses a bound its width cannot hold."""
    kind: Any = {16: np.float16, 32: np.float32, 64: np.float64}[width]
    low, high = kind(lo), kind(hi)
    if float(low) < lo:
        low = np.nextafter(low, kind(np.inf))
    if float(high) > hi:
        high = np.nextafter(high, kind(-np.inf))
    return float(low), float(high)


def _array_values(dtype: np.dtype, shape: tuple, lo, hi) -> SearchStrategy:
    from hypothesis.extra import numpy as hnp

    if dtype.name in ("bfloat16",) or dtype.kind == "V" or dtype.name.startswith("float8"):
        base = np.dtype("float32")
        return hnp.arrays(base, shape, elements=_elements(base, lo, hi)).map(
            functools.partial(_cast, dtype=dtype)
        )
    return hnp.arrays(dtype, shape, elements=_elements(dtype, lo, hi))


# Strategies take named functions, never lambdas: hypothesis reads a lambda's source with
# ast to describe it, and ast.parse from several threads at once (a batch grading in
# parallel) crashes CPython 3.11.
def _cast(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return a.astype(dtype)


def _arrays_of(names: list[str], shape: tuple, lo, hi) -> SearchStrategy:
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
        return np.asarray(
            rng.integers(int(math.ceil(lo)), int(math.floor(hi)) + 1, size=shape).astype(dtype)
        )
    return np.asarray(np.round(rng.uniform(lo, hi, size=shape), 2).astype(dtype))
