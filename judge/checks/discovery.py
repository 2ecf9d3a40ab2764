"""Where the check kinds come from: every module of this package (a new kind is a new
module; nothing lists it), then the modules or classes named by the installed entry
points of the group ``jax_judge.checks`` (a course's own package).  A module registers
its kinds with ``@check_kind`` when it is imported; an entry point may also name a
``CheckSpec`` subclass that is not registered yet, which then registers under the entry
point's name.  Each kind is checked as it registers (``base.register_kind``)."""

from __future__ import annotations

import difflib
import threading
from typing import TYPE_CHECKING, Any

from ..plugins import EntryPoint, entry_points, package_modules
from .base import CHECK_KINDS, CheckSpec, PluginError, register_kind

if TYPE_CHECKING:
    from ..bank import FieldReader

GROUP = "jax_judge.checks"
# the modules of this package that hold no kind, only what kinds share
SHARED_MODULES = frozenset({"base", "discovery", "outcome", "script_drawing", "hlo"})

_lock = threading.Lock()
_done = False


def discover_kinds() -> None:
    """Import every kind, once per process (and at once in every thread that asks)."""
    global _done
    if _done:
        return
    with _lock:
        if _done:
            return
        package_modules(__package__, SHARED_MODULES)
        for ep in entry_points(GROUP):
            load_entry_point(ep)
        _done = True


def load_entry_point(ep: EntryPoint) -> None:
    try:
        loaded = ep.load()
    except Exception as exc:
        raise PluginError(
            f"the check kind of the {ep.where()} does not load: {type(exc).__name__}: {exc}"
        ) from exc
    if isinstance(loaded, type):
        if not issubclass(loaded, CheckSpec):
            raise PluginError(
                f"the {ep.where()} names {loaded.__qualname__}, which is not "
                f"a check kind (a subclass of judge.checks.base.CheckSpec)"
            )
        if CHECK_KINDS.get(str(getattr(loaded, "kind", ""))) is not loaded:
            register_kind(ep.name, loaded, origin=ep.where())
        return
    registered = [
        k for k, cls in CHECK_KINDS.items() if cls.__module__ == getattr(loaded, "__name__", None)
    ]
    if not registered:
        raise PluginError(
            f"the {ep.where()} registers no check kind: decorate a CheckSpec "
            f"subclass of that module with @check_kind(name)"
        )


def load_kinds() -> dict[str, type[CheckSpec]]:
    """Every kind: this package's modules and the entry points'."""
    discover_kinds()
    return CHECK_KINDS


def kind_of(name: str) -> type[CheckSpec] | None:
    """The registered kind of that name (a report's ``check.kind``), or None (the
    ``load`` and ``validate`` items of a report are no kind's)."""
    return load_kinds().get(name)


def parse_check(r: FieldReader, scripts: dict[str, Any]) -> CheckSpec:
    try:
        load_kinds()
    except PluginError as exc:  # a course's kind that breaks the contract
        r.fail(str(exc), "kind")
    kind = r.get("kind", str)
    if kind not in CHECK_KINDS:
        close = difflib.get_close_matches(kind, list(CHECK_KINDS), n=1)
        r.fail(
            f"unknown check kind '{kind}'"
            + (
                f" (did you mean '{close[0]}'?)"
                if close
                else f" (known: {', '.join(sorted(CHECK_KINDS))})"
            ),
            "kind",
        )
    cls = CHECK_KINDS[kind]
    r.only(cls.FIELDS)
    return cls(r, scripts)
