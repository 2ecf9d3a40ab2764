"""Is the learner's result the reference's result?  Structure, kind, dtype, then values.

Values are compared with a dtype-aware tolerance scaled to the data the result is
computed from, so that a correct answer summed in another order, or computed in
float64, passes, and a wrong one does not.  "Data" is what the task's argument specs
declare as data (``specs.data_leaves``): arrays and floats, never counts, sizes or
static parameters such as a Python int ``degree``, which would inflate the scale.

* ``elementwise``: |a - e| <= atol + rtol |e|, rtol = ulps eps, atol = ulps eps max|data|
* ``reduction``: atol = ulps eps sum|data|.  Rounding errors of a sum of n terms
  behave like a random walk: their spread is about sqrt(n) eps sum|x| whatever the
  order, so ulps defaults to 4 sqrt(n) + 8 (n: the number of data elements).  The
  worst case, n eps sum|x|, would let a float16 answer through.
* ``exact``: equal, element for element (integers, booleans)

eps is that of the reference's dtype (float32 when the reference gave a Python float).
NaN matches NaN, infinities match themselves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .values import eps_of, is_floating, is_scalar_like, kind_phrase, short
from .worker.wire import Leaf, Opaque


@dataclass(frozen=True)
class ResultSpec:
    type: str = "any"  # scalar | array | any (same structure as the reference)
    kind: str = "any"  # jax | numpy | any: what an array result must be
    dtype: str = "float"  # same | float | any | <a dtype name>
    containers: str = "loose"  # loose: a list may stand for a tuple; strict: not
    min: float | None = None  # no element may be below it (a distance is never negative)

    FIELDS = ("type", "kind", "dtype", "containers", "min", "doc")

    @classmethod
    def parse(cls, r) -> "ResultSpec":
        r.only(cls.FIELDS)
        spec = cls(
            type=r.get("type", str, "any"),
            kind=r.get("kind", str, "any"),
            dtype=r.get("dtype", str, "float"),
            containers=r.get("containers", str, "loose"),
            min=r.number("min", None),
        )
        for key, allowed in (
            ("type", ("scalar", "array", "any")),
            ("kind", ("jax", "numpy", "any")),
            ("containers", ("loose", "strict")),
        ):
            if getattr(spec, key) not in allowed:
                r.fail(f"must be one of {', '.join(allowed)}", key)
        return spec


@dataclass(frozen=True)
class Tolerance:
    mode: str = "elementwise"
    ulps: float | None = None
    rtol: float | None = None
    atol: float | None = None

    FIELDS = ("mode", "ulps", "rtol", "atol", "doc")

    @classmethod
    def parse(cls, r) -> "Tolerance":
        r.only(cls.FIELDS)
        tol = cls(
            mode=r.get("mode", str, "elementwise"),
            ulps=r.number("ulps", None, low=0),
            rtol=r.number("rtol", None, low=0),
            atol=r.number("atol", None, low=0),
        )
        if tol.mode not in ("elementwise", "reduction", "exact"):
            r.fail("must be one of elementwise, reduction, exact", "mode")
        return tol

    def bounds(self, dtype: np.dtype, data: list[np.ndarray]) -> tuple[float, float]:
        """(atol, rtol) for a result leaf of ``dtype`` computed from ``data`` (the
        arguments' data leaves, see ``specs.data_leaves``)."""
        if self.mode == "exact" or not is_floating(dtype):
            return 0.0, 0.0
        eps = eps_of(dtype)
        count = sum(a.size for a in data)
        if self.mode == "reduction":
            ulps = self.ulps if self.ulps is not None else 4 * math.sqrt(count) + 8
            scale = sum(float(np.abs(a).sum()) for a in data)
        else:
            ulps = self.ulps if self.ulps is not None else 8
            scale = max([1.0] + [float(np.abs(a).max()) for a in data if a.size])
        atol = self.atol if self.atol is not None else ulps * eps * scale
        rtol = self.rtol if self.rtol is not None else ulps * eps
        return atol, rtol


@dataclass
class Mismatch:
    message: str
    kind: str = "value"  # value | type | shape | dtype | structure | range


def compare(
    actual, expected, spec: ResultSpec, tol: Tolerance, data: list[np.ndarray]
) -> Mismatch | None:
    """None when ``actual`` is ``expected`` within ``tol``, scaled by ``data`` (the
    call's data leaves, ``specs.data_leaves``); else what differs."""
    if spec.type == "scalar":
        if not is_scalar_like(actual):
            return Mismatch(
                f"expected a scalar, but the function returned {kind_phrase(actual)}", "type"
            )
        return _leaf(actual, expected, spec, tol, data, "")
    if spec.type == "array" and not isinstance(actual, Leaf):
        return Mismatch(
            f"expected an array, but the function returned {kind_phrase(actual)}", "type"
        )
    return _tree(actual, expected, spec, tol, data, "")


def _where(path: str) -> str:
    return f" at {path}" if path else ""


def _tree(actual, expected, spec, tol, data, path):
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return Mismatch(
                f"expected a dict{_where(path)}, got {kind_phrase(actual)}", "structure"
            )
        if set(actual) != set(expected):
            missing = sorted(set(expected) - set(actual))
            extra = sorted(set(actual) - set(expected))
            parts = ([f"missing keys {missing}"] if missing else []) + (
                [f"unexpected keys {extra}"] if extra else []
            )
            return Mismatch(
                f"the dict{_where(path)} has the wrong keys: {'; '.join(parts)}", "structure"
            )
        for k in expected:
            m = _tree(actual[k], expected[k], spec, tol, data, f"{path}[{k!r}]")
            if m:
                return m
        return None
    if isinstance(expected, (list, tuple)):
        ok_types = (list, tuple) if spec.containers == "loose" else (type(expected),)
        if not isinstance(actual, ok_types):
            return Mismatch(
                f"expected a {type(expected).__name__}{_where(path)}, got {kind_phrase(actual)}",
                "structure",
            )
        if len(actual) != len(expected):
            return Mismatch(
                f"expected {len(expected)} items{_where(path)}, got {len(actual)}", "structure"
            )
        for i, (a, e) in enumerate(zip(actual, expected)):
            m = _tree(a, e, spec, tol, data, f"{path}[{i}]")
            if m:
                return m
        return None
    if isinstance(expected, Leaf) and expected.array.ndim == 0 and spec.type != "array":
        if not is_scalar_like(actual):
            return Mismatch(f"expected a scalar{_where(path)}, got {kind_phrase(actual)}", "type")
        return _leaf(actual, expected, spec, tol, data, path)
    if isinstance(expected, Leaf):
        if not isinstance(actual, Leaf):
            return Mismatch(f"expected an array{_where(path)}, got {kind_phrase(actual)}", "type")
        return _leaf(actual, expected, spec, tol, data, path)
    if expected is None or isinstance(expected, (str, Opaque)):
        return (
            None
            if short(actual) == short(expected)
            else Mismatch(f"expected {short(expected)}{_where(path)}, got {short(actual)}")
        )
    if not is_scalar_like(actual):
        return Mismatch(f"expected a number{_where(path)}, got {kind_phrase(actual)}", "type")
    return _leaf(actual, expected, spec, tol, data, path)


def _as_array(v) -> np.ndarray:
    return v.array if isinstance(v, Leaf) else np.asarray(v)


def _leaf(actual, expected, spec, tol, data, path):
    a, e = _as_array(actual), _as_array(expected)
    if (
        isinstance(actual, Leaf)
        and spec.kind != "any"
        and actual.kind != spec.kind
        and not (spec.kind == "numpy" and actual.kind == "npscalar")
    ):
        want = "a JAX array" if spec.kind == "jax" else "a NumPy array"
        return Mismatch(f"expected {want}{_where(path)}, got {kind_phrase(actual)}", "type")
    if a.shape != e.shape:
        return Mismatch(
            f"wrong shape{_where(path)}: expected {tuple(e.shape)}, got {tuple(a.shape)}", "shape"
        )
    dt = _dtype_problem(a.dtype, e.dtype, spec.dtype, isinstance(actual, Leaf))
    if dt:
        return Mismatch(dt + _where(path), "dtype")
    if spec.min is not None and a.dtype.kind in "fiu":
        below = _widened(a) < spec.min  # a NaN is not below: the values say it
        if below.any():
            return Mismatch(_describe_below(a, below, spec.min, path), "range")
    if tol.mode == "exact" or not is_floating(e.dtype):
        bad = ~_equal_exact(a, e)
        atol = rtol = 0.0
    else:
        eff = e.dtype if isinstance(expected, Leaf) else _named_dtype(spec.dtype)
        atol, rtol = tol.bounds(eff, data)
        bad = _outside(a, e, atol, rtol)
    if not bad.any():
        return None
    narrower = _narrower(a.dtype, e.dtype if isinstance(expected, Leaf) else None)
    if narrower:
        # the usual cause is the dtype itself: say that, not "2 of 3 elements differ"
        return Mismatch(
            f"wrong dtype{_where(path)}: expected {e.dtype}, got {a.dtype}, "
            f"{narrower}; {int(bad.sum())} of {bad.size} "
            f"element{'s' if bad.size != 1 else ''} differ by more than the "
            f"tolerance (a cast, or an input's dtype, made it compute in {a.dtype})",
            "dtype",
        )
    return Mismatch(_describe_values(a, e, bad, atol, rtol, path))


def _narrower(got: np.dtype, want: np.dtype | None) -> str:
    """How much less ``got`` holds than ``want``, when both are floating and it does."""
    if want is None or got == want or not (is_floating(got) and is_floating(want)):
        return ""
    if eps_of(got) <= eps_of(want):
        return ""
    digits = lambda d: max(1, round(-math.log10(eps_of(d))))
    return f"which keeps about {digits(got)} significant digits where {want} keeps {digits(want)}"


def _named_dtype(policy: str) -> np.dtype:
    """The dtype a Python-number expectation stands for: the one the task names, else
    float32, what JAX computes in."""
    from .worker.wire import dtype_from_name

    try:
        return dtype_from_name(policy)
    except ValueError:
        return np.dtype("float32")


def _widened(x: np.ndarray) -> np.ndarray:
    return (
        x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
        if is_floating(x.dtype) or x.dtype.kind in "iub"
        else x
    )


def _dtype_problem(got: np.dtype, want: np.dtype, policy: str, is_array: bool) -> str | None:
    if policy == "any":
        return None
    if policy == "same":
        if got != want:
            return f"wrong dtype: expected {want}, got {got}"
        return None
    if policy == "float":
        if is_floating(want) and not is_floating(got) and is_array:
            return f"wrong dtype: expected a floating-point result, got {got}"
        return None
    if got.name != policy:
        what = str(got) if is_array else f"a Python {'float' if got.kind == 'f' else 'number'}"
        return f"wrong dtype: expected {policy}, got {what}"
    return None


def _equal_exact(a, e):
    a, e = _widened(a), _widened(e)
    return np.asarray(a == e) | (_isnan(a) & _isnan(e))


def _isnan(x):
    return np.isnan(x) if x.dtype.kind in "fc" else np.zeros(x.shape, bool)


def _outside(a, e, atol, rtol):
    a64, e64 = _widened(a), _widened(e)
    if a64.dtype != e64.dtype:
        a64, e64 = a64.astype(np.complex128), e64.astype(np.complex128)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(a64 - e64) <= atol + rtol * np.abs(e64)
    nan_ok = np.isnan(a64) & np.isnan(e64)
    inf_ok = np.isinf(e64) & (a64 == e64)
    return ~(close | nan_ok | inf_ok)


def _fmt(x) -> str:
    """The shortest text that reads back as the same value of its own dtype."""
    if isinstance(x, (float, np.floating)):
        return np.format_float_positional(x, trim="0") if np.isfinite(x) else str(float(x))
    return str(x.item() if isinstance(x, np.generic) else x)


def _describe_below(a, below, low, path):
    if a.ndim == 0:
        return f"got {_fmt(a[()])}{_where(path)}, below the smallest allowed value, {_fmt(low)}"
    idx = tuple(int(i) for i in np.argwhere(below)[0])
    return (
        f"{int(below.sum())} of {a.size} elements are below the smallest allowed value, "
        f"{_fmt(low)}{_where(path)}; first at index {idx}: {_fmt(a[idx])}"
    )


def _describe_values(a, e, bad, atol, rtol, path):
    if a.ndim == 0:
        got, want = a[()], e[()]
        diff = ""
        if (atol or rtol) and a.dtype.kind != "c" and e.dtype.kind != "c":
            limit = atol + rtol * abs(float(want))
            off = abs(float(got) - float(want))
            # a NaN or inf expected makes both NaN: no number to show (issue 22)
            diff = (
                f" (off by {off:.3g}, tolerance {limit:.3g})"
                if math.isfinite(limit) and math.isfinite(off)
                else ""
            )
        return f"wrong value{_where(path)}: expected {_fmt(want)}, got {_fmt(got)}{diff}"
    idx = tuple(int(i) for i in np.argwhere(bad)[0])
    n_bad = int(bad.sum())
    return (
        f"{n_bad} of {a.size} elements differ{_where(path)}; first at index {idx}: "
        f"expected {_fmt(e[idx])}, got {_fmt(a[idx])}"
    )
