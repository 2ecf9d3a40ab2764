"""The one channel between the judge and a worker: framing and the value codec.

Both sides import this module, so it needs nothing but numpy (and ml_dtypes for the
dtype names numpy lacks).  Everything read here may come from untrusted code: every
length is checked against a cap before anything is allocated, nothing is unpickled,
and any malformed input raises WireError and nothing else.

A frame is ``MAGIC | token(16) | seq(u32) | header_len(u32) | header JSON | blobs``,
each blob ``len(u64) | .npy bytes``; the header says how many blobs follow.  The token
is a per-worker secret sent in the first message, so bytes a learner writes to some
descriptor do not parse as a frame by accident.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import struct
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Sequence

MAGIC = b"JJW1"
TOKEN_LEN = 16
MAX_HEADER = 4 << 20
MAX_BLOB = 256 << 20
MAX_BLOBS = 4096
MAX_DEPTH = 48
MAX_NODES = 200_000
MAX_STR = 2000

_FIXED = struct.Struct("<4s16sII")
_BLOB_LEN = struct.Struct("<Q")

# numpy's own dtypes cross as themselves; these cross as raw unsigned bits plus their name.
_EXTENDED = (
    "bfloat16",
    "float8_e4m3fn",
    "float8_e5m2",
    "float8_e4m3b11fnuz",
    "float8_e4m3fnuz",
    "float8_e5m2fnuz",
    "int4",
    "uint4",
)
_PLAIN = {
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
}


class WireError(ValueError):
    """The bytes on the channel are not a well-formed message."""


def dtype_from_name(name: str) -> np.dtype:
    if name in _PLAIN:
        return np.dtype(name)
    if name in _EXTENDED:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))
    raise WireError(f"dtype {name!r} is not allowed on the channel")


def _bits_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(f"<u{dt.itemsize}")


# ---------------------------------------------------------------- arrays as .npy bytes


def array_to_npy(arr: np.ndarray) -> tuple[str, bytes]:
    arr = np.asarray(arr)
    name = arr.dtype.name
    dtype_from_name(name)  # refuse what the other side would refuse
    if name in _EXTENDED:
        arr = arr.view(_bits_dtype(arr.dtype))
    buf = io.BytesIO()
    np.save(buf, arr if arr.flags.c_contiguous else arr.copy(order="C"), allow_pickle=False)
    return name, buf.getvalue()


_NPY_MAGIC = b"\x93NUMPY"
# What np.save writes for a plain array; anything else is refused.  Parsed by hand, not
# with numpy's reader: that one uses ast.literal_eval, which crashes CPython 3.11 when
# two threads parse at once (a batch grades in threads), and is more than we need.
_NPY_HEADER = re.compile(
    r"\{'descr': '(?P<descr>[<>|=][a-z]\d{1,2})', 'fortran_order': (?P<fortran>True|False), "
    r"'shape': \((?P<shape>(?:\d+, )*\d*,?)\), \} *\n?$"
)


def _npy_header(data: bytes) -> tuple[tuple, bool, np.dtype, int]:
    """(shape, fortran order, dtype, offset of the body) of .npy bytes."""
    if len(data) < 10 or data[:6] != _NPY_MAGIC:
        raise WireError("not .npy bytes")
    major = data[6]
    if major == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    elif major in (2, 3):
        if len(data) < 12:
            raise WireError("truncated .npy header")
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    else:
        raise WireError("unknown .npy version")
    if hlen > 4096 or start + hlen > len(data):
        raise WireError("bad .npy header length")
    m = _NPY_HEADER.match(data[start : start + hlen].decode("latin1"))
    if m is None:
        raise WireError("bad .npy header")
    shape = tuple(int(d) for d in m["shape"].replace(" ", "").split(",") if d)
    try:
        dt = np.dtype(m["descr"])
    except TypeError:
        raise WireError("bad .npy dtype") from None
    return shape, m["fortran"] == "True", dt, start + hlen


def npy_to_array(data: bytes, dtype_name: str) -> np.ndarray:
    """Parse .npy bytes without trusting the header: check sizes before allocating."""
    want = dtype_from_name(dtype_name)
    shape, fortran, dt, offset = _npy_header(data)
    if dt.hasobject or dt.fields is not None or dt.subdtype is not None:
        raise WireError("structured or object arrays are not allowed")
    expect_store = _bits_dtype(want) if dtype_name in _EXTENDED else want
    if dt.newbyteorder("=") != expect_store.newbyteorder("="):
        raise WireError(f".npy dtype {dt} does not match declared {dtype_name}")
    count = 1
    for d in shape:
        count *= d
        if count * dt.itemsize > MAX_BLOB:
            raise WireError("array too large for the channel")
    body = data[offset:]
    if len(body) != count * dt.itemsize:
        raise WireError("array bytes do not match its header")
    arr = np.frombuffer(body, dtype=dt).reshape(shape, order="F" if fortran else "C").copy()
    if dt.byteorder not in ("=", "|") and dt.byteorder != np.dtype("=i2").byteorder:
        arr = arr.astype(dt.newbyteorder("="))
    if dtype_name in _EXTENDED:
        arr = arr.view(want)
    return arr


# ---------------------------------------------------------------- the value codec


class Leaf:
    """An array as it crossed the channel, with how the sender held it."""

    __slots__ = ("array", "kind", "weak", "sharding")

    def __init__(
        self, array: np.ndarray, kind: str, weak: bool = False, sharding: dict | None = None
    ):
        self.array = array
        # "numpy", "jax", "npscalar", or "key": a JAX typed PRNG key (threefry2x32), the
        # array holding its raw key data (uint32[2])
        self.kind = kind
        self.weak = weak
        # where a jax array lives on a mesh (see check_layout): for an argument, where the
        # worker places it; for a result, what landed on each device
        self.sharding = sharding

    def with_array(self, array: np.ndarray) -> "Leaf":
        """The same leaf (kind, weak type, placement) holding other values."""
        return Leaf(array, self.kind, self.weak, self.sharding)

    def __repr__(self) -> str:
        return f"Leaf({self.kind}, {self.array.dtype}{list(self.array.shape)})"


# ---------------------------------------------------------------- layouts on a mesh

MAX_AXES = 16
MAX_RANK = 64
MAX_SHARDS = 4096
AXIS_TYPES = ("explicit", "auto", "manual")
_AXIS_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_LAYOUT_KEYS = ("mesh", "spec", "shards", "platform")


def check_layout(node) -> dict:
    """A leaf's layout as JSON, checked: ``mesh`` (axis names, sizes and types), ``spec``
    (per dimension, the mesh axes it is split over: ``[["data"], []]``), ``shards``
    (``[device id, [[start, stop] per dimension]]`` for each device holding a part) and
    ``platform``.  An argument's carries mesh and spec; a result's also its shards."""
    if not isinstance(node, dict) or any(k not in _LAYOUT_KEYS for k in node):
        raise WireError("bad layout")
    out: dict = {}
    axes: list = []
    if "mesh" in node:
        mesh = node["mesh"]
        if not (isinstance(mesh, dict) and set(mesh) == {"axes", "sizes", "types"}):
            raise WireError("bad layout mesh")
        axes, sizes, types = mesh["axes"], mesh["sizes"], mesh["types"]
        if not (
            isinstance(axes, list)
            and isinstance(sizes, list)
            and isinstance(types, list)
            and 0 < len(axes) == len(sizes) == len(types) <= MAX_AXES
            and all(isinstance(a, str) and _AXIS_NAME.match(a) for a in axes)
            and len(set(axes)) == len(axes)
            and all(_is_count(s, 1, MAX_SHARDS) for s in sizes)
            and all(t in AXIS_TYPES for t in types)
        ):
            raise WireError("bad layout mesh")
        out["mesh"] = {"axes": list(axes), "sizes": list(sizes), "types": list(types)}
    if "spec" in node:
        spec = node["spec"]
        if not (
            isinstance(spec, list)
            and len(spec) <= MAX_RANK
            and all(
                isinstance(d, list)
                and len(d) <= MAX_AXES
                and all(isinstance(a, str) and a in axes for a in d)
                for d in spec
            )
        ):
            raise WireError("bad layout spec")
        out["spec"] = [list(d) for d in spec]
    if "shards" in node:
        shards = node["shards"]
        if not (
            isinstance(shards, list)
            and len(shards) <= MAX_SHARDS
            and all(
                isinstance(s, list)
                and len(s) == 2
                and _is_count(s[0], 0, 1 << 31)
                and isinstance(s[1], list)
                and len(s[1]) <= MAX_RANK
                and all(_is_block(b) for b in s[1])
                for s in shards
            )
        ):
            raise WireError("bad layout shards")
        out["shards"] = [[s[0], [list(b) for b in s[1]]] for s in shards]
    if "platform" in node:
        if not (isinstance(node["platform"], str) and len(node["platform"]) <= 32):
            raise WireError("bad layout platform")
        out["platform"] = node["platform"]
    return out


def _is_count(v, low: int, high: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _is_block(b) -> bool:
    """[start, stop) of one dimension of a shard."""
    return (
        isinstance(b, list)
        and len(b) == 2
        and _is_count(b[0], 0, 1 << 62)
        and _is_count(b[1], b[0], 1 << 62)
    )


class Opaque:
    """A value the codec cannot carry: kept as its type name and a short repr."""

    __slots__ = ("type_name", "text")

    def __init__(self, type_name: str, text: str):
        self.type_name = type_name
        self.text = text

    def __repr__(self) -> str:
        return f"<{self.type_name}: {self.text}>"


def _float_json(v: float):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def _is_jax_array(v) -> bool:
    mod = type(v).__module__ or ""
    return mod.startswith("jax") and hasattr(v, "dtype") and hasattr(v, "shape")


def encode(value, blobs: list[bytes], depth: int = 0, layout_of=None):
    """Value tree -> JSON-able node; arrays are appended to ``blobs`` as .npy bytes.

    Python lists, tuples and dicts (str keys), scalars, numpy and jax arrays and
    ``Leaf`` objects cross; anything else becomes an opaque node naming its type.
    ``layout_of(jax_array)``, when given, says where a jax array lives (a layout, see
    ``check_layout``, or None): a worker with several devices passes one.
    """
    if depth > MAX_DEPTH:
        return {"t": "other", "type": type(value).__name__, "repr": "(nested too deeply)"}
    if value is None:
        return {"t": "none"}
    if isinstance(value, np.generic):  # before int/float: np.float64 subclasses float
        return _encode_array(np.asarray(value), "npscalar", False, blobs)
    if isinstance(value, bool):
        return {"t": "bool", "v": value}
    if isinstance(value, int):
        return {"t": "int", "v": int(value)}
    if isinstance(value, float):
        return {"t": "float", "v": _float_json(float(value))}
    if isinstance(value, Leaf):
        return _encode_array(value.array, value.kind, value.weak, blobs, value.sharding)
    if isinstance(value, np.ndarray):
        return _encode_array(value, "numpy", False, blobs)
    if _is_jax_array(value):
        try:
            arr = np.asarray(value)
        except Exception as exc:  # a tracer or a deleted buffer
            return {"t": "other", "type": type(value).__name__, "repr": _short(repr(exc))}
        layout = layout_of(value) if layout_of is not None else None
        return _encode_array(arr, "jax", bool(getattr(value, "weak_type", False)), blobs, layout)
    if type(value) in (list, tuple):
        return {
            "t": type(value).__name__,
            "v": [encode(v, blobs, depth + 1, layout_of) for v in value],
        }
    if type(value) is dict and all(isinstance(k, str) for k in value):
        return {
            "t": "dict",
            "k": list(value.keys()),
            "v": [encode(v, blobs, depth + 1, layout_of) for v in value.values()],
        }
    if isinstance(value, str):
        return {"t": "str", "v": _short(value)}
    return {"t": "other", "type": _type_name(value), "repr": _short(_safe_repr(value))}


def _encode_array(
    arr: np.ndarray, kind: str, weak: bool, blobs: list[bytes], sharding: dict | None = None
):
    try:
        name, data = array_to_npy(arr)
    except WireError:
        return {"t": "other", "type": f"array of {arr.dtype}", "repr": _short(_safe_repr(arr))}
    blobs.append(data)
    node = {"t": "array", "i": len(blobs) - 1, "dtype": name, "kind": kind, "weak": weak}
    if sharding is not None:
        node["sharding"] = sharding
    return node


def _type_name(value) -> str:
    t = type(value)
    return (
        f"{t.__module__}.{t.__qualname__}"
        if t.__module__ not in ("builtins", None)
        else t.__qualname__
    )


def _safe_repr(value) -> str:
    try:
        return repr(value)
    except Exception:
        return "(repr failed)"


def _short(text: str) -> str:
    text = str(text)
    return text if len(text) <= MAX_STR else text[:MAX_STR] + "..."


def decode(node, blobs: list[bytes]):
    """JSON node -> value tree of Python containers, scalars, ``Leaf`` and ``Opaque``."""
    counter = [0]
    try:
        return _decode(node, blobs, 0, counter)
    except WireError:
        raise
    except (
        RecursionError,
        MemoryError,
        TypeError,
        KeyError,
        IndexError,
        ValueError,
        AttributeError,
        OverflowError,
    ) as exc:
        raise WireError(f"malformed value: {type(exc).__name__}") from None


def _decode(node, blobs, depth, counter):
    counter[0] += 1
    if depth > MAX_DEPTH or counter[0] > MAX_NODES:
        raise WireError("value nested too deeply or too large")
    if not isinstance(node, dict):
        raise WireError("value node is not an object")
    t = node.get("t")
    if t == "none":
        return None
    if t == "bool":
        v = node["v"]
        if not isinstance(v, bool):
            raise WireError("bad bool")
        return v
    if t == "int":
        v = node["v"]
        if not isinstance(v, int) or isinstance(v, bool):
            raise WireError("bad int")
        return v
    if t == "float":
        v = node["v"]
        if v in ("nan", "inf", "-inf"):
            return float(v)
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise WireError("bad float")
        return float(v)
    if t == "str":
        v = node["v"]
        if not isinstance(v, str):
            raise WireError("bad str")
        return _short(v)
    if t in ("list", "tuple"):
        items = node["v"]
        if not isinstance(items, list):
            raise WireError("bad sequence")
        out = [_decode(v, blobs, depth + 1, counter) for v in items]
        return out if t == "list" else tuple(out)
    if t == "dict":
        keys, vals = node["k"], node["v"]
        if not (
            isinstance(keys, list)
            and isinstance(vals, list)
            and len(keys) == len(vals)
            and all(isinstance(k, str) for k in keys)
        ):
            raise WireError("bad dict")
        return {k: _decode(v, blobs, depth + 1, counter) for k, v in zip(keys, vals)}
    if t == "array":
        i, kind, weak = node["i"], node["kind"], node.get("weak", False)
        if not isinstance(i, int) or not 0 <= i < len(blobs):
            raise WireError("bad blob index")
        if kind not in ("numpy", "jax", "npscalar", "key") or not isinstance(weak, bool):
            raise WireError("bad array kind")
        if not isinstance(node["dtype"], str):
            raise WireError("bad dtype")
        sharding = check_layout(node["sharding"]) if "sharding" in node else None
        return Leaf(npy_to_array(blobs[i], node["dtype"]), kind, weak, sharding)
    if t == "other":
        tn, text = node.get("type"), node.get("repr")
        if not isinstance(tn, str) or not isinstance(text, str):
            raise WireError("bad opaque value")
        return Opaque(_short(tn), _short(text))
    raise WireError(f"unknown value tag {t!r}")


# ---------------------------------------------------------------- framing


def pack(token: bytes, seq: int, header: dict, blobs: Sequence[bytes] = ()) -> bytes:
    header = dict(header, blobs=len(blobs))
    body = json.dumps(header, separators=(",", ":")).encode()
    if len(body) > MAX_HEADER:
        raise WireError("header too large")
    parts = [_FIXED.pack(MAGIC, token, seq & 0xFFFFFFFF, len(body)), body]
    for b in blobs:
        parts += [_BLOB_LEN.pack(len(b)), b]
    return b"".join(parts)


def _read_exact(fd: int, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("channel closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(
    fd: int, token: bytes, seq: int | None = None, check_size=None
) -> tuple[dict, list[bytes]]:
    """Read one frame from ``fd``; raise WireError unless it is well-formed and ours.
    ``check_size(total)`` sees the bytes the blobs claim so far before each is read,
    and may raise a WireError to refuse them."""
    magic, tok, got_seq, hlen = _FIXED.unpack(_read_exact(fd, _FIXED.size))
    if magic != MAGIC or tok != token:
        raise WireError("a frame without the channel's token (forged or corrupted)")
    if seq is not None and got_seq != seq & 0xFFFFFFFF:
        raise WireError(f"frame out of sequence ({got_seq} after {seq})")
    if hlen > MAX_HEADER:
        raise WireError("header too large")
    try:
        header = json.loads(_read_exact(fd, hlen))
    except (ValueError, RecursionError, UnicodeDecodeError):
        raise WireError("header is not valid JSON") from None
    if not isinstance(header, dict):
        raise WireError("header is not an object")
    n = header.get("blobs", 0)
    if not isinstance(n, int) or not 0 <= n <= MAX_BLOBS:
        raise WireError("bad blob count")
    blobs, total = [], 0
    for _ in range(n):
        (blen,) = _BLOB_LEN.unpack(_read_exact(fd, _BLOB_LEN.size))
        total += blen
        if blen > MAX_BLOB or total > MAX_BLOB:
            raise WireError("blob too large")
        if check_size is not None:
            check_size(total)
        blobs.append(_read_exact(fd, blen))
    return header, blobs
