"""The judge's own check() and hint() in a handed-in notebook (issue 22): a line whose only
purpose is them is left out; a line that uses what they gave runs with a stand-in; a line
that mixes them with real work keeps the work; the report names each line.  No learner
can hide code from grading this way, or slip code past it: a comment stays a comment,
and a line left out runs as written when the notebook made ``check`` its own.

The joined script is run here, in this process (``exec``), as the worker would run it;
tests/integration/test_notebook_course.py runs such notebooks in a Jupyter kernel and
hands them in to ``judge run``."""

from __future__ import annotations

import contextlib
import io

import pytest

from judge.notebooks import STAND_IN, dropped_notes, notebook_submission

from helpers import notebook

pytest.importorskip("nbformat")

IMPORT = "from judge import check, hint\nimport math"
DEFINE = "def f(x):\n    return math.sqrt(x)"
STANDS_IN = "(the judge's check() does not run when graded)"


def graded(*cells: str) -> tuple[dict, str, dict[int, str]]:
    """(the script's namespace, what it printed, cell 3's line -> its note)."""
    nb = notebook_submission(notebook(*(("code", c) for c in cells)))
    namespace: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(nb.text, "nb.ipynb", "exec"), namespace)  # noqa: S102 - the test's own text
    notes = {}
    for note in dropped_notes(nb.dropped):
        where, _, rest = note.removeprefix("notebook ").partition(": ")
        cell, line = (int(part.split()[-1]) for part in where.split(", "))
        if cell == 3:
            notes[line] = rest
    return namespace, printed.getvalue(), notes


def test_a_line_only_for_check_is_left_out_and_one_using_its_result_gets_a_stand_in():
    namespace, printed, notes = graded(
        IMPORT,
        DEFINE,
        "\n".join(
            [
                'r = check("bucketed_mean", f)',  # 1: stand-in
                'print(check("t", f).verdict)',  # 2: left out
                'assert check("t", f).accepted',  # 3: left out
                'if check("t", f):',  # 4: runs, with the stand-in
                "    y = f(4.0)",
                'ok = check("t", f) and hint("t", 1)',  # 6: stand-in
                'print(r.verdict, "is the verdict")',  # 7: left out
                'assert r.verdict == "accepted", r.verdict',  # 8: left out
                'hint("t", 2);',  # 9: left out
                "r",  # 10: left out (a cell's last value, shown in Jupyter)
                "display(r)",  # 11: left out (IPython's display: not there when graded)
                "after = f(9.0)",
            ]
        ),
    )
    assert printed == ""  # nothing of the judge's shows
    assert str(namespace["r"]) == STANDS_IN and namespace["y"] == 2.0
    assert str(namespace["ok"]) == "(the judge's hint() does not run when graded)"
    assert namespace["after"] == 3.0  # the rest of the notebook ran
    left_out = "a call of the judge's {}(), left out"
    assert notes[1].startswith('r = check("bucketed_mean", f): a call of the judge\'s check()')
    assert "r is a stand-in there that shows nothing" in notes[1]
    assert left_out.format("check") in notes[2] and left_out.format("check") in notes[3]
    assert "the line runs, with a stand-in for what check() gives" in notes[4]
    assert "ok is a stand-in there" in notes[6]
    for line in (7, 8, 10, 11):
        assert "a use of what the judge's check() gave, left out" in notes[line], line
    assert left_out.format("hint") in notes[9]
    assert sorted(notes) == [1, 2, 3, 4, 6, 7, 8, 9, 10, 11]


def test_a_line_mixing_check_with_real_work_keeps_the_work():
    namespace, printed, notes = graded(
        IMPORT + "\ncalls = []\ndef g():\n    calls.append('g')\n    return f",
        DEFINE,
        "\n".join(
            [
                'z = f(9.0); check("t", f)',  # 1: the assignment runs
                'print(f(16.0), check("t", f))',  # 2: prints f(16.0)
                'check("t", g())',  # 3: g() is called
                'check("t", h := f)',  # 4: h is bound
                'print(f"{f(1.0)}", check("t", f))',  # 5: the f-string's call runs
                'w = check("t", f) or f(25.0)',  # 6: as in Jupyter (a report is truthy)
                'v = check("t", f) and f(36.0)',  # 7: as in Jupyter
            ]
        ),
    )
    assert (
        namespace["z"] == 3.0 and namespace["calls"] == ["g"] and namespace["h"] is namespace["f"]
    )
    assert printed.splitlines() == [f"4.0 {STANDS_IN}", f"1.0 {STANDS_IN}"]
    assert str(namespace["w"]) == STANDS_IN and namespace["v"] == 6.0
    for line in range(1, 8):
        assert "runs" in notes[line] or "stand-in there" in notes[line], (line, notes[line])
        assert "left out" not in notes[line], (line, notes[line])


def test_a_check_of_the_notebooks_own_runs_however_it_got_the_name():
    namespace, printed, notes = graded(
        IMPORT + "\nimport judge",
        DEFINE + "\nseen = []\ndef mine(*args):\n    seen.append(args[0])\n    return 'mine'",
        "\n".join(
            [
                'globals()["check"] = mine',  # bound where no reading of the text sees it
                'check("by globals", f)',
                "judge.check = mine",
                'judge.check("by attribute", f)',
                'r = hint("t", 1)',
                'r.verdict = "set by the notebook"',
                "print(r.verdict)",
                "print = lambda *a: seen.append('print')",
                'print(hint("t", 1))',
                "if True:",
                "    hint = mine",
                'hint("in a block", 1)',
            ]
        ),
    )
    assert namespace["seen"] == ["by globals", "by attribute", "print", "in a block"]
    assert printed == "set by the notebook\n"


def test_names_of_the_notebooks_own_are_never_the_judges():
    nb = notebook_submission(
        notebook(
            ("code", "from checks import check, hint\nfrom judge import hint as h"),
            ("code", "def f(x):\n    return x\ncheck('t', f)\nhint('t', 1)\nx.check('t', f)"),
            ("code", "h('t', 1)"),
        )
    )
    assert [n.split(":")[0] for n in nb.dropped] == ["cell 1, line 2", "cell 3, line 1"]
    assert "check('t', f)\nhint('t', 1)\nx.check('t', f)\n" in nb.text  # as written


@pytest.mark.parametrize(
    "breaks", ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
)
def test_a_comment_stays_a_comment(breaks):
    """Characters str.splitlines() breaks a line at, which Python reads as part of one:
    a comment holding one is not turned into code (graded, it printed "smuggled")."""
    namespace, printed, _ = graded(
        IMPORT, DEFINE, f'check("t", f)\nx = 1  #{breaks}print("smuggled"); x = 2'
    )
    assert printed == "" and namespace["x"] == 1


def test_a_lone_carriage_return_breaks_the_line_as_python_and_jupyter_do():
    namespace, printed, notes = graded(IMPORT, DEFINE, 'x = 1\rcheck("t", f)\ry = 2')
    assert (namespace["x"], namespace["y"], printed) == (1, 2, "")
    assert list(notes) == [2]


def test_imports_of_the_judge_anywhere_get_the_stand_in():
    namespace, printed, _ = graded(
        "from __future__ import annotations\ntry:\n    from judge import check\n"
        "except ImportError:\n    check = None",
        "def f(x: Later) -> Later:\n    from judge.learner_api import hint\n    return hint('t', 1)",
        "r = check('t', f)\nhinted = f(1)",
    )
    assert str(namespace["r"]) == STANDS_IN
    assert str(namespace["hinted"]) == "(the judge's hint() does not run when graded)"
    assert namespace["f"].__annotations__ == {"x": "Later", "return": "Later"}  # still lazy
    namespace, _, notes = graded("from judge import *", DEFINE, "import math\nr = hint('t', 1)")
    assert str(namespace["r"]) == "(the judge's hint() does not run when graded)"


def test_a_notebook_without_the_judge_has_no_stand_in():
    nb = notebook_submission(notebook(("code", "def check(x):\n    return x\ncheck(1)")))
    assert STAND_IN not in nb.text and nb.dropped == []
