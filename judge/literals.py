"""Values written in tasks.yaml: statement examples and scripted calls.

Plain YAML scalars, lists and mappings are Python values.  A mapping with one
``$``-key says what YAML cannot:

  {$array: [1, 2], dtype: float32, kind: jax}   an array (kind jax or numpy)
  {$scalar: 2.0, dtype: float32, kind: numpy}   a NumPy scalar or a JAX 0-d array
  {$tuple: [a, b]}                              a tuple
  {$key: 42}                                    the random key jax.random.key(42)
  {$random: {shape: [8], dtype: float32, kind: jax, values: [-1, 1]}}
                                                seeded values of that shape
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .specs import MAX_ELEMENTS, MAX_RANK
from .worker.wire import Leaf, dtype_from_name


@dataclass(frozen=True)
class RandomArray:
    shape: tuple
    dtype: str
    kind: str
    lo: float
    hi: float
    sharding: dict | None = None  # where the worker places it (its argument's spec says)

    def make(self, rng: np.random.Generator) -> Leaf:
        from .specs import sample_values

        return Leaf(
            sample_values(dtype_from_name(self.dtype), self.shape, self.lo, self.hi, rng),
            self.kind,
            sharding=self.sharding,
        )


MARKERS = ("$array", "$scalar", "$tuple", "$random", "$key")


def parse_value(raw, r, key: str):
    """YAML -> value tree (Leaf for arrays, RandomArray placeholders for $random)."""
    if isinstance(raw, list):
        return [parse_value(v, r, f"{key}[{i}]") for i, v in enumerate(raw)]
    if not isinstance(raw, dict):
        return raw
    marks = [k for k in raw if isinstance(k, str) and k.startswith("$")]
    if not marks:
        return {str(k): parse_value(v, r, f"{key}.{k}") for k, v in raw.items()}
    sub = r.reader_at(f"{r.path}.{key}" if r.path else key, raw)
    mark = marks[0]
    if len(marks) > 1 or mark not in MARKERS:
        sub.fail(f"one of {', '.join(MARKERS)} expected, got {', '.join(marks)}")
    if mark == "$tuple":
        sub.only(("$tuple",))
        return tuple(
            parse_value(v, r, f"{key}[{i}]") for i, v in enumerate(sub.get("$tuple", list))
        )
    if mark == "$key":
        from .specs import key_leaf

        sub.only(("$key",))
        seed = sub.get("$key", int)
        if not 0 <= seed < 2**32:
            sub.fail("a key's seed is an integer with 0 <= seed < 2**32", "$key")
        return key_leaf(seed)
    if mark == "$random":
        sub.only(("$random",))
        rr = sub.child("$random")
        rr.only(("shape", "dtype", "kind", "values"))
        shape = rr.get("shape", list)
        if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
            rr.fail("must be a list of sizes", "shape")
        if len(shape) > MAX_RANK or math.prod(shape) > MAX_ELEMENTS:
            rr.fail(
                f"is {math.prod(shape):,} elements; an array has at most {MAX_ELEMENTS:,} "
                f"(and rank {MAX_RANK})",
                "shape",
            )
        lo, hi = rr.get("values", list, [-1.0, 1.0])
        return RandomArray(tuple(shape), _dtype(rr), _kind(rr), lo, hi)
    sub.only((mark, "dtype", "kind"))
    dtype = dtype_from_name(_dtype(sub))
    try:
        data = np.asarray(sub.data[mark], dtype=np.float64 if dtype.name == "bfloat16" else None)
        arr = data.astype(dtype)
    except (TypeError, ValueError) as exc:
        sub.fail(f"cannot make a {dtype} array: {exc}", mark)
    kind = _kind(sub)
    if mark == "$scalar":
        if arr.ndim:
            sub.fail("a $scalar takes one number", mark)
        return Leaf(arr, "npscalar" if kind == "numpy" else "jax")
    return Leaf(arr, kind)


def _dtype(r) -> str:
    name = r.get("dtype", str, "float32")
    try:
        dtype_from_name(name)
    except ValueError:
        r.fail(f"unknown dtype '{name}'", "dtype")
    return name


def _kind(r) -> str:
    kind = r.get("kind", str, "jax")
    if kind not in ("jax", "numpy"):
        r.fail("must be 'jax' or 'numpy'", "kind")
    return kind


def materialize(value, rng: np.random.Generator):
    """Replace $random placeholders by seeded arrays."""
    if isinstance(value, RandomArray):
        return value.make(rng)
    if isinstance(value, list):
        return [materialize(v, rng) for v in value]
    if isinstance(value, tuple):
        return tuple(materialize(v, rng) for v in value)
    if isinstance(value, dict):
        return {k: materialize(v, rng) for k, v in value.items()}
    return value


def _call_args(r, raw, arg_names: list[str]) -> dict:
    ar = r.reader_at(r.path + ".args", raw)
    for name in ar.data:
        if name not in arg_names:
            ar.only(arg_names)
    missing = [n for n in arg_names if n not in ar.data]
    if missing:
        ar.fail(f"missing argument(s) {', '.join(missing)}")
    return {n: parse_value(ar.data[n], ar, n) for n in arg_names}


@dataclass(frozen=True)
class Example:
    """A worked example of the statement: arguments, and the answer it gives."""

    args: dict[str, Any]  # name -> value tree
    expect: Any  # value tree, or ... when the statement gives none
    note: str = ""


def parse_example(r, arg_names: list[str]) -> Example:
    r.only(("args", "expect", "note"))
    args = _call_args(r, r.get("args", dict), arg_names)
    expect = parse_value(r.data["expect"], r, "expect") if "expect" in r.data else ...
    return Example(args=args, expect=expect, note=r.get("note", str, ""))


def parse_calls(scripts_r, name: str, arg_names: list[str]) -> list[dict]:
    """A script: a list of calls, each ``{args: {...}, repeat: n}``; expanded in order."""
    raw = scripts_r.get(name, list)
    calls = []
    for i, entry in enumerate(raw):
        r = scripts_r.reader_at(f"scripts.{name}[{i}]", entry)
        r.only(("args", "repeat", "note"))
        args = _call_args(r, r.get("args", dict), arg_names)
        repeat = r.get("repeat", int, 1)
        if repeat < 1:
            r.fail("must be at least 1", "repeat")
        calls += [args] * repeat
    if not calls:
        scripts_r.fail("a script needs at least one call", name)
    return calls
