"""Check kinds.  Each kind is one module that registers it with ``@check_kind`` and
declares everything about it (see base.py): a module of this package is found by a
scan of the package, a course's own by the entry point group ``jax_judge.checks``
(discovery.py); nothing else names a kind."""

from __future__ import annotations

import functools

from .base import (
    CHECK_KINDS,
    CheckSpec,
    GradingView,
    Instrument,
    Phase,
    PluginError,
    ResultAfterCalls,
    check_kind,
    instrument,
    instruments_of,
    register_kind,
)
from .discovery import kind_of, load_kinds, parse_check


@functools.lru_cache(maxsize=1)
def warm_up_for_threads() -> None:
    """Call in the main thread before grading in several threads (a batch, a service,
    ``judge validate``): every kind's ``warm_up``, once per process."""
    for kind in load_kinds().values():
        kind.warm_up()


__all__ = [
    "CHECK_KINDS",
    "CheckSpec",
    "GradingView",
    "Instrument",
    "ResultAfterCalls",
    "Phase",
    "PluginError",
    "check_kind",
    "instrument",
    "instruments_of",
    "kind_of",
    "load_kinds",
    "parse_check",
    "register_kind",
    "warm_up_for_threads",
]
