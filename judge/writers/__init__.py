"""Report writers: each turns the one Report model into one format.  A format is one
module, of this package (found by a scan of it: nothing lists it) or of a course's own
package (named by an entry point of the group ``jax_judge.writers``; the entry point's
value is the module).  The module declares, and nothing outside it knows more:

* ``NAME``: the format's name (``--format NAME``, ``--emit NAME``); a module of this
  package is named after it, ``NAME.py`` (or ``NAME_format.py`` where ``NAME`` is a
  standard module's: ``json_format.py``), so that ``judge run --format text`` imports
  that one module and reads no installed distribution (``builtin``);
* ``write(report, stream, *, color=False)``: the report, written to a text stream;
* ``RESULTS_FILE`` (optional, default False): a platform reads it as its grader's
  results file and shows a broken grader when the file is absent, so a missing
  submission or an unknown task still writes one (scoring 0, and saying why);
* ``emit_path(learner, task_id)`` (optional): where ``judge batch --emit NAME`` puts a
  submission's file, relative to ``OUT/NAME/``; a format without it is not emitted;
* ``write_many(reports, stream, *, color=False)`` (optional): the reports of one
  submission graded against several tasks (``judge run --tasks``), as the one document
  a reader of the format expects (one results.json, one XML, one page); a format without
  it writes each report in turn (text: one after another; json: one object a line).

Each module is checked when it is found (``writer_problems``); one that breaks this
gets a ``PluginError`` naming it.  A course's format cannot take the name of one of
this package's."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Callable

from ..plugins import PluginError, entry_points, package_modules

GROUP = "jax_judge.writers"


@dataclass(frozen=True)
class Writer:
    name: str
    write: Callable[..., None]
    results_file: bool
    emit_path: Callable[[str, str], str] | None
    module: str
    write_many: Callable[..., None] | None = None


_WRITERS: dict[str, Writer] = {}
_lock = threading.Lock()


def writer_problems(module: ModuleType) -> list[str]:
    """What a writer module gets wrong of the contract, in words (empty: nothing)."""
    problems = []
    name = getattr(module, "NAME", None)
    if not isinstance(name, str) or not name.replace("-", "_").isidentifier():
        problems.append("it declares no NAME (a word: the format's name)")
    elif module.__name__.rpartition(".")[0] == __name__ and module.__name__.rpartition(".")[
        2
    ] not in (name, f"{name}_format"):
        problems.append(
            f"a format of judge/writers/ lives in {name}.py (or "
            f"{name}_format.py), the name its NAME says"
        )
    write = getattr(module, "write", None)
    if not callable(write):
        problems.append("it has no write(report, stream, *, color=False) function")
    else:
        params = inspect.signature(write).parameters
        positional = [
            p for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
        if len(positional) < 2 or (
            "color" not in params and not any(p.kind == p.VAR_KEYWORD for p in params.values())
        ):
            problems.append("write must take (report, stream, *, color=False)")
    if not isinstance(getattr(module, "RESULTS_FILE", False), bool):
        problems.append("RESULTS_FILE must be True or False")
    emit = getattr(module, "emit_path", None)
    if emit is not None and not callable(emit):
        problems.append("emit_path must be a function (learner, task_id) -> relative path")
    many = getattr(module, "write_many", None)
    if many is not None and not callable(many):
        problems.append("write_many must be a function (reports, stream, *, color=False)")
    return problems


def register_writer(
    module: ModuleType, origin: str = "", table: dict[str, Writer] | None = None
) -> Writer:
    """Check ``module`` and add it to ``table`` (the formats found so far)."""
    table = _WRITERS if table is None else table
    where = f"report writer {module.__name__}" + (f" (from {origin})" if origin else "")
    problems = writer_problems(module)
    if problems:
        raise PluginError(
            f"{where} does not keep the writer contract (judge/writers/"
            f"__init__.py): " + "; ".join(problems)
        )
    known = table.get(module.NAME)
    if known is not None and known.module != module.__name__:
        raise PluginError(
            f"{where}: the format '{module.NAME}' is already written by "
            f"{known.module}; give one of them another NAME"
        )
    found = Writer(
        module.NAME,
        module.write,
        getattr(module, "RESULTS_FILE", False),
        getattr(module, "emit_path", None),
        module.__name__,
        getattr(module, "write_many", None),
    )
    table[found.name] = found
    return found


def writers() -> dict[str, Writer]:
    """Every format: this package's modules, then the entry points', found once (into a
    table of its own first: a broken plug-in leaves no half-found set behind)."""
    if _WRITERS:
        return _WRITERS
    with _lock:
        if not _WRITERS:
            found: dict[str, Writer] = {}
            for module in package_modules(__package__):
                register_writer(module, table=found)
            for ep in entry_points(GROUP):
                try:
                    module = ep.load()
                except Exception as exc:
                    raise PluginError(
                        f"the report writer of the {ep.where()} does not load: "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
                if not isinstance(module, ModuleType):
                    raise PluginError(
                        f"the {ep.where()} must name a module (its NAME and "
                        f"write), not {type(module).__name__}"
                    )
                register_writer(module, ep.where(), table=found)
            _WRITERS.update(found)
    return _WRITERS


def builtin(name: str) -> Writer | None:
    """This package's format ``name``, importing its module alone (``NAME.py`` or
    ``NAME_format.py``), or None when this package has none of that name."""
    found = _WRITERS.get(name) or _BUILTIN.get(name)
    if found is not None:
        return found if found.module.rpartition(".")[0] == __name__ else None
    for module_name in (name, f"{name}_format"):
        full = f"{__name__}.{module_name}"
        if module_name.isidentifier() and importlib.util.find_spec(full) is not None:
            found = register_writer(importlib.import_module(full), table=_BUILTIN)
            return found if found.name == name else None
    return None


_BUILTIN: dict[str, Writer] = {}


def formats() -> list[str]:
    """The format names, this package's first."""
    return list(writers())


def writer(name: str) -> Callable[..., None]:
    """``write(report, stream, *, color: bool)``"""
    found = builtin(name)
    return found.write if found is not None else writers()[name].write


def many_writer(name: str) -> Callable[..., None] | None:
    """``write_many(reports, stream, *, color)`` of the format, or None where it writes
    several reports one after another."""
    found = builtin(name)
    return (found if found is not None else writers()[name]).write_many


def render(name: str, reports: list) -> str:
    """The format's document of these reports (one: its ``write``; several: its
    ``write_many``, else each in turn), as ``judge run`` and ``judge batch --emit`` write
    it."""
    import io

    buf = io.StringIO()
    many = many_writer(name)
    if len(reports) == 1 or many is None:
        for report in reports:
            writer(name)(report, buf)
    else:
        many(reports, buf)
    return buf.getvalue()


def late_note(report) -> str | None:
    """What a late policy charged this grading (``judge batch --deadline``), in the
    report's words, or None when it came in on time (or no deadline was set)."""
    from ..scoring import LateCharge, score

    late = getattr(report, "late", None)
    if not isinstance(late, LateCharge):
        return None
    points = score(report)
    before = points.earned if points.before_late is None else points.before_late
    return late.note(before, points.earned)


def results_file(name: str | None) -> bool:
    """Does a platform read this format as its grader's results file?"""
    return name in writers() and writers()[name].results_file


def emit_formats() -> list[str]:
    """The formats ``judge batch --emit`` writes per submission."""
    return [w.name for w in writers().values() if w.emit_path is not None]


def __getattr__(name: str):
    if name == "FORMATS":  # the old table's name: format -> module
        return {w.name: w.module.rsplit(".", 1)[-1] for w in writers().values()}
    raise AttributeError(name)
