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
hint``, then ``check("bucketed_mean", bucketed_mean)``) do not run in grading, as
otter-grader's ``grader.check`` does not: the judge is not importable in the sandbox, and
grading is the check.  The import of them (``from judge import check, hint``, ``import
judge``, at any depth) binds the same names to a stand-in defined ahead of the first
cell (``_PRELUDE``), whose calls give a result that reads as a check that passed, so:

* a line whose only purpose is them (``check(...)``, ``print(check(...).verdict)``,
  ``assert r.accepted``, ``display(r)``: nothing but literals, names handed in, and
  what they gave) is left out;
* a line that keeps or tests what they gave (``r = check(...)``, ``if check(...):``,
  ``ok = check(...) and hint(...)``) runs, with the stand-in;
* a line that mixes them with real work (``z = f(9.0); check(...)``, ``check("t",
  make())``, ``print(f(1), check(...))``) runs as written, the work included.

The report names each such line and what became of it (``Source.dropped``).  Names are
the judge's only where an import of the judge bound them (a notebook's own ``check`` is
its own), and a line left out is guarded, not deleted: it runs as written where, at run
time, a name it reads is no longer the stand-in's (``globals()["check"] = mine``,
``judge.check = mine``, ``print = mine``).  Lines are counted and split at ``\n`` only,
as Python counts them, so no character a comment holds (a form feed, ``\u2028``) turns
into a line break and the comment into code.

Cell magics: ``%%time`` and ``%%capture`` run their body as Python in IPython too, so
only their first line is dropped; any other (``%%bash``, ``%%writefile``, ...) is not
Python, and its whole cell is dropped.

The returned source marks every cell with a ``# %% cell N`` line (the percent format
editors know; N counts every cell, markdown too, as a notebook shows them; the
stand-in's lines, ahead of the first marker, are no cell's).  Lines keep
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
import keyword
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
    parts: list[str] = []
    dropped: list[str] = []
    bound = _JudgeNames()
    for number, source in _code_cells(text, name):
        before = len(dropped)
        python = cell_python(number, source, dropped)
        python = _drop_judge_calls(number, python, dropped, bound, len(parts))
        dropped[before:] = sorted(dropped[before:], key=_line_of)  # as the cell reads
        parts.append(f"{_MARK}{number}\n{python}".rstrip("\n") + "\n")
    prelude = _prelude(parts, bound) if bound.imported else ""
    return Source(prelude + "\n".join(parts), dropped)


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
    lines = _split_lines(text)
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
STAND_IN = "__judge_stand_in__"  # the name of the stand-in in the graded script
_JUDGE_IMPORT_WHY = (
    "the import of the judge's check() and hint(), left out (the judge grades the "
    "notebook itself; where the notebook calls them, a stand-in that does nothing answers)"
)
_JUDGE_CALL_WHY = (
    "a call of the judge's {name}(), left out (this grading is the check; "
    "it does nothing when graded)"
)
_JUDGE_RESULT_WHY = "a use of what the judge's {name}() gave, left out (there is none when graded)"
_JUDGE_TARGET_WHY = (
    "a call of the judge's {name}(), not run when graded: {target} is a stand-in "
    "there that shows nothing"
)
_JUDGE_KEPT_WHY = (
    "uses the judge's {name}(), which does not run when graded: the line runs, with a "
    "stand-in for what {name}() gives"
)

# The stand-in, defined ahead of the first cell of a notebook that imports the judge's
# check() or hint().  A call of either gives a Result, which reads as a check that
# passed: truthy (as a Report is), equal to anything (`r.verdict == "accepted"`), and
# any attribute, call or item of it gives itself, so `if check(...).accepted:` and
# `r = check(...); r.show()` run.  `still_the_judges(path, ...)` guards each line left
# out: it holds only while every name the line reads (a dotted path from the module's
# globals) is still the stand-in's, and print is still the builtin, so a line whose
# `check` the notebook rebound at run time (`globals()["check"] = mine`) runs as written.
_PRELUDE = '''\
class __judge_stand_in__:
    """What the judge's check() and hint() are when a notebook is graded (judge/notebooks.py)."""

    class Result:
        def __init__(self, of):
            self._judge_of = of

        def __getattr__(self, name):
            if name[:2] == "__" == name[-2:]:
                raise AttributeError(name)
            return self

        def __call__(self, *args, **kwargs):
            return self

        def __getitem__(self, key):
            return self

        def __iter__(self):
            return iter(())

        def __len__(self):
            return 0

        def __bool__(self):
            return True

        def __eq__(self, other):
            return True

        def __ne__(self, other):
            return False

        __hash__ = object.__hash__

        def __repr__(self):
            return f"(the judge's {self._judge_of}() does not run when graded)"

        __str__ = __repr__

    class Call:
        def __init__(self, name, result):
            self.__name__, self._result = name, result

        def __call__(self, *args, **kwargs):
            return self._result(self.__name__)

        def __repr__(self):
            return f"<the judge's {self.__name__}(), which does not run when graded>"

    def __init__(self, names):
        import builtins
        import sys

        self._names, self._builtins, self._modules = names, builtins, sys.modules
        self._print = builtins.print
        check, hint, result = self.Call("check", self.Result), self.Call("hint", self.Result), self.Result
        self.check, self.hint = check, hint
        self._ours = lambda value: (
            value is self or value is check or value is hint or type(value) is result
        )

    def __getattr__(self, name):
        raise AttributeError(f"the judge's {name} is not there when a notebook is graded")

    def still_the_judges(self, *paths):
        for path in paths:
            first, *rest = path.split(".")
            value = self._names.get(first, self._builtins.__dict__.get(first))
            if path == "print":
                if value is not self._print:
                    return False
            elif path == "display":
                shown = getattr(self._modules.get("IPython.display"), "display", None)
                if value is not None and value is not shown:
                    return False
            else:
                if first not in self._names or not self._ours(value):
                    return False
                for name in rest:
                    value = getattr(value, name)
                    if not self._ours(value):
                        return False
        return True


__judge_stand_in__ = __judge_stand_in__(globals())
'''


@dataclass
class _JudgeNames:
    functions: dict[str, str] = field(default_factory=dict)  # bound name -> check or hint
    modules: set[str] = field(default_factory=set)  # names bound to judge itself
    results: dict[str, str] = field(default_factory=dict)  # report = check(...): report
    imported: bool = False  # a judge import seen: the stand-in goes ahead of the cells
    futures: list[tuple[int, int, int, list[str]]] = field(default_factory=list)
    # (part, first line, last line, features) of each `from __future__ import` at the top

    def forget(self, name: str) -> None:
        self.functions.pop(name, None)
        self.modules.discard(name)
        self.results.pop(name, None)

    def ref(self, toks: list[tokenize.TokenInfo], i: int) -> str | None:
        """check or hint, where the name at ``i`` reads the judge's (a function of it, the
        module's ``.check``/``.hint``, or what one gave); None elsewhere."""
        t = toks[i]
        if t.type != tokenize.NAME or (i and toks[i - 1].string in (".", *_BINDS_AFTER)):
            return None
        after = toks[i + 1].string if i + 1 < len(toks) else None
        if after in ("=", ":="):
            return None  # a target, or a keyword argument's name
        if t.string in self.functions:
            return self.functions[t.string]
        if t.string in self.results:
            return self.results[t.string]
        if (
            t.string in self.modules
            and after == "."
            and i + 2 < len(toks)
            and toks[i + 2].string in JUDGE_FUNCTIONS
        ):
            return toks[i + 2].string
        return None


@dataclass
class _Logical:
    """One logical line of a cell: its tokens (no comments, layout or newlines), its
    first and last physical lines, and whether it runs in the module's own scope (not
    in a def's or a class's body)."""

    first: int
    last: int
    toks: list[tokenize.TokenInfo]
    module: bool
    depth: int

    @property
    def strings(self) -> list[str]:
        return [t.string for t in self.toks]


def _tokens(python: str) -> list[tokenize.TokenInfo] | None:
    try:
        return list(tokenize.generate_tokens(io.StringIO(python).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


_LAYOUT = (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER)


def _logical_lines(python: str) -> list[_Logical] | None:
    """Every logical line of a cell, at any depth, or None where the cell does not
    tokenize (the worker says why).  tokenize, not ast: building AST objects from two
    threads at once (a batch) crashes CPython 3.11."""
    tokens = _tokens(python)
    if tokens is None:
        return None
    out: list[_Logical] = []
    scopes = [True]  # per open block: is it the module's scope?
    opens: bool | None = None  # what the block after the last header is
    current: list[tokenize.TokenInfo] = []
    for tok in tokens:
        if tok.type == tokenize.INDENT:
            scopes.append(scopes[-1] if opens is None else opens)
            opens = None
        elif tok.type == tokenize.DEDENT:
            if len(scopes) > 1:
                scopes.pop()
        elif tok.type == tokenize.NEWLINE:
            if current:
                out.append(
                    _Logical(
                        current[0].start[0], tok.start[0], current, scopes[-1], len(scopes) - 1
                    )
                )
                if current[-1].string == ":":  # a header: its block is on the next lines
                    words = [t.string for t in current[:2]]
                    scope = words[0] in ("def", "class") or words == ["async", "def"]
                    opens = False if scope else scopes[-1]
            current = []
        elif tok.type not in _LAYOUT:
            current.append(tok)
    return out


def _statements(python: str) -> list[tuple[int, int, list[str]]] | None:
    """(first line, last line, significant token strings) of each top-level statement,
    or None where the cell does not tokenize."""
    lines = _logical_lines(python)
    if lines is None:
        return None
    return [(line.first, line.last, line.strings) for line in lines if line.depth == 0]


def _judge_import(strings: list[str]) -> tuple[list[tuple[str, str]], str | None] | None:
    """([(check or hint, the name it binds)], None) for ``from judge import check, hint``;
    ([], the name bound) for ``import judge [as j]``; None for anything else."""
    if strings and strings[-1] == ";":
        strings = strings[:-1]
    if len(strings) >= 4 and strings[0] == "from":
        end = strings.index("import") if "import" in strings else -1
        if end < 0 or "".join(strings[1:end]) not in JUDGE_MODULES:
            return None
        names = [t for t in strings[end + 1 :] if t not in ("(", ")", ",")]
        if names == ["*"]:  # from judge import *: the names the judge exports
            return [(name, name) for name in JUDGE_FUNCTIONS], None
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
        return pairs, None
    if strings[:2] == ["import", "judge"] and (
        len(strings) == 2 or (len(strings) == 4 and strings[2] == "as")
    ):
        return [], strings[-1]
    return None


_BINDS_AFTER = ("as", "for", "def", "class", "import", "global", "nonlocal", "del", "lambda")
_COMPARISONS = ("==", "!=", "<=", ">=", "<", ">")


def _names_bound(strings: list[str]) -> set[str]:
    """The names a line may bind (more rather than fewer: a name wrongly thought
    rebound only keeps a line that a stand-in then answers)."""
    names: set[str] = set()
    depth, assigned = 0, 0
    for i, t in enumerate(strings):
        depth += t in ("(", "[", "{")
        depth -= t in (")", "]", "}")
        if depth == 0 and t == "=":
            assigned = i
    listing = any(t in ("import", "for", "del", "global", "nonlocal", "with") for t in strings)
    for i, t in enumerate(strings):
        if not t.isidentifier() or (i and strings[i - 1] == "."):
            continue
        prev = strings[i - 1] if i else None
        after = strings[i + 1] if i + 1 < len(strings) else ""
        if (
            after in ("=", ":=")
            or (after.endswith("=") and after not in _COMPARISONS)
            or (i == 0 and after == ":")
            or prev in _BINDS_AFTER
            or i < assigned
            or (prev == "," and listing)
        ):
            names.add(t)
    return names


class _Inert:
    """Reads a simple statement's tokens as one that does nothing but call or read the
    judge's check()/hint() (and show what it gave): literals, names handed to a call of
    the judge's, attributes, calls and items of what the judge gave, print() or
    display() of those, comparisons, not/and/or, assert.  Anything else (a call of
    anything else, an f-string, an operator, a walrus) is real work, and the line is
    kept.  ``paths``: the dotted names the line reads, for its guard; ``calls``: the
    judge's functions it calls."""

    def __init__(self, toks: list[tokenize.TokenInfo], bound: _JudgeNames):
        self.toks, self.bound, self.i = toks, bound, 0
        self.paths: list[str] = []
        self.calls: list[str] = []
        self.reads: list[str] = []

    def peek(self, k: int = 0) -> str | None:
        return self.toks[self.i + k].string if self.i + k < len(self.toks) else None

    def take(self, s: str) -> bool:
        if self.peek() == s:
            self.i += 1
            return True
        return False

    def statement(self) -> bool:
        if self.take("assert"):
            if not self.test():
                return False
            if self.take(","):
                return self.test() and self.done()
        elif not self.test():
            return False
        return self.done() and bool(self.calls or self.reads)

    def done(self) -> bool:
        return self.i == len(self.toks)

    def test(self) -> bool:
        if not self.negation():
            return False
        while self.peek() in ("and", "or"):
            self.i += 1
            if not self.negation():
                return False
        return True

    def negation(self) -> bool:
        if self.take("not"):
            return self.negation()
        if not self.operand():
            return False
        while True:
            if self.peek() in _COMPARISONS or self.peek() in ("in", "is"):
                self.i += 1
                self.take("not")  # is not
            elif self.peek() == "not" and self.peek(1) == "in":
                self.i += 2
            else:
                return True
            if not self.operand():
                return False

    def literal(self) -> bool:
        tok = self.toks[self.i] if self.i < len(self.toks) else None
        if tok is None:
            return False
        if tok.string in ("None", "True", "False") or tok.type == tokenize.NUMBER:
            self.i += 1
            return True
        if tok.string in ("-", "+") and self.peek(1) is not None:
            nxt = self.toks[self.i + 1]
            if nxt.type == tokenize.NUMBER:
                self.i += 2
                return True
            return False
        found = False
        while self.i < len(self.toks) and self.toks[self.i].type == tokenize.STRING:
            prefix = re.match(r"[A-Za-z]*", self.toks[self.i].string)[0]  # type: ignore[index]  # always matches
            if "f" in prefix.lower():
                return False  # an f-string runs the code in its braces
            self.i += 1
            found = True
        return found

    def operand(self) -> bool:
        if self.take("("):
            return self.test() and self.take(")")
        if self.literal():
            return True
        word = self.peek()
        if (
            word in ("print", "display")
            and self.peek(1) == "("
            and self.bound.ref(self.toks, self.i) is None
        ):
            self.paths.append(word)
            self.i += 2
            return self.arguments(plain_names=False)
        return self.chain()

    def chain(self) -> bool:
        """What the judge gave, or one of its functions, with attributes, calls, items."""
        name = self.bound.ref(self.toks, self.i)
        if name is None:
            return False
        head = self.toks[self.i].string
        function = head in self.bound.functions or head in self.bound.modules
        path = [head]
        self.i += 1
        if head in self.bound.modules:  # judge.check
            path.append(self.toks[self.i + 1].string)
            self.i += 2
        open_path = True
        if not function:
            self.reads.append(name)
        while True:
            if self.take("."):
                word = self.peek()
                if word is None or not word.isidentifier():
                    return False
                self.i += 1
                if open_path:
                    path.append(word)
            elif self.take("("):
                if function and open_path:
                    self.calls.append(name)
                open_path = False
                if not self.arguments(plain_names=True):
                    return False
            elif self.take("["):
                open_path = False
                if not (self.literal() or self.chain()) or not self.take("]"):
                    return False
            else:
                break
        self.paths.append(".".join(path))
        return True

    def arguments(self, plain_names: bool) -> bool:
        """After ``(``: arguments up to its ``)``.  ``plain_names``: a name may be handed
        in (check("t", my_fn) reads my_fn and does nothing with it)."""
        while not self.take(")"):
            if self.peek(1) == "=" and (self.peek() or "").isidentifier():
                self.i += 2  # a keyword argument
            if not (self.literal() or self.chain() or (plain_names and self.plain_name())):
                return False
            if not self.take(","):
                return self.take(")")
        return True

    def plain_name(self) -> bool:
        word = self.peek()
        if word is None or not word.isidentifier() or keyword.iskeyword(word):
            return False
        if self.peek(1) in (".", "(", "[", ":="):
            return False  # an attribute, a call, an item: may run code
        self.i += 1
        return True


def _parts(toks: list[tokenize.TokenInfo]) -> list[list[tokenize.TokenInfo]]:
    """A line's simple statements (``a; b``), without the trailing ``;``."""
    parts: list[list[tokenize.TokenInfo]] = [[]]
    depth = 0
    for tok in toks:
        depth += tok.string in ("(", "[", "{")
        depth -= tok.string in (")", "]", "}")
        if depth == 0 and tok.string == ";":
            parts.append([])
        else:
            parts[-1].append(tok)
    return [p for p in parts if p]


def _assignment(part: list[tokenize.TokenInfo]) -> tuple[list[str], list[tokenize.TokenInfo]]:
    """(the names, the value) of ``a = b = value``; ([], part) for anything else."""
    targets = []
    i = 0
    while i + 1 < len(part) and part[i].type == tokenize.NAME and part[i + 1].string == "=":
        if keyword.iskeyword(part[i].string):
            break
        targets.append(part[i].string)
        i += 2
    return (targets, part[i:]) if targets and i < len(part) else ([], part)


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
    "def",
    "class",
)


@dataclass
class _Use:
    """What a line does with the judge's names: ``guard`` (the paths it reads) where it
    is left out, None where it runs with the stand-in."""

    why: str
    guard: list[str] | None


def _judge_use(line: _Logical, bound: _JudgeNames) -> _Use | None:
    """How a line of the module's scope uses the judge's check() or hint(), updating
    what the names are after it; None where it does not."""
    toks, strings = line.toks, line.strings
    refs = [r for i in range(len(toks)) if (r := bound.ref(toks, i)) is not None]
    rebound = _names_bound(strings)
    if not refs:
        for name in rebound:
            bound.forget(name)
        return None
    first = refs[0]
    compound = strings[0] in _COMPOUND or strings[-1] == ":"
    plans = []
    for part in [] if compound else _parts(toks):
        targets, value = _assignment(part)
        reader = _Inert(value, bound)
        plans.append((targets, reader, reader.statement()))
    for name in rebound:
        bound.forget(name)
    if plans and all(inert and not targets for targets, _, inert in plans):
        paths = list(dict.fromkeys(p for _, reader, _ in plans for p in reader.paths))
        called = [c for _, reader, _ in plans for c in reader.calls]
        why = (
            _JUDGE_CALL_WHY.format(name=called[0])
            if called
            else _JUDGE_RESULT_WHY.format(name=first)
        )
        return _Use(why, paths)
    for targets, reader, inert in plans:
        if targets and inert:  # report = check(...): the name holds a stand-in
            made = (reader.calls or reader.reads)[0]
            for target in targets:
                bound.results[target] = made
    if len(plans) == 1 and plans[0][0] and plans[0][2]:
        targets, reader, _ = plans[0]
        return _Use(
            _JUDGE_TARGET_WHY.format(
                name=(reader.calls or reader.reads)[0], target=" and ".join(targets)
            ),
            None,
        )
    return _Use(_JUDGE_KEPT_WHY.format(name=first), None)


def _split_lines(text: str) -> list[str]:
    """``text``'s lines as Python counts them: split at ``\\n`` only (``str.splitlines``
    also splits at a form feed, ``\\x1c`` or ``\\u2028``, which Python reads as part of a
    line: joined back with ``\\n``, a comment holding one would become code)."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _drop_judge_calls(
    number: int, python: str, dropped: list[str], bound: _JudgeNames, part: int = 0
) -> str:
    logical = _logical_lines(python)
    if not logical:
        return python
    lines = _split_lines(python)
    for line in logical:
        strings = line.strings
        original = lines[line.first - 1].strip()
        shown = f"cell {number}, line {line.first}: {original[:80]}"
        col = line.toks[0].start[1]
        head = lines[line.first - 1][:col]
        imported = _judge_import(strings)
        if imported is not None:
            pairs, module = imported
            if line.module:
                for _, alias in pairs:
                    bound.forget(alias)
                bound.functions.update({alias: name for name, alias in pairs})
                if module is not None:
                    bound.forget(module)
                    bound.modules.add(module)
            bound.imported = True
            if module is not None:
                binding = f"{module} = {STAND_IN}"
            else:
                binding = (
                    ", ".join(alias for _, alias in pairs)
                    + " = "
                    + ", ".join(f"{STAND_IN}.{name}" for name, _ in pairs)
                )
            dropped.append(Dropped(shown, _JUDGE_IMPORT_WHY))
            lines[line.first - 1] = f"{head}{binding}  # dropped by the judge: {original}"
            for i in range(line.first, line.last):
                lines[i] = f"# {lines[i]}"
            continue
        if strings[:3] == ["from", "__future__", "import"] and line.depth == 0:
            features = [t.string for t in line.toks[3:] if t.type == tokenize.NAME]
            bound.futures.append((part, line.first, line.last, features))
            continue
        if not line.module:
            continue
        use = _judge_use(line, bound)
        if use is None:
            continue
        dropped.append(Dropped(shown, use.why))
        if use.guard is not None:
            guard = f"if not {STAND_IN}.still_the_judges({', '.join(repr(p) for p in use.guard)}): "
            lines[line.first - 1] = head + guard + lines[line.first - 1][col:]
    return "\n".join(lines) + "\n"


def _prelude(parts: list[str], bound: _JudgeNames) -> str:
    """The stand-in's definition, ahead of the first cell; the notebook's ``from
    __future__`` imports (which must come first) moved ahead of it."""
    features: list[str] = []
    for part, first, last, names in bound.futures:
        lines = _split_lines(parts[part])
        marker = 1  # the part's first line is its cell's marker
        for i in range(first, last + 1):
            text = lines[marker + i - 1]
            lines[marker + i - 1] = (
                f"pass  # moved ahead of the cells by the judge: {text.strip()}"
                if i == first
                else f"# {text}"
            )
        parts[part] = "\n".join(lines) + "\n"
        features += names
    future = f"from __future__ import {', '.join(dict.fromkeys(features))}\n" if features else ""
    return future + _PRELUDE


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
        # Python reads a lone CR as a line break, and so does Jupyter: the judge's line
        # counts split at LF only (_split_lines), so every break becomes one
        source = source.replace("\r\n", "\n").replace("\r", "\n")
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
    lines = _split_lines(source)
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
        transformed = _split_lines(_transform(source))
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
