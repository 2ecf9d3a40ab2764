"""A submission's Python source: a ``.py`` file as is, a Jupyter notebook's code cells.

Notebooks from Jupyter or Colab hold IPython-only lines among the Python: shell escapes
(``!pip install ...``, ``files = !ls``), line magics (``%matplotlib inline``,
``%time f(x)``), help (``f?``) and cell magics (``%%time``).  The worker runs plain
Python, so each code cell that does not compile as it is goes through IPython's own
input transformer (``IPython.core.inputtransformer2``, what Jupyter runs and what
``jupyter nbconvert --to script`` writes), and every line it turns into an IPython call
is dropped: a ``pass`` (or, for ``files = !ls``, ``files = None``) with the original line
beside it as a comment, so a traceback's line number still points at the notebook.
They do nothing in grading; the report lists each dropped line (``Source.dropped``).
A shell escape that assigns (``files = !ls``) gives an empty list instead (what IPython
gives for a command with no output), so the next line still runs, and the report says
the escape did not run.

The judge's own ``check()`` and ``hint()`` (the README's flow: ``from judge import check,
hint``, then ``check("bucketed_mean", bucketed_mean)``) are dropped too, as otter-grader
drops ``grader.check``: the judge is not importable in the sandbox, and grading is the
check.  Only a top-level statement that is the import of them (``from judge import check,
hint``, ``import judge``) or a call of a name so imported (``check(...)``, ``r =
check(...)``, ``judge.hint(...)``) is dropped, and so is a later top-level statement
that reads what such a call gave (``print(report.verdict)``: ``report`` is None there);
a notebook's own function named ``check`` is left alone.

Cell magics: ``%%time`` and ``%%capture`` run their body as Python in IPython too, so
only their first line is dropped; any other (``%%bash``, ``%%writefile``, ...) is not
Python, and its whole cell is dropped.

The returned source marks every cell with a ``# %% cell N`` line (the percent format
editors know; N counts every cell, markdown too, as a notebook shows them).  Lines keep
their place, so ``where(text, n)`` turns a line of the joined script back into the
notebook's ``cell 3, line 6``, and ``in_cells`` rewrites an error's message and
traceback to say that (a learner never saw the joined script).

A notebook is the learner's file: whatever it holds (not JSON, not UTF-8, a list at the
top, a cell whose ``source`` is a number, nesting deeper than a parser goes, a version
no Jupyter wrote) is a ``NotebookError`` saying what is wrong, which the judge grades as
the learner's ``invalid_submission``, never an exception of the judge's own (a
``judge_error`` would be graded again on every rerun, and never stored as final).  The
format's rules are nbformat's: its JSON schema of the notebook's own version is checked
before nbformat converts the notebook to version 4.
"""

from __future__ import annotations

import bisect
import functools
import io
import json
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

# what IPython's transformer makes of one IPython-only line
_IPYTHON_CALL = re.compile(
    r"^(?P<indent>\s*)(?:(?P<target>[^=]+?)\s*=\s*)?"
    r"get_ipython\(\)\.(?P<call>\w+)\(.*\)\s*$"
)
PYTHON_CELL_MAGICS = ("time", "capture")  # IPython runs their body as Python


class NotebookError(ValueError):
    """A notebook the judge cannot turn into a submission; the message is for the learner."""


IPYTHON_ONLY = "an IPython-only line, left out (it does nothing when graded)"


class Dropped(str):
    """One dropped line, as ``"cell 3, line 1: %time f(x)"``; ``why``: what the report
    says of it."""

    why: str = IPYTHON_ONLY

    def __new__(cls, text: str, why: str = ""):
        self = super().__new__(cls, text)
        self.why = why or IPYTHON_ONLY
        return self


@dataclass
class Source:
    text: str
    dropped: list[str] = field(default_factory=list)  # Dropped: "cell 3, line 1: %time f(x)", ...


def dropped_notes(dropped: list[str]) -> list[str]:
    """The report's note for each dropped line."""
    return [f"notebook {line}: {getattr(line, 'why', IPYTHON_ONLY)}" for line in dropped]


def read_submission(path: str | Path) -> Source:
    """The Python text of a submission; a ``.py`` decoded as Python itself would (an
    encoding cookie or BOM honoured)."""
    path = Path(path)
    if path.suffix != ".ipynb":
        with tokenize.open(path) as f:
            return Source(f.read())
    return notebook_from_bytes(path.read_bytes(), path.name)


def notebook_from_bytes(data: bytes, name: str = "notebook") -> Source:
    """A notebook's Python from the file's bytes (the very bytes the judge read and
    hashed, never the path read again)."""
    try:
        text = data.decode("utf-8-sig")  # .ipynb is JSON: always UTF-8 (a BOM forgiven)
    except UnicodeDecodeError as exc:
        raise NotebookError(
            f"{name} is not a readable Jupyter notebook: "
            f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from None
    return notebook_submission(text, name)


def submission_source(path: str | Path) -> str:
    return read_submission(path).text


def notebook_source(text: str, name: str = "notebook") -> str:
    return notebook_submission(text, name).text


def notebook_submission(text: str, name: str = "notebook") -> Source:
    dropped: list[str]
    parts, dropped = [], []
    bound = _JudgeNames()
    for number, source in _code_cells(text, name):
        before = len(dropped)
        python = cell_python(number, source, dropped)
        python = _drop_judge_calls(number, python, dropped, bound)
        dropped[before:] = sorted(dropped[before:], key=_line_of)  # as the cell reads
        parts.append(f"{_MARK}{number}\n{python}".rstrip("\n") + "\n")
    return Source("\n".join(parts), dropped)


def _line_of(entry: str) -> int:
    m = re.match(r"cell \d+, line (\d+)", entry)
    return int(m[1]) if m else 0


# ---------------------------------------------------------------- cells and lines

_MARK = "# %% cell "
_MARK_LINE = re.compile(r"# %% cell (\d+)")


def where(text: str, line: int) -> tuple[int, int] | None:
    """(cell, line in the cell) of line ``line`` of a joined notebook script, or None for
    a line that is no cell's (a marker, a line past the end).  A learner who writes a
    marker line of their own can only mislabel their own lines."""
    starts, count = _markers(text)
    i = bisect.bisect_right(starts, (line, float("inf"))) - 1
    if not 1 <= line <= count or i < 0 or starts[i][0] == line:
        return None
    marker, cell = starts[i]
    return cell, line - marker


@functools.lru_cache(maxsize=8)
def _markers(text: str) -> tuple[list[tuple[int, int]], int]:
    """([(line of a ``# %% cell N`` marker, N), ...], the script's line count), once
    per script however many lines a report names."""
    lines = text.splitlines()
    return [
        (i, int(m[1])) for i, line in enumerate(lines, 1) if (m := _MARK_LINE.fullmatch(line))
    ], len(lines)


def in_cells(message: str, text: str, shown: str | None = None) -> str:
    """``message`` (an error's text, a traceback) with each line of the joined script
    ``text`` named as the notebook's ``cell 3, line 6``: ``File "nb.ipynb", line 14``
    and ``(line 14)``, ``at line 14``.  Numbers that are no line of the script are left
    as they are."""
    file = f'(File "{re.escape(shown)}", )' if shown else "()"

    def cell(m: re.Match) -> str:
        found = where(text, int(m[2]))
        if found is None:
            return m[0]
        return f"{m[1] or ''}cell {found[0]}, line {found[1]}"

    return re.sub(rf"(?:{file}|\b)line (\d+)\b", cell, message)


def report_in_cells(report, text: str, shown: str) -> None:
    """Every message and traceback of a notebook's report, in the notebook's cells and
    lines (the worker and the checks only know the joined script)."""
    for check in report.checks:
        check.message = in_cells(check.message, text, shown)
        tb = check.details.get("traceback")
        if isinstance(tb, str):
            check.details["traceback"] = in_cells(tb, text, shown)


def defined_names(python: str) -> set[str]:
    """The names a script binds at its top level (``def``, ``class``, an assignment, an
    import): which tasks' functions one notebook answers.  Tokens, not ast (see
    ``_statements``); a script that does not tokenize defines nothing."""
    names: set[str] = set()
    for _, _, toks in _statements(python) or ():
        if toks[0] in ("def", "class") and len(toks) > 1:
            names.add(toks[1])
        elif toks[0] == "async" and len(toks) > 2 and toks[1] == "def":
            names.add(toks[2])
        elif toks[0] in ("import", "from") and "import" in toks:
            item: list[str]
            items, item = [], []
            for t in toks[toks.index("import") + 1 :] + [","]:
                if t == ",":
                    items.append(item)
                    item = []
                elif t not in ("(", ")"):
                    item.append(t)
            # import a.b binds a; import a.b as c, from m import x as c bind c
            names.update(i[-1] if "as" in i else i[0] for i in items if i)
        else:
            depth = 0
            for i, t in enumerate(toks):  # a = b = value, a: T = value
                depth += t in ("(", "[", "{")
                depth -= t in (")", "]", "}")
                if (
                    depth == 0
                    and t in ("=", ":")
                    and i
                    and toks[i - 1].isidentifier()
                    and (i == 1 or toks[i - 2] == "=")
                ):
                    names.add(toks[i - 1])
    return names


# ---------------------------------------------------------------- the judge's own calls

JUDGE_MODULES = ("judge", "judge.learner_api", "judge.learner")
JUDGE_FUNCTIONS = ("check", "hint")
_JUDGE_IMPORT_WHY = (
    "the import of the judge's check() and hint(), left out (the judge grades the notebook itself)"
)
_JUDGE_CALL_WHY = (
    "a call of the judge's {name}(), left out (this grading is the check; "
    "it does nothing when graded)"
)


_JUDGE_RESULT_WHY = "a use of what the judge's {name}() gave, left out (there is none when graded)"


@dataclass
class _JudgeNames:
    functions: dict[str, str] = field(default_factory=dict)  # bound name -> check or hint
    modules: set[str] = field(default_factory=set)  # names bound to judge itself
    results: dict[str, str] = field(default_factory=dict)  # report = check(...): report


def _statements(python: str) -> list[tuple[int, int, list[str]]] | None:
    """(first line, last line, significant token strings) of each top-level statement,
    or None where the cell does not tokenize (the worker says why).  tokenize, not ast:
    building AST objects from two threads at once (a batch) crashes CPython 3.11."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(python).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    out: list[tuple[int, int, list[str]]]
    current: list[str]
    first: int | None
    out, depth, current, first = [], 0, [], None
    for tok in tokens:
        if tok.type == tokenize.INDENT:
            depth += 1
            continue
        if tok.type == tokenize.DEDENT:
            depth -= 1
            continue
        if tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        if tok.type == tokenize.NEWLINE:
            if current and depth == 0:
                out.append((first, tok.start[0], current))  # type: ignore[arg-type]  # a kept statement has its first line
            current, first = [], None
            continue
        if not current:
            first = tok.start[0] if tok.start[1] == 0 else None
        if first is not None or current:
            current.append(tok.string)
        if first is None:  # a statement that does not start a line: leave it
            current = []
    return out


def _judge_statement(toks: list[str], bound: _JudgeNames) -> tuple[str, str | None] | None:
    """(why, target or None) where the statement is the judge's import or call."""
    if toks and toks[-1] == ";":
        toks = toks[:-1]
    if len(toks) >= 4 and toks[0] == "from":
        end = toks.index("import") if "import" in toks else -1
        if end < 0 or "".join(toks[1:end]) not in JUDGE_MODULES:
            return None
        names = [t for t in toks[end + 1 :] if t not in ("(", ")", ",")]
        pairs, i = [], 0
        while i < len(names):
            if i + 2 < len(names) and names[i + 1] == "as":
                pairs.append((names[i], names[i + 2]))
                i += 3
            else:
                pairs.append((names[i], names[i]))
                i += 1
        if not pairs or any(name not in JUDGE_FUNCTIONS for name, _ in pairs):
            return None  # something else of the judge's: the error says what
        bound.functions.update({alias: name for name, alias in pairs})
        return _JUDGE_IMPORT_WHY, None
    if toks[:2] == ["import", "judge"] and (len(toks) == 2 or (len(toks) == 4 and toks[2] == "as")):
        bound.modules.add(toks[-1])
        return _JUDGE_IMPORT_WHY, None
    if toks[0] in ("def", "class") and len(toks) > 1:  # the notebook's own check()
        bound.functions.pop(toks[1], None)
        return None
    if toks[0] in _COMPOUND:
        return None
    target = toks[0] if len(toks) > 2 and toks[1] == "=" and toks[0].isidentifier() else None
    uses = [bound.functions[t] for t in toks if t in bound.functions] + [
        toks[i + 2] for i, t in enumerate(toks[:-2]) if t in bound.modules and toks[i + 1] == "."
    ]
    kept = [bound.results[t] for t in toks if t in bound.results and t != target]
    if not uses and not kept:
        if target is not None:  # check = my_own_checker, report = 1: the notebook's now
            bound.functions.pop(target, None)
            bound.results.pop(target, None)
        return None
    # it does something with the judge's check() or hint() (shows a report, keeps one,
    # reads the one kept): in grading there is none, and the grading is the check
    if target is not None:
        bound.results[target] = (uses or kept)[0]
    if uses:
        return _JUDGE_CALL_WHY.format(name=uses[0]), target
    return _JUDGE_RESULT_WHY.format(name=kept[0], target=target), target


_COMPOUND = (
    "if",
    "elif",
    "else",
    "for",
    "while",
    "with",
    "try",
    "except",
    "finally",
    "async",
    "@",
    "match",
    "return",
    "global",
    "nonlocal",
    "del",
    "import",
    "from",
)


def _drop_judge_calls(number: int, python: str, dropped: list[str], bound: _JudgeNames) -> str:
    statements = _statements(python)
    if not statements:
        return python
    lines = python.splitlines()
    for first, last, toks in statements:
        found = _judge_statement(toks, bound)
        if found is None:
            continue
        why, target = found
        original = lines[first - 1].strip()
        dropped.append(Dropped(f"cell {number}, line {first}: {original[:80]}", why))
        stand_in = f"{target} = None" if target else "pass"
        lines[first - 1] = f"{stand_in}  # dropped by the judge: {original}"
        for i in range(first, last):
            lines[i] = f"# {lines[i]}"
    return "\n".join(lines) + "\n"


def _code_cells(text: str, name: str) -> list[tuple[int, str]]:
    """(1-based position among all cells, source) of each code cell."""

    def refuse(why: str) -> NotebookError:
        return NotebookError(f"{name} is not a readable Jupyter notebook: {why}")

    nb = read_notebook(text, refuse)
    cells = []
    for i, cell in enumerate(nb.cells, 1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if not isinstance(source, str):  # the schema said so already; a guard, not a rule
            raise refuse(f"cell {i}'s source is not text")
        if _SURROGATE.search(source):  # JSON's "\ud800": no file can hold it
            raise refuse(
                f"cell {i} holds a character that is not Unicode text "
                "(a lone surrogate, as a broken \\u escape writes)"
            )
        cells.append((i, source))
    return cells


_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN = 200  # characters of a schema error's message: it may quote a whole cell


def read_notebook(text: str, refuse):
    """The notebook as nbformat version 4, or ``refuse(why)`` raised: the judge's words
    for what nbformat found.  nbformat's own ``reads`` only logs a schema error and goes
    on, and raises whatever a malformed field makes its conversion raise, so its steps
    are taken one at a time here."""
    try:
        import nbformat
        from nbformat.validator import iter_validate
    except ImportError:  # the judge's installation, not the learner's notebook: no NotebookError
        raise ImportError(
            "grading a .ipynb needs nbformat: pip install 'jax-judge[notebooks]'"
        ) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise refuse(f"not JSON ({exc})") from None
    except RecursionError:
        raise refuse("its JSON is nested too deep to be a notebook") from None
    if not isinstance(data, dict):
        raise refuse(
            f"its top level is a JSON {_json_kind(data)}, where a notebook is an object "
            '({"cells": [...], ...})'
        )
    if "nbformat" not in data:
        raise refuse(
            'it has no "nbformat" version, which every notebook has (Jupyter writes "nbformat": 4)'
        )
    major, minor = data["nbformat"], data.get("nbformat_minor", 0)
    if type(major) is not int or type(minor) is not int:
        raise refuse(
            f"its nbformat version is {_short(json.dumps(major))}."
            f"{_short(json.dumps(minor))}, where a notebook's is two whole numbers "
            "(Jupyter writes 4 and a minor)"
        )
    if major not in nbformat.versions:
        raise refuse(f"nbformat version {major} is not one nbformat reads (Jupyter writes 4)")
    if (major, minor) >= (4, 5) and isinstance(data.get("cells"), list):
        # a cell id is required from 4.5 on and some tools forget it; it plays no part in
        # grading, so it is filled in as nbformat.normalize would (without its warning)
        for i, cell in enumerate(data["cells"]):
            if isinstance(cell, dict):
                cell.setdefault("id", f"cell-{i}")
    try:
        error = next(iter_validate(data), None)
    except RecursionError:
        raise refuse("its JSON is nested too deep to be a notebook") from None
    except Exception as exc:  # noqa: BLE001 (a validator that breaks on it: still its file)
        raise refuse(f"nbformat cannot check it ({type(exc).__name__}: {_short(exc)})") from None
    if error is not None:
        raise refuse(
            f"{_where(error.relative_path)}{_short(error.message)} (the file does not "
            "follow the Jupyter notebook format: open it in Jupyter and save it again)"
        )
    try:
        nb = nbformat.versions[major].to_notebook_json(data, minor=minor)
        return nbformat.convert(nb, 4)
    except RecursionError:  # nbformat copies nested metadata recursively
        raise refuse("its JSON is nested too deep to be a notebook") from None
    except Exception as exc:  # noqa: BLE001 (valid by its schema, yet nbformat cannot convert it)
        raise refuse(
            f"nbformat cannot convert it to version 4 ({type(exc).__name__}: {_short(exc)})"
        ) from None


def _json_kind(value) -> str:
    kinds = {
        list: "list",
        str: "string",
        bool: "boolean",
        int: "number",
        float: "number",
        type(None): "null",
    }
    return kinds.get(type(value), type(value).__name__)


def _short(value) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def _where(path) -> str:
    """``cells[2].source`` as "cell 3, source: " (the learner counts cells from 1)."""
    parts = list(path)
    if len(parts) >= 2 and parts[0] == "cells" and isinstance(parts[1], int):
        rest = ".".join(str(p) for p in parts[2:])
        return f"cell {parts[1] + 1}" + (f", {rest}" if rest else "") + ": "
    return (".".join(str(p) for p in parts) + ": ") if parts else ""


def _compiles(source: str, number: int) -> bool:
    try:
        # compile, not ast.parse: building Python AST objects from two threads at once
        # (a batch) crashes CPython 3.11; compiling to bytecode does not
        compile(source, f"<cell {number}>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False  # MemoryError: the parser's own stack, on deep nesting


def cell_python(number: int, source: str, dropped: list[str]) -> str:
    """One code cell as plain Python (its IPython-only lines dropped into ``dropped``)."""
    if _compiles(source, number):
        return source  # plain Python: nothing IPython-only in it
    lines = source.splitlines()
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        magic = first[2:].split()[0] if first[2:].split() else ""
        dropped.append(Dropped(f"cell {number}, line 1: {first[:80]}"))
        if magic not in PYTHON_CELL_MAGICS:
            return f"# dropped by the judge: a %%{magic} cell is not Python\n" + "".join(
                f"# {line}\n" for line in lines
            )
        body = _cell_source_lines(number, lines[1:], dropped, offset=1)
        return f"pass  # dropped by the judge: {first}\n" + body
    return _cell_source_lines(number, lines, dropped)


def _cell_source_lines(number: int, lines: list[str], dropped: list[str], offset: int = 0) -> str:
    source = "\n".join(lines) + "\n"
    if _compiles(source, number):
        return source
    try:
        transformed = _transform(source).splitlines()
    except ImportError:
        raise
    except Exception:  # noqa: BLE001 (IPython cannot read it either: the worker says why)
        return source
    if len(transformed) != len(lines):
        # a construct IPython rewrites across lines (a continued shell escape): the line
        # numbers would no longer match the notebook's, so say what to change
        raise NotebookError(
            f"notebook cell {number} holds IPython-only syntax the judge "
            f"cannot map line by line: put each magic or shell escape on one "
            f"line of its own"
        )
    out = []
    for i, (original, python) in enumerate(zip(lines, transformed), 1 + offset):
        m = _IPYTHON_CALL.match(python) if python != original else None
        if m is None:
            out.append(python)
            continue
        shown = f"cell {number}, line {i}: {original.strip()[:80]}"
        if m["target"] and m["call"] == "getoutput":
            # IPython gives a list of the output's lines: an empty one, as for a command
            # that printed nothing, so the code after it still runs
            dropped.append(
                Dropped(
                    shown,
                    f"a shell escape, not run when graded: "
                    f"{m['target'].strip()} is an empty list there",
                )
            )
            stand_in = f"{m['target']} = []"
        else:
            dropped.append(Dropped(shown))
            stand_in = f"{m['target']} = None" if m["target"] else "pass"
        out.append(f"{m['indent']}{stand_in}  # dropped by the judge: {original.strip()}")
    return "\n".join(out) + "\n"


def _transform(source: str) -> str:
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # the judge's installation: not the learner's fault
        raise ImportError(
            "grading a notebook with magics or shell escapes needs IPython: "
            "pip install 'jax-judge[notebooks]'"
        ) from None
    return TransformerManager().transform_cell(source)
