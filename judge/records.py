"""What a worker may send back about its calls, checked before any check reads it.

A learner's worker runs the learner's code in the same process as the probe and the
sync counter, so everything they report (trace and compile events, host syncs, a
script's report, an instrument's measurement) may have been rewritten by that code.
Each kind of record is declared here by its shape; a reply whose records do not have
it is not read (the grading says that the judge's instruments were tampered with),
so no rewritten record can make the judge fail or hold more memory than the shape
allows.

A shape is a type (``int`` also admits no bool; ``float`` admits an int), ``None``,
a tuple of alternatives, ``[shape]`` for a list of them, ``{str: shape}`` for a mapping
with string keys, or a dict of named fields for a record with exactly those fields.
"""

from __future__ import annotations

MAX_ITEMS = 20_000  # records in one list: more than any call of honest code makes
MAX_TEXT = 1 << 16  # characters in one string (a signature of a long list: thousands)

_TEXT, _LINE = (str, None), (int, None)
TRACE_EVENT = {
    "group": str,
    "origin": str,
    "stage": str,
    "signature": _TEXT,
    "reason": _TEXT,
    "line": _LINE,
    "seconds": (float, None),
}
SYNC = {"kind": str, "category": str, "line": _LINE, "code": _TEXT}
FUNCTION_REPORT = {
    "name": str,
    "traces": int,
    "compiles": int,
    "cache_entries": _LINE,
    "note": _TEXT,
    "retraces": [_TEXT],
}
SCRIPT_REPORT = {
    "functions": [FUNCTION_REPORT],
    "learner_traces": int,
    "learner_compiles": int,
    "eager": {"traces": int, "compiles": int, "ops": {str: int}},
    "notes": [str],
}


def conforms(value, shape) -> bool:
    if shape is None:
        return value is None
    if isinstance(shape, tuple):
        return any(conforms(value, s) for s in shape)
    if isinstance(shape, list):
        return (
            isinstance(value, list)
            and len(value) <= MAX_ITEMS
            and all(conforms(v, shape[0]) for v in value)
        )
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return False
        if set(shape) == {str}:
            return len(value) <= MAX_ITEMS and all(
                isinstance(k, str) and len(k) <= MAX_TEXT and conforms(v, shape[str])
                for k, v in value.items()
            )
        return set(value) == set(shape) and all(conforms(value[k], s) for k, s in shape.items())
    if shape is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if shape is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if shape is str:
        return isinstance(value, str) and len(value) <= MAX_TEXT
    return isinstance(value, shape)


def shape_of(value, depth: int = 0):
    """The shape a trusted value has (the reference's measurement of a call): what the
    learner's measurement of the same call must conform to.  A list admits any of its
    items' shapes; an empty one, numbers and text."""
    if depth > 16:
        return ()
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            return ()
        return {k: shape_of(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = {repr(s): s for s in (shape_of(v, depth + 1) for v in value)}
        return [tuple(items.values()) or (float, str, None)]
    if value is None or isinstance(value, bool):
        return None if value is None else bool
    if isinstance(value, (int, float)):
        return float
    return str if isinstance(value, str) else ()
