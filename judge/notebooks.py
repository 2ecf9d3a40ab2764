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

Cell magics: ``%%time`` and ``%%capture`` run their body as Python in IPython too, so
only their first line is dropped; any other (``%%bash``, ``%%writefile``, ...) is not
Python, and its whole cell is dropped.

The returned source marks every cell with a ``# %% cell N`` line (the percent format
editors know; N counts every cell, markdown too, as a notebook shows them).

A notebook is the learner's file: whatever it holds (not JSON, not UTF-8, a list at the
top, a cell whose ``source`` is a number, nesting deeper than a parser goes, a version
no Jupyter wrote) is a ``NotebookError`` saying what is wrong, which the judge grades as
the learner's ``invalid_submission``, never an exception of the judge's own (a
``judge_error`` would be graded again on every rerun, and never stored as final).  The
format's rules are nbformat's: its JSON schema of the notebook's own version is checked
before nbformat converts the notebook to version 4.
"""

from __future__ import annotations

import json
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

# what IPython's transformer makes of one IPython-only line
_IPYTHON_CALL = re.compile(r"^(?P<indent>\s*)(?:(?P<target>[^=]+?)\s*=\s*)?"
                           r"get_ipython\(\)\.\w+\(.*\)\s*$")
PYTHON_CELL_MAGICS = ("time", "capture")     # IPython runs their body as Python


class NotebookError(ValueError):
    """A notebook the judge cannot turn into a submission; the message is for the learner."""


@dataclass
class Source:
    text: str
    dropped: list[str] = field(default_factory=list)   # "cell 3, line 1: %time f(x)", ...


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
        text = data.decode("utf-8-sig")      # .ipynb is JSON: always UTF-8 (a BOM forgiven)
    except UnicodeDecodeError as exc:
        raise NotebookError(f"{name} is not a readable Jupyter notebook: "
                            f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return notebook_submission(text, name)


def submission_source(path: str | Path) -> str:
    return read_submission(path).text


def notebook_source(text: str, name: str = "notebook") -> str:
    return notebook_submission(text, name).text


def notebook_submission(text: str, name: str = "notebook") -> Source:
    parts, dropped = [], []
    for number, source in _code_cells(text, name):
        python = cell_python(number, source, dropped)
        parts.append(f"# %% cell {number}\n{python}".rstrip("\n") + "\n")
    return Source("\n".join(parts), dropped)


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
        if not isinstance(source, str):   # the schema said so already; a guard, not a rule
            raise refuse(f"cell {i}'s source is not text")
        if _SURROGATE.search(source):      # JSON's "\ud800": no file can hold it
            raise refuse(f"cell {i} holds a character that is not Unicode text "
                         "(a lone surrogate, as a broken \\u escape writes)")
        cells.append((i, source))
    return cells


_SURROGATE = re.compile("[\ud800-\udfff]")
_SHOWN = 200      # characters of a schema error's message: it may quote a whole cell


def read_notebook(text: str, refuse):
    """The notebook as nbformat version 4, or ``refuse(why)`` raised: the judge's words
    for what nbformat found.  nbformat's own ``reads`` only logs a schema error and goes
    on, and raises whatever a malformed field makes its conversion raise, so its steps
    are taken one at a time here."""
    try:
        import nbformat
        from nbformat.validator import iter_validate
    except ImportError:   # the judge's installation, not the learner's notebook: no NotebookError
        raise ImportError("grading a .ipynb needs nbformat: pip install 'jax-judge[notebooks]'") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise refuse(f"not JSON ({exc})") from None
    except RecursionError:
        raise refuse("its JSON is nested too deep to be a notebook") from None
    if not isinstance(data, dict):
        raise refuse(f"its top level is a JSON {_json_kind(data)}, where a notebook is an object "
                     "({\"cells\": [...], ...})")
    if "nbformat" not in data:
        raise refuse("it has no \"nbformat\" version, which every notebook has (Jupyter "
                     "writes \"nbformat\": 4)")
    major, minor = data["nbformat"], data.get("nbformat_minor", 0)
    if type(major) is not int or type(minor) is not int:
        raise refuse(f"its nbformat version is {_short(json.dumps(major))}."
                     f"{_short(json.dumps(minor))}, where a notebook's is two whole numbers "
                     "(Jupyter writes 4 and a minor)")
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
        raise refuse(f"{_where(error.relative_path)}{_short(error.message)} (the file does not "
                     "follow the Jupyter notebook format: open it in Jupyter and save it again)")
    try:
        nb = nbformat.versions[major].to_notebook_json(data, minor=minor)
        return nbformat.convert(nb, 4)
    except RecursionError:   # nbformat copies nested metadata recursively
        raise refuse("its JSON is nested too deep to be a notebook") from None
    except Exception as exc:  # noqa: BLE001 (valid by its schema, yet nbformat cannot convert it)
        raise refuse(f"nbformat cannot convert it to version 4 "
                     f"({type(exc).__name__}: {_short(exc)})") from None


def _json_kind(value) -> str:
    kinds = {list: "list", str: "string", bool: "boolean", int: "number", float: "number",
             type(None): "null"}
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
        return False     # MemoryError: the parser's own stack, on deep nesting


def cell_python(number: int, source: str, dropped: list[str]) -> str:
    """One code cell as plain Python (its IPython-only lines dropped into ``dropped``)."""
    if _compiles(source, number):
        return source               # plain Python: nothing IPython-only in it
    lines = source.splitlines()
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        magic = first[2:].split()[0] if first[2:].split() else ""
        dropped.append(f"cell {number}, line 1: {first[:80]}")
        if magic not in PYTHON_CELL_MAGICS:
            return f"# dropped by the judge: a %%{magic} cell is not Python\n" + \
                "".join(f"# {line}\n" for line in lines)
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
        raise NotebookError(f"notebook cell {number} holds IPython-only syntax the judge "
                            f"cannot map line by line: put each magic or shell escape on one "
                            f"line of its own")
    out = []
    for i, (original, python) in enumerate(zip(lines, transformed), 1 + offset):
        m = _IPYTHON_CALL.match(python) if python != original else None
        if m is None:
            out.append(python)
            continue
        dropped.append(f"cell {number}, line {i}: {original.strip()[:80]}")
        stand_in = f"{m['target']} = None" if m["target"] else "pass"
        out.append(f"{m['indent']}{stand_in}  # dropped by the judge: {original.strip()}")
    return "\n".join(out) + "\n"


def _transform(source: str) -> str:
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:   # the judge's installation: not the learner's fault
        raise ImportError("grading a notebook with magics or shell escapes needs IPython: "
                          "pip install 'jax-judge[notebooks]'") from None
    return TransformerManager().transform_cell(source)
