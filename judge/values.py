"""Value trees as they cross the channel (containers, scalars, ``Leaf``, ``Opaque``):
walking them, and showing them to a person."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from .worker.wire import Leaf, Opaque

SHOW_ELEMENTS = 16  # what a line of text shows of an array
NESTED_ELEMENTS = 4  # inside a tree, a leaf longer than this shows its shape and dtype only
# What a report holds of one array, in the JSON and in the replay snippet: every element
# up to this many (a pool's largest input is far below: 64 x 64 is 4,096), so a learner
# can call their function on exactly the failing input.  Above, the first ones and
# ``values_truncated`` (the element count): 65,536 float32 numbers are ~1 MB of JSON.
REPORT_ELEMENTS = 1 << 16


def leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from leaves(v)
    else:
        yield value


def is_floating(dtype: np.dtype) -> bool:
    """numpy's floats and complexes, and ml_dtypes' (bfloat16, float8_*: numpy kind 'V')."""
    return dtype.kind in "fc" or (dtype.kind == "V" and dtype.name.startswith(("bfloat", "float")))


def eps_of(dtype: np.dtype) -> float:
    if dtype.kind == "V":
        import ml_dtypes

        return float(ml_dtypes.finfo(dtype).eps)
    return float(np.finfo(dtype).eps)


def numeric_leaves(value) -> list[np.ndarray]:
    """Every numeric input as a float64 (or complex) array: the scale of a tolerance."""
    out = []
    for leaf in leaves(value):
        if isinstance(leaf, Leaf) and leaf.kind == "key":
            continue  # a random key's bits are not data: they scale nothing
        if isinstance(leaf, Leaf) and (
            is_floating(leaf.array.dtype) or leaf.array.dtype.kind in "iu"
        ):
            arr = leaf.array
            out.append(arr if arr.dtype.kind == "c" else arr.astype(np.float64))
        elif isinstance(leaf, (int, float)) and not isinstance(leaf, bool):
            out.append(np.asarray(float(leaf)))
    return out


def is_scalar_like(value) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    return (
        isinstance(value, Leaf)
        and value.array.ndim == 0
        and (value.array.dtype.kind in "iufcb" or is_floating(value.array.dtype))
    )


def kind_phrase(value) -> str:
    """'a float32 JAX array of shape (2,)', 'a str ('6')', 'None', ..."""
    if value is None:
        return "None (is a `return` missing?)"
    if isinstance(value, Leaf) and value.kind == "key":
        return "a JAX random key"
    if isinstance(value, Leaf):
        holder = {"jax": "JAX array", "numpy": "NumPy array", "npscalar": "NumPy scalar"}[
            value.kind
        ]
        if value.array.ndim == 0:
            return f"a {value.array.dtype} {holder} scalar"
        return f"a {value.array.dtype} {holder} of shape {tuple(value.array.shape)}"
    if isinstance(value, Opaque):
        return f"a {value.type_name} ({value.text[:60]})"
    if isinstance(value, (list, tuple, dict)):
        return f"a {type(value).__name__} of length {len(value)}"
    return f"a {type(value).__name__} ({short(value)})"


def short(value, limit: int = 80) -> str:
    text = repr(value) if not isinstance(value, Opaque) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def display(value: Any) -> Any:
    """JSON-able, readable form of a value tree for reports."""
    if isinstance(value, Leaf) and value.kind == "key":
        return {"kind": "key", "key": key_text(value)}
    if isinstance(value, Leaf):
        arr = value.array
        flat = arr.reshape(-1)
        shown = [_scalar(x) for x in flat[:REPORT_ELEMENTS]]
        out: dict[str, Any] = {
            "kind": value.kind,
            "dtype": str(arr.dtype),
            "shape": list(arr.shape),
        }
        if arr.ndim == 0:
            out["value"] = _scalar(arr[()])
        else:
            out["values"] = shown
            if flat.size > REPORT_ELEMENTS:
                out["values_truncated"] = int(flat.size)
        if value.weak:
            out["weak_type"] = True
        return out
    if isinstance(value, Opaque):
        return {"type": value.type_name, "repr": value.text}
    if isinstance(value, dict):
        return {"dict": {k: display(v) for k, v in value.items()}}
    if isinstance(value, tuple):
        return {"tuple": [display(v) for v in value]}
    if isinstance(value, list):
        return [display(v) for v in value]
    if isinstance(value, float):
        return _scalar(value)
    return value


def _scalar(x):
    """JSON-able, and as short as its own dtype allows (float32 -11.07, not -11.0699999)."""
    if isinstance(x, (np.floating, float)):
        if not np.isfinite(x):
            return str(float(x))
        return float(_shortest(x)) if isinstance(x, np.floating) else x
    if isinstance(x, (np.complexfloating, complex)):
        return str(complex(x))
    return x.item() if isinstance(x, np.generic) else x


def key_text(leaf: Leaf) -> str:
    """A random key as code that makes it: jax.random.key(42)."""
    data = [int(v) for v in leaf.array.reshape(-1)]
    if len(data) == 2 and data[0] == 0:
        return f"jax.random.key({data[1]})"
    return f"jax.random.wrap_key_data(jnp.array({data}, jnp.uint32))"


def render(value, nested: bool = False) -> str:
    """One-line text for a terminal: float32[3] [1.0, -2.5, 0.0].  Inside a container a
    leaf with more than a few values shows its dtype and shape only, so a tree reads as
    the learner wrote it: {'w': float32[3, 4], 'b': float32[4] [0.1, 0.2, 0.3, 0.4]}."""
    if isinstance(value, Leaf) and value.kind == "key":
        return key_text(value)
    if isinstance(value, Leaf):
        arr = value.array
        prefix = {"jax": "", "numpy": "np.", "npscalar": "np."}[value.kind]
        if arr.ndim == 0:
            return f"{prefix}{arr.dtype}({_num(arr[()])})"
        if nested and arr.size > NESTED_ELEMENTS:
            return f"{prefix}{arr.dtype}{list(arr.shape)}"
        vals = ", ".join(_num(x) for x in arr.reshape(-1)[:SHOW_ELEMENTS])
        more = f", ... ({arr.size} in all)" if arr.size > SHOW_ELEMENTS else ""
        nested_note = "" if arr.ndim == 1 or arr.size <= 1 else " (flattened)"
        return f"{prefix}{arr.dtype}{list(arr.shape)} [{vals}{more}]{nested_note}"
    if isinstance(value, Opaque):
        return f"{value.type_name}: {value.text[:60]}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {render(v, True)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        return (
            "(" + ", ".join(render(v, True) for v in value) + ("," if len(value) == 1 else "") + ")"
        )
    if isinstance(value, list):
        return "[" + ", ".join(render(v, True) for v in value) + "]"
    if isinstance(value, float):
        return _num(value)
    return short(value)


def _num(x) -> str:
    if isinstance(x, (float, np.floating)):
        return _shortest(x) if np.isfinite(x) else str(float(x))
    return repr(x.item() if isinstance(x, np.generic) else x)


def _shortest(x) -> str:
    """The fewest digits that give back ``x`` in its own dtype: positional where that is
    short (-11.07), scientific for tiny and huge magnitudes (-7.071321e-31, not thirty
    zeros)."""
    magnitude = abs(float(x))
    if magnitude and not 1e-4 <= magnitude < 1e16:
        return np.format_float_scientific(x, trim="0")
    return np.format_float_positional(x, trim="0")


def first_difference(a, b, path: str = "") -> str | None:
    """Where two value trees differ bit for bit (None when they are identical): a
    NaN payload, -0.0 against 0.0, a dtype, a weak type or a container type counts."""
    where = f" at {path}" if path else ""
    if type(a) is not type(b):
        return f"{kind_phrase(a)} then {kind_phrase(b)}{where}"
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"keys {list(a)} then {list(b)}{where}"
        return next(filter(None, (first_difference(a[k], b[k], f"{path}[{k!r}]") for k in a)), None)
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{len(a)} items then {len(b)}{where}"
        return next(
            filter(
                None, (first_difference(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b)))
            ),
            None,
        )
    if isinstance(a, Leaf):
        x, y = a.array, b.array
        if (a.kind, a.weak, x.dtype, x.shape) != (b.kind, b.weak, y.dtype, y.shape):
            return f"{kind_phrase(a)} then {kind_phrase(b)}{where}"
        xb = np.ascontiguousarray(x).view(np.uint8).reshape(x.shape + (-1,)) if x.size else x
        yb = np.ascontiguousarray(y).view(np.uint8).reshape(y.shape + (-1,)) if y.size else y
        if x.size == 0 or np.array_equal(xb, yb):
            return None
        if x.ndim == 0:
            return f"{_num(x[()])} then {_num(y[()])}{where}"
        idx = tuple(int(i) for i in np.argwhere((xb != yb).any(axis=-1))[0])
        return f"{_num(x[idx])} then {_num(y[idx])}{where}, element {idx}"
    if isinstance(a, float):
        same = np.float64(a).tobytes() == np.float64(b).tobytes()
        return None if same else f"{_num(a)} then {_num(b)}{where}"
    if isinstance(a, Opaque):
        return (
            None
            if (a.type_name, a.text) == (b.type_name, b.text)
            else f"{a.text[:40]} then {b.text[:40]}{where}"
        )
    return None if a == b else f"{short(a, 40)} then {short(b, 40)}{where}"


def render_shown(value, nested: bool = False) -> str:
    """A value in its display form (``display``: what a report stores) as the learner
    would write it: ``{'dense': {'w': float32[2, 3], 'b': float32[3] [0.1, 0.2, 0.3]}}``.
    Trees stay on one line: a leaf inside one shows its values only when they are few."""
    if isinstance(value, dict) and value.get("kind") == "key" and "key" in value:
        return value["key"]  # jax.random.key(42)
    if isinstance(value, dict) and "dtype" in value and "shape" in value:
        return _render_leaf(value, nested)
    if isinstance(value, dict) and set(value) == {"type", "repr"}:
        return f"{value['type']}: {str(value['repr'])[:60]}"
    if isinstance(value, dict) and set(value) == {"dict"}:
        items = value["dict"]
        return "{" + ", ".join(f"{k!r}: {render_shown(v, True)}" for k, v in items.items()) + "}"
    if isinstance(value, dict) and set(value) == {"tuple"}:
        items = [render_shown(v, True) for v in value["tuple"]]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(render_shown(v, True) for v in value) + "]"
    if isinstance(value, float):
        return _num(value)
    return short(value)


def _render_leaf(leaf: dict, nested: bool) -> str:
    prefix = "np." if leaf.get("kind") in ("numpy", "npscalar") else ""
    dtype, shape = leaf["dtype"], list(leaf["shape"])
    weak = " (weak)" if leaf.get("weak_type") else ""
    if "value" in leaf:
        return f"{prefix}{dtype}({_shown_number(leaf['value'])}){weak}"
    size = leaf.get("values_truncated") or int(np.prod(shape, dtype=np.int64))
    head = f"{prefix}{dtype}{shape}{weak}"
    if nested and size > NESTED_ELEMENTS:
        return head
    vals = ", ".join(_shown_number(x) for x in leaf.get("values", [])[:SHOW_ELEMENTS])
    more = f", ... ({size} in all)" if size > SHOW_ELEMENTS else ""
    flat = " (flattened)" if len(shape) > 1 and size > 1 else ""
    return f"{head} [{vals}{more}]{flat}"


def _shown_number(x) -> str:
    return _num(x) if isinstance(x, float) else str(x)


# ---------------------------------------------------------------- replaying a failure


def replay_snippet(
    entrypoint: str, args: dict[str, Any], note: str = "", call: str | None = None
) -> str:
    """Python a learner pastes into a cell to call their function on exactly ``args``
    (hypothesis's ``@example``, for a notebook): each argument as code that makes it,
    arrays with their dtype, shape and every value (up to ``REPORT_ELEMENTS``), trees
    as written, then the call, ``entrypoint(a=a, b=b)``.  ``call`` replaces that last
    line where the check calls the function otherwise (the gradient check:
    ``jax.value_and_grad(...)(a, b)``), written with the arguments' names; ``note`` is a
    comment line above it (which call of a script it was, what the check looks at)."""
    lines = ["import numpy as np", "import jax", "import jax.numpy as jnp"]
    notes: list[str] = []
    for name, value in args.items():
        lines.append(f"{name} = {_as_code(value, notes)}")
    if call is None:
        call = f"{entrypoint}(" + ", ".join(f"{name}={name}" for name in args) + ")"
    said = [f"# {line}" for line in note.splitlines()] if note else []
    return "\n".join(lines + said + [call] + [f"# {n}" for n in dict.fromkeys(notes)])


def _as_code(value: Any, notes: list[str]) -> str:
    if isinstance(value, Leaf) and value.kind == "key":
        return key_text(value)
    if isinstance(value, Leaf):
        return _array_code(value, notes)
    if isinstance(value, Opaque):
        notes.append(f"a {value.type_name} cannot be written as code: it was {value.text[:60]}")
        return "None"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_as_code(v, notes)}" for k, v in value.items()) + "}"
    if isinstance(value, tuple):
        items = [_as_code(v, notes) for v in value]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_as_code(v, notes) for v in value) + "]"
    if isinstance(value, float):
        return _number_code(value)
    return repr(value)


def _array_code(leaf: Leaf, notes: list[str]) -> str:
    arr = leaf.array
    module = "np" if leaf.kind in ("numpy", "npscalar") else "jnp"
    dtype = f"{module}.{arr.dtype.name}" if arr.dtype.name != "bool" else f"{module}.bool_"
    if leaf.kind == "npscalar":
        return f"{dtype}({_number_code(arr[()])})"
    if arr.ndim == 0:
        if leaf.weak:  # a Python number jax holds without a dtype of its own
            return f"jnp.asarray({_number_code(arr[()].item())})"
        return f"{module}.array({_number_code(arr[()])}, dtype={dtype})"
    flat = arr.reshape(-1)
    if flat.size > REPORT_ELEMENTS:
        notes.append(
            f"an array of {flat.size} elements is more than a report holds "
            f"({REPORT_ELEMENTS}): the zeros stand in for its values"
        )
        body = f"{module}.zeros({tuple(arr.shape)}, dtype={dtype})"
    else:
        values = "[" + ", ".join(_number_code(x) for x in flat) + "]"
        body = f"{module}.array({values}, dtype={dtype})"
        if arr.ndim != 1:
            body += f".reshape{tuple(arr.shape)}"
    if leaf.sharding:
        notes.append(
            "the judge placed the arrays on the task's mesh: place them the same way "
            "(jax.device_put) to replay the layout too"
        )
    return body


def _number_code(x: Any) -> str:
    """A number as Python that gives back exactly this value in its dtype."""
    if isinstance(x, (bool, np.bool_)):
        return repr(bool(x))
    if isinstance(x, (np.complexfloating, complex)):
        return repr(complex(x))
    if isinstance(x, (float, np.floating)):
        if np.isnan(x):
            return "np.nan"
        if np.isinf(x):
            return "np.inf" if x > 0 else "-np.inf"
        return _shortest(x) if isinstance(x, np.floating) else repr(x)
    return repr(x.item() if isinstance(x, np.generic) else x)
