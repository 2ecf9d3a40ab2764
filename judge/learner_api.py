"""What a learner calls from a notebook (or any Python): ``check`` and ``hint``.

    from judge import check, hint
    check("cache_independent_count", my_fn)     # the report, rich in a notebook
    hint("cache_independent_count", 1)          # the first nudge

``check`` grades exactly as `judge run` does: on the course's `judge serve` when
$JUDGE_SERVER (or ``server=``) names one, which is how a learner's install grades (it
holds the public bank only, no references; judge/remote.py), else here, with the same
runner, worker and sandbox.  Either way it makes a submission of the function and the
module-level statements it needs, in the order they ran, taken from where the function
was defined: the notebook's executed cells (each put through the same IPython
transformation as a graded ``.ipynb``, so magics do nothing) or the function's own
``.py`` file.  A statement is
needed when it binds a global name that the function, or another needed statement,
reads; so a helper, a jitted wrapper, a constant and the imports come along, and a cell
that plots or times things does not.  The report says what was taken.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import dis
import inspect
import os
import sys
import tempfile
import types
from dataclasses import dataclass, field
from pathlib import Path

from .report import Report


class CheckError(ValueError):
    """``check`` cannot make a submission of what it was given; the message says why."""


@dataclass
class Statement:
    text: str
    binds: set[str]
    reads: set[str]
    where: str  # "cell 3", "mine.py line 12"


@dataclass
class Assembled:
    source: str
    name: str  # the learner's name for the function
    taken: list[Statement] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # read, but defined nowhere we see


def check(
    task_id: str,
    fn,
    *,
    bank: str | None = None,
    seed: int | None = None,
    examples: int | None = None,
    strict: bool = False,
    server: str | None = None,
    token: str | None = None,
):
    """Grade ``fn`` for task ``task_id``; the report (a notebook shows it as HTML, a
    Python prompt as the text `judge run` prints).

    On the course's service when ``server`` or $JUDGE_SERVER names one (``token`` or
    $JUDGE_TOKEN where it wants one), unless ``bank`` asks for a local grading;
    otherwise here, which needs the full bank (a learner's install has the public part
    only)."""
    from . import remote

    url = remote.chosen_server(server) if bank is None else server
    if url:
        return _check_on(
            remote.Service(url, token), task_id, fn, seed=seed, examples=examples, strict=strict
        )
    from .bank import load_bank
    from .runner import grade

    task = load_bank(bank, lazy=True).require_references().get(task_id)
    built = assemble(fn, task.entrypoint)
    with tempfile.TemporaryDirectory(prefix="judge-check-") as tmp:
        path = Path(tmp) / f"{task.entrypoint}.py"
        path.write_text(built.source, encoding="utf-8")
        report = grade(
            task, path, seed=seed, examples=examples, strict=strict, display_name=f"{built.name}.py"
        )
    return _checked(report, fn, built, task.entrypoint)


def _check_on(service, task_id: str, fn, *, seed, examples, strict):
    """The same source `judge run` would grade, graded by the course's service; the
    report it gives, shown as the local one is."""
    from . import remote
    from .report import Report

    if examples is not None:
        raise CheckError(
            "examples= changes a local grading only: the course's service "
            "grades every submission with the task's own number of examples"
        )
    entrypoint = service.entrypoint(task_id)
    built = assemble(fn, entrypoint)
    sub_id = service.submit(task_id, built.source, seed=seed, strict=strict)
    answer = service.report(sub_id)
    try:
        report = Report.from_dict(answer)
    except (KeyError, TypeError, ValueError):
        raise remote.ServiceError(
            f"{service.url} answered submission {sub_id} with "
            "something that is not a report: is it a `judge serve`?"
        ) from None
    checked = _checked(report, fn, built, entrypoint)
    checked.notes.append(f"graded by the course's judge at {service.url} (submission {sub_id})")
    return checked


def _checked(report: Report, fn, built: "Assembled", entrypoint: str) -> "CheckedReport":
    report.submission = f"{built.name} (from {_origin(fn)})"
    report.notes[:0] = describe(built, entrypoint)
    return CheckedReport(**{f.name: getattr(report, f.name) for f in dataclasses.fields(report)})


class CheckedReport(Report):
    """The report ``check`` returns: a notebook shows it as HTML, a Python prompt as the
    text `judge run` prints."""

    def __repr__(self) -> str:
        from .writers.text import text

        return text(self).rstrip("\n")

    def _repr_html_(self) -> str:
        from .writers.html import fragment

        return fragment(self)


def describe(built: Assembled, entrypoint: str) -> list[str]:
    graded = built.name if built.name == entrypoint else f"{built.name} as {entrypoint}"
    groups: list[tuple[str, list[str]]] = []  # (where, names), in the order they ran
    for s in built.taken:
        if built.name in s.binds:
            continue
        if groups and groups[-1][0] == s.where:
            groups[-1][1].extend(sorted(s.binds))
        else:
            groups.append((s.where, sorted(s.binds)))
    notes = [
        f"graded {graded}"
        + (
            ", with " + ", ".join(f"{', '.join(names)} ({where})" for where, names in groups)
            if groups
            else ""
        )
    ]
    if built.unknown:
        notes.append(
            f"not found where {built.name} was defined: {', '.join(built.unknown)} "
            "(run the cell that defines it, or define it at the top level)"
        )
    return notes


# ---------------------------------------------------------------- assembling the source


def assemble(fn, entrypoint: str) -> Assembled:
    if not callable(fn):
        raise CheckError(f"check() grades a function; got {type(fn).__name__}")
    namespace = getattr(inspect.unwrap(fn), "__globals__", None)
    if namespace is None:
        raise CheckError(
            "check() grades a function defined in Python (a def or a jitted def), not a built-in"
        )
    statements = _statements(fn)
    latest: dict[str, Statement] = {}
    for s in statements:
        for name in s.binds:
            latest[name] = s
    names = [k for k, v in namespace.items() if v is fn and k in latest]
    if not names:
        raise CheckError(
            f"{_name(fn)} is not bound at the top level of a cell or file that "
            "ran: define it with def (or assign it) at the top level, run that "
            "cell, then check it"
        )
    name = entrypoint if entrypoint in names else _name(fn) if _name(fn) in names else names[0]
    wanted, todo, unknown = {id(latest[name]): latest[name]}, list(latest[name].reads), []
    while todo:
        needed = todo.pop()
        if needed in latest:
            s = latest[needed]
            if id(s) not in wanted:
                wanted[id(s)] = s
                todo += s.reads
        elif needed in namespace and isinstance(namespace[needed], types.ModuleType):
            module = namespace[needed].__name__
            text = f"import {module}" if module == needed else f"import {module} as {needed}"
            synthetic = Statement(text, {needed}, set(), "the kernel's imports")
            latest[needed] = wanted[id(synthetic)] = synthetic
        elif not hasattr(builtins, needed) and needed not in unknown:
            unknown.append(needed)
    order = {id(s): i for i, s in enumerate(statements)}
    taken = sorted(wanted.values(), key=lambda s: order.get(id(s), -1))
    body = [s.text for s in taken]
    if name != entrypoint:
        body.append(f"{entrypoint} = {name}")
    return Assembled("\n\n".join(body) + "\n", name, taken, sorted(unknown))


def _statements(fn) -> list[Statement]:
    """Every top-level statement that ran where ``fn`` was defined, in order."""
    code = inspect.unwrap(fn).__code__
    file = code.co_filename
    shell = _ipython()
    if os.path.isfile(file) and not _is_cell_file(shell, file):
        text = Path(file).read_text(encoding="utf-8")
        return _parse(text, lambda line: f"{Path(file).name} line {line}")
    if shell is not None:
        from .notebooks import cell_python

        out = []
        for number, raw in enumerate(shell.history_manager.input_hist_raw, 0):
            if not raw.strip():
                continue
            try:
                python = cell_python(number, raw, [])
            except Exception:  # a cell the judge cannot read: it binds nothing we can take
                continue
            out += _parse(python, lambda line, n=number: f"cell {n}")
        return out
    raise CheckError(
        f"cannot find the source of {_name(fn)}: check() reads it from the "
        "notebook or the .py file that defines it"
    )


def _parse(text: str, where) -> list[Statement]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    lines = text.splitlines()
    out = []
    for node in tree.body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        segment = "\n".join(lines[first - 1 : node.end_lineno])
        binds = _bound(node)
        if not binds or _imports_the_judge(node):
            continue
        out.append(Statement(segment, binds, _global_reads(node), where(first)))
    return out


def _bound(node: ast.stmt) -> set[str]:
    """The module-level names a top-level statement binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name.split(".")[0]) for a in node.names if a.name != "*"}
    out = set()
    for sub in _walk_outside_scopes(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            out.add(sub.id)
    return out


def _walk_outside_scopes(node: ast.AST):
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            yield from _walk_outside_scopes(child)


def _global_reads(node: ast.stmt) -> set[str]:
    """The global names the statement reads when it runs, its functions' bodies included:
    what the compiler itself resolves as global."""
    code = compile(ast.Module(body=[node], type_ignores=[]), "<statement>", "exec")
    out: set[str] = set()
    stack = [code]
    while stack:
        c = stack.pop()
        for ins in dis.get_instructions(c):
            if ins.opname in ("LOAD_NAME", "LOAD_GLOBAL", "LOAD_FROM_DICT_OR_GLOBALS"):
                out.add(ins.argval)
        stack += [k for k in c.co_consts if isinstance(k, types.CodeType)]
    return out


def _imports_the_judge(node: ast.stmt) -> bool:
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")[0] == "judge"
    if isinstance(node, ast.Import):
        return any(a.name.split(".")[0] == "judge" for a in node.names)
    return False


def _ipython():
    module = sys.modules.get("IPython")
    return module.get_ipython() if module is not None else None


def _is_cell_file(shell, file: str) -> bool:
    """ipykernel compiles each cell under a file name of its own (in a temp folder)."""
    if shell is None:
        return False
    try:
        return file.startswith(os.path.dirname(shell.compile.get_code_name("", "", 0)))
    except Exception:  # an IPython without that hook: a real file is a real file
        return False


def _name(fn) -> str:
    return getattr(fn, "__name__", type(fn).__name__)


def _origin(fn) -> str:
    file = inspect.unwrap(fn).__code__.co_filename
    return (
        Path(file).name
        if os.path.isfile(file) and not _is_cell_file(_ipython(), file)
        else "the notebook"
    )


# ---------------------------------------------------------------- hints


@dataclass
class Hint:
    """One nudge, shown as Markdown in a notebook and as text elsewhere."""

    task: str
    number: int
    of: int
    text: str

    def __repr__(self) -> str:
        return (
            self.text
            if self.of == 0 or not 1 <= self.number <= self.of
            else f"Hint {self.number} of {self.of} for {self.task}:\n\n{self.text}"
        )

    def _repr_markdown_(self) -> str:
        if self.of == 0 or not 1 <= self.number <= self.of:
            return self.text
        return f"**Hint {self.number} of {self.of}** for `{self.task}`\n\n{self.text}"


def hint(
    task_id: str,
    n: int = 1,
    *,
    bank: str | None = None,
    server: str | None = None,
    token: str | None = None,
) -> Hint:
    """The task's ``n``-th hint (from 1): from the course's service when ``server`` or
    $JUDGE_SERVER names one (unless ``bank`` is given), else from the local bank."""
    from . import remote

    url = remote.chosen_server(server) if bank is None else server
    if url:
        of, text = remote.Service(url, token).hint(task_id, n)
        return _hint_of(task_id, n, of, text)
    from .bank import load_bank
    from .catalog import read_hints

    task = load_bank(bank, lazy=True).get(task_id)
    hints = read_hints(task)
    return _hint_of(task_id, n, len(hints), hints[n - 1] if 1 <= n <= len(hints) else None)


def _hint_of(task_id: str, n: int, of: int, text: str | None) -> Hint:
    if not of:
        return Hint(task_id, n, 0, f"{task_id} has no hints yet.")
    if text is None:
        return Hint(
            task_id,
            n,
            of,
            f"{task_id} has {of} hints: ask for hint('{task_id}', 1) to hint('{task_id}', {of}).",
        )
    return Hint(task_id, n, of, text)
