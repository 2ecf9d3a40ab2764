"""A submission's Python source: a ``.py`` file as is, a Jupyter notebook's code cells.

Notebooks from Jupyter or Colab often hold IPython-only lines: shell escapes (``!pip
install ...``) and magics (``%timeit f(x)``, ``%%time``).  The worker runs plain Python,
so the policy is:

* a cell made only of such lines (and comments or blank lines) is dropped: it cannot
  define anything the grader calls, and refusing a notebook for its ``!pip install``
  cell would fail a right answer over a setup step;
* a cell that mixes them with Python (``files = !ls``, ``%%time`` over a ``def``) is
  refused with a ``NotebookError`` naming the cell: dropping it could silently remove
  the learner's function, and keeping it cannot run.

The returned source marks every cell with a ``# %% cell N`` line (the percent format
editors know; N counts every cell, markdown too, as a notebook shows them), and a
dropped cell stays visible as comments, so a line number in a traceback leads back to
the notebook's cell.
"""

from __future__ import annotations

import re
import tokenize
from pathlib import Path

# `!cmd`, `%magic`, `%%cell_magic`, and their assignment forms `files = !ls`, `t = %time f()`
_IPYTHON = re.compile(r"^\s*([A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)?[!%]")


class NotebookError(ValueError):
    """A notebook the judge cannot turn into a submission; the message is for the learner."""


def submission_source(path: str | Path) -> str:
    """The Python text of a submission; a ``.py`` decoded as Python itself would (an
    encoding cookie or BOM honoured)."""
    path = Path(path)
    if path.suffix != ".ipynb":
        with tokenize.open(path) as f:
            return f.read()
    try:
        text = path.read_text(encoding="utf-8")       # .ipynb is JSON: always UTF-8
    except UnicodeDecodeError as exc:
        raise NotebookError(f"{path.name} is not a readable Jupyter notebook: "
                            f"not UTF-8 text ({exc.reason})") from None
    return notebook_source(text, path.name)


def notebook_source(text: str, name: str = "notebook") -> str:
    return "\n".join(f"# %% cell {number}\n{_cell_source(number, source)}".rstrip("\n") + "\n"
                     for number, source in _code_cells(text, name))


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


def _cell_source(number: int, source: str) -> str:
    try:
        # compile, not ast.parse: building Python AST objects from two threads at once
        # (a batch) crashes CPython 3.11; compiling to bytecode does not
        compile(source, f"<cell {number}>", "exec", dont_inherit=True)
        return source               # plain Python: nothing IPython-only in it
    except (SyntaxError, ValueError):
        pass
    lines = source.splitlines()
    ipython = [line.strip() for line in lines if _is_ipython(line)]
    if not ipython:
        return source               # a plain syntax error: the worker reports it with its line
    first = ipython[0]
    if all(_is_ipython(line) or _is_blank(line) for line in lines):
        note = f"# dropped by the judge: only shell escapes or magics ({first[:60]})\n"
        return note + "".join(f"# {line}\n" for line in lines)
    if first.startswith("%%"):
        fix = f"remove the cell magic '{first[:60]}'"
    else:
        what = "shell escape" if first.startswith("!") else "magic"
        fix = (f"remove the {what} '{first[:60]}', or move it to a cell of its own "
               f"(a cell holding only shell escapes or magics is skipped)")
    raise NotebookError(f"notebook cell {number} mixes IPython-only syntax with Python, and "
                        f"the judge runs plain Python: {fix}")


def _is_ipython(line: str) -> bool:
    return bool(_IPYTHON.match(line))


def _is_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")
