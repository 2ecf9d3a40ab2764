"""Notebooks the way a course uses them (issue 22): the README's own flow (``from judge
import check, hint``, ``check(...)``) hands in as it is, errors name the notebook's cell
and line, ``files = !ls`` is a list, and one notebook answers several tasks in
``judge run --tasks`` and ``judge batch``.  The notebooks are run in a real Jupyter
kernel first, to show they are what a learner has in hand."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from judge.batch.discovery import discover
from judge.notebooks import defined_names, dropped_notes, in_cells, notebook_submission, where

from helpers import ROOT, notebook, run_judge

pytest.importorskip("nbformat")

BUCKETED = (ROOT / "reference" / "bucketed_mean.py").read_text()
COL_MEAN = (ROOT / "reference" / "col_mean.py").read_text()
ENTRYPOINTS = {"bucketed_mean": "bucketed_mean", "col_mean": "col_mean", "huber": "huber"}


# ---------------------------------------------------------------- the judge's own calls


def test_the_import_and_calls_of_check_and_hint_are_dropped_and_said():
    nb = notebook_submission(
        notebook(
            ("markdown", "# Week 3"),
            ("code", "from judge import check, hint\nimport math"),
            ("code", "def f(x):\n    return math.sqrt(x)"),
            (
                "code",
                "report = check('t', f,\n               examples=3)\nhint('t', 1);\n"
                "print(check('t', f).verdict)\ny = f(4.0)",
            ),
        )
    )
    cells = nb.text[nb.text.index("# %% cell 2\n") :].splitlines()  # after the stand-in
    assert len(cells) == 3 + 2 + 2 + 2 + 5  # markers, blank lines, cells: kept
    namespace: dict = {}
    exec(compile(nb.text, "nb", "exec"), namespace)  # noqa: S102 - the test's own text
    assert str(namespace["report"]) == "(the judge's check() does not run when graded)"
    assert namespace["y"] == 2.0
    assert [d.split(":")[0] for d in nb.dropped] == [
        "cell 2, line 1",
        "cell 4, line 1",
        "cell 4, line 3",
        "cell 4, line 4",
    ]
    notes = dropped_notes(nb.dropped)
    assert "the import of the judge's check() and hint(), left out" in notes[0]
    assert "a call of the judge's check(), not run when graded: report is a stand-in" in notes[1]
    assert "a call of the judge's hint(), left out" in notes[2]
    assert all("IPython-only" not in n for n in notes)


def test_a_notebooks_own_check_is_left_alone():
    nb = notebook_submission(
        notebook(
            ("code", "def check(x):\n    return x + 1\nz = check(1)"),
            ("code", "import judge\njudge.check('t', check)"),
        )
    )
    namespace: dict = {}
    exec(compile(nb.text.replace("import judge", "pass"), "nb", "exec"), namespace)  # noqa: S102
    assert namespace["z"] == 2
    assert [d.split(":")[0] for d in nb.dropped] == ["cell 2, line 1", "cell 2, line 2"]


def test_a_shell_escape_that_assigns_gives_an_empty_list_and_says_it_did_not_run():
    nb = notebook_submission(notebook(("code", "files = !ls\ncount = len(files)")))
    namespace: dict = {}
    exec(compile(nb.text, "nb", "exec"), namespace)  # noqa: S102
    assert namespace["files"] == [] and namespace["count"] == 0
    (note,) = dropped_notes(nb.dropped)
    assert note == (
        "notebook cell 1, line 1: files = !ls: a shell escape, not run when "
        "graded: files is an empty list there"
    )


def test_a_line_of_the_joined_script_is_named_as_the_notebooks_cell_and_line():
    text = notebook_submission(
        notebook(("markdown", "intro"), ("code", "a = 1\nb = 2"), ("code", "x = 1\ny = 2\nz = 3"))
    ).text
    z = text.splitlines().index("z = 3") + 1
    assert where(text, z) == (3, 3)
    assert where(text, 1) is None  # the marker is no cell's line
    tb = f'  File "nb.ipynb", line {z}, in f\nNameError: boom (line {z})'
    assert (
        in_cells(tb, text, "nb.ipynb")
        == '  File "nb.ipynb", cell 3, line 3, in f\nNameError: boom (cell 3, line 3)'
    )


def test_the_names_a_notebook_defines_say_which_tasks_it_answers():
    text = notebook_submission(
        notebook(
            ("code", "import jax\nimport jax.numpy as jnp"),
            ("code", COL_MEAN),
            ("code", BUCKETED),
            ("code", "def helper():\n    huber = 1\n"),
        )
    ).text
    names = defined_names(text)
    assert {"bucketed_mean", "col_mean", "jax", "jnp", "helper"} <= names
    assert "huber" not in names  # a local, not the notebook's


# ---------------------------------------------------------------- a real kernel, then the judge


def execute(cells: list[str], tmp_path: Path, allow_errors: bool = False):
    """The notebook run in a Jupyter kernel, as the learner ran it before handing it in."""
    import nbformat

    nbclient = pytest.importorskip("nbclient")

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Week 3")] + [
        nbformat.v4.new_code_cell(c) for c in cells
    ]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbclient.NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        allow_errors=allow_errors,
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    return nb


def hand_in(nb, path: Path) -> Path:
    import nbformat

    nbformat.write(nb, path)
    return path


def graded(*args) -> list[dict]:
    out = run_judge("run", *args, "--format", "json", "--examples", "10", timeout=900)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


@pytest.mark.slow
def test_the_readmes_notebook_flow_runs_in_a_kernel_and_is_accepted_when_handed_in(tmp_path):
    nb = execute(
        [
            "from judge import check, hint\nfiles = !ls\nn_files = len(files)",
            BUCKETED,
            'report = check("bucketed_mean", bucketed_mean, examples=10)\nprint(report.verdict)',
        ],
        tmp_path,
    )
    assert "accepted" in "".join(o.get("text", "") for o in nb.cells[3].outputs)
    (report,) = graded("bucketed_mean", hand_in(nb, tmp_path / "week3.ipynb"))
    assert report["verdict"] == "accepted", report["checks"][0]["message"]
    notes = "\n".join(report["notes"])
    assert "cell 2, line 1: from judge import check, hint: the import of the judge's" in notes
    assert (
        "cell 2, line 2: files = !ls: a shell escape, not run when graded: files is an "
        "empty list there" in notes
    )
    assert (
        'cell 4, line 1: report = check("bucketed_mean", bucketed_mean, examples=10): '
        "a call of the judge's check()" in notes
    )


@pytest.mark.slow
def test_lines_that_read_what_check_gave_run_in_a_kernel_and_when_handed_in(tmp_path):
    """Issue 22: lines that keep, test or show what check() and hint() gave, as a learner
    writes them, run in the kernel; handed in, each is left out or runs with a stand-in,
    as the report says, and the rest of the notebook runs.  A comment holding a form feed
    stays a comment (graded, it once became the line that undid the function)."""
    nb = execute(
        [
            "from judge import check, hint",
            BUCKETED + "\nnote = 1  #\x0cbucketed_mean = None\n",
            "\n".join(
                [
                    'r = check("bucketed_mean", bucketed_mean, examples=10)',
                    "print(r.verdict)",
                    'assert r.verdict == "accepted", r.verdict',
                    'if r.verdict == "accepted":',
                    '    done = ["bucketed_mean"]',
                    'ok = r and hint("bucketed_mean", 1)',
                    'print(hint("bucketed_mean", 1))',
                    'steps = len(done); check("bucketed_mean", bucketed_mean, examples=10)',
                    "print('steps', steps, bucketed_mean is not None)",
                ]
            ),
        ],
        tmp_path,
    )
    shown = "".join(o.get("text", "") for o in nb.cells[3].outputs)
    assert "accepted" in shown and "steps 1 True" in shown, shown
    (report,) = graded("bucketed_mean", hand_in(nb, tmp_path / "week3.ipynb"))
    assert report["verdict"] == "accepted", report["checks"][0]["message"]
    assert report["output"]["stdout"] == "steps 1 True\n"  # nothing of the judge's printed
    notes = {n.split(": ")[0]: n for n in report["notes"] if n.startswith("notebook cell 4")}
    said = {
        1: "r is a stand-in there",
        2: "a use of what the judge's check() gave, left out",
        3: "a use of what the judge's check() gave, left out",
        4: "the line runs, with a stand-in",
        6: "ok is a stand-in there",
        7: "a call of the judge's hint(), left out",
        8: "the line runs, with a stand-in",
    }
    assert sorted(notes) == [f"notebook cell 4, line {n}" for n in sorted(said)]
    for line, words in said.items():
        assert words in notes[f"notebook cell 4, line {line}"], notes


@pytest.mark.slow
def test_an_error_names_the_cell_and_the_line_in_it_as_the_kernel_does(tmp_path):
    broken = (
        "import numpy as np\n\n\ndef bucketed_mean(x):\n    return np.float32(undefined_name)\n"
    )
    nb = execute(
        ["import numpy as np", broken, "bucketed_mean(np.ones(3, np.float32))"],
        tmp_path,
        allow_errors=True,
    )
    kernel_tb = "\n".join(nb.cells[3].outputs[-1]["traceback"])
    assert "line 5" in kernel_tb  # the kernel's own count of the line
    (report,) = graded("bucketed_mean", hand_in(nb, tmp_path / "week3.ipynb"))
    failed = next(
        c for c in report["checks"] if c["status"] == "error" and "NameError" in c["message"]
    )
    assert "(cell 3, line 5)" in failed["message"], failed["message"]
    assert 'File "week3.ipynb", cell 3, line 5, in bucketed_mean' in failed["details"]["traceback"]
    joined = notebook_submission(Path(tmp_path / "week3.ipynb").read_text()).text
    line = joined.splitlines().index("    return np.float32(undefined_name)") + 1
    assert line != 5 and f"(line {line})" not in failed["message"]  # not the joined script's


@pytest.mark.slow
def test_judge_run_grades_one_notebook_against_each_task_it_answers(tmp_path):
    nb = execute(["import jax", BUCKETED, COL_MEAN], tmp_path)
    path = hand_in(nb, tmp_path / "week3.ipynb")
    reports = graded("--tasks", "bucketed_mean,col_mean,huber", path)
    assert [(r["task"], r["verdict"]) for r in reports] == [
        ("bucketed_mean", "accepted"),
        ("col_mean", "accepted"),
        ("huber", "invalid_submission"),
    ]
    text = run_judge(
        "run", "--tasks", "bucketed_mean,col_mean", path, "--examples", "10", timeout=900
    )
    assert text.returncode == 0
    assert text.stdout.count("ACCEPTED  ") == 2
    usage = run_judge("run", "bucketed_mean", path, "--tasks", "col_mean")
    assert usage.returncode == 2 and "give the submission alone" in usage.stderr


# ---------------------------------------------------------------- a class of notebooks


def test_a_notebook_answers_every_task_whose_function_it_defines(tmp_path):
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "week3.ipynb").write_text(
        notebook(("code", BUCKETED), ("code", COL_MEAN))
    )
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "week3.ipynb").write_text(notebook(("code", BUCKETED), ("code", COL_MEAN)))
    (tmp_path / "bob" / "col_mean.py").write_text(COL_MEAN)  # named: this one counts
    (tmp_path / "carol").mkdir()
    (tmp_path / "carol" / "scratch.ipynb").write_text(notebook(("code", "x = 1")))
    found = discover(tmp_path, set(ENTRYPOINTS), entrypoints=ENTRYPOINTS)
    got = sorted((s.learner, s.task_id, Path(s.path).name) for s in found.submissions)
    assert got == [
        ("alice", "bucketed_mean", "week3.ipynb"),
        ("alice", "col_mean", "week3.ipynb"),
        ("bob", "bucketed_mean", "week3.ipynb"),
        ("bob", "col_mean", "col_mean.py"),
    ]
    (carol,) = found.skipped
    assert "a notebook defining a task's function" in carol.why


def test_a_manifest_maps_one_notebook_to_several_tasks(tmp_path):
    (tmp_path / "a.ipynb").write_text(notebook(("code", BUCKETED), ("code", COL_MEAN)))
    (tmp_path / "class.csv").write_text(
        "learner,task,path\nann,bucketed_mean;col_mean,a.ipynb\nben,*,a.ipynb\n"
    )
    found = discover(tmp_path / "class.csv", set(ENTRYPOINTS), entrypoints=ENTRYPOINTS)
    assert sorted((s.learner, s.task_id) for s in found.submissions) == [
        ("ann", "bucketed_mean"),
        ("ann", "col_mean"),
        ("ben", "bucketed_mean"),
        ("ben", "col_mean"),
    ]


def test_a_misspelt_file_gets_the_learner_the_same_did_you_mean(tmp_path):
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "bucketd_mean.py").write_text(BUCKETED)
    found = discover(tmp_path, set(ENTRYPOINTS), entrypoints=ENTRYPOINTS)
    (skipped,) = found.skipped
    assert "(did you mean bucketed_mean?)" in skipped.why  # the instructor's line
    why = found.why_missing("bob", "bucketed_mean")  # the learner's file's
    assert why == (
        "no submission for bucketed_mean was found: bob/bucketd_mean.py matches no "
        "task (expected <task_id>.py or .ipynb) (did you mean bucketed_mean?)"
    )
    assert str(tmp_path) not in why  # not the instructor's path
    assert "did you mean" not in found.why_missing("bob", "col_mean")


@pytest.mark.slow
def test_judge_batch_fills_each_tasks_column_from_one_notebook(tmp_path):
    learners = tmp_path / "class"
    (learners / "alice").mkdir(parents=True)
    (learners / "alice" / "week3.ipynb").write_text(
        notebook(
            ("code", "from judge import check\n" + BUCKETED),
            ("code", COL_MEAN),
            ("code", "check('col_mean', col_mean)"),
        )
    )
    (learners / "bob").mkdir()
    (learners / "bob" / "bucketd_mean.py").write_text(BUCKETED)
    (learners / "bob" / "col_mean.py").write_text(COL_MEAN)
    out = tmp_path / "out"
    done = run_judge(
        "batch",
        learners,
        "--out",
        out,
        "--workers",
        "2",
        "--examples",
        "10",
        "--tasks",
        "bucketed_mean,col_mean",
        "--emit",
        "gradescope,exercism",
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO((out / "gradebook.csv").read_text())))
    assert {r["learner"]: (r["bucketed_mean"], r["col_mean"]) for r in rows} == {
        "alice": ("accepted", "accepted"),
        "bob": ("missing", "accepted"),
    }
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert sorted((r["learner"], r["task"]) for r in lines) == [
        ("alice", "bucketed_mean"),
        ("alice", "col_mean"),
        ("bob", "col_mean"),
    ]
    gradescope = json.loads(
        (out / "gradescope" / "bob" / "bucketed_mean" / "results.json").read_text()
    )
    exercism = json.loads((out / "exercism" / "bob" / "bucketed_mean" / "results.json").read_text())
    for said in (gradescope["output"], exercism["message"]):
        assert "bob/bucketd_mean.py" in said and "(did you mean bucketed_mean?)" in said
