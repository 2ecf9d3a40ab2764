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
"""

from __future__ import annotations

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
    try:
        text = path.read_text(encoding="utf-8")       # .ipynb is JSON: always UTF-8
    except UnicodeDecodeError as exc:
        raise NotebookError(f"{path.name} is not a readable Jupyter notebook: "
                            f"not UTF-8 text ({exc.reason})") from None
    return notebook_submission(text, path.name)


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
    try:
        import nbformat
    except ImportError:   # the judge's installation, not the learner's notebook: no NotebookError
        raise ImportError("grading a .ipynb needs nbformat: pip install 'jax-judge[notebooks]'") from None
    try:
        nb = nbformat.reads(text, as_version=4)
    except Exception as exc:  # nbformat raises several kinds (JSON, schema, version)
        raise NotebookError(f"{name} is not a readable Jupyter notebook: {exc}") from None
    return [(i, cell.get("source", "")) for i, cell in enumerate(nb.cells, 1)
            if cell.get("cell_type") == "code"]


def _compiles(source: str, number: int) -> bool:
    try:
        # compile, not ast.parse: building Python AST objects from two threads at once
        # (a batch) crashes CPython 3.11; compiling to bytecode does not
        compile(source, f"<cell {number}>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError):
        return False


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
    transformed = _transform(source).splitlines()
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
