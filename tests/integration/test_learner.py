"""What a learner calls from a notebook: check() grades a function through the same
runner and sandbox as `judge run` (tried from a real Jupyter kernel), hint() shows a
task's nudges.

Here: the tests that start a worker or a `judge` process; tests/unit/test_learner.py has the
rest."""

from __future__ import annotations

import json

import pytest

from helpers import TASK, run_judge
from helpers.learner_module import load_module


def test_judge_hint_on_the_command_line():
    proc = run_judge("hint", TASK, "2")
    assert proc.returncode == 0 and proc.stdout.startswith(f"Hint 2 of 3 for {TASK}:")


@pytest.mark.slow
def test_check_from_a_py_file_grades_like_judge_run(tmp_path):
    from judge import check

    report = check(TASK, load_module(tmp_path).my_count, examples=10)
    assert report.verdict == "accepted" and report.submission == "my_count (from mine.py)"
    assert report.notes[0].startswith(f"graded my_count as {TASK}, with jax (mine.py line 1)")
    assert repr(report).startswith(f"ACCEPTED  {TASK}  my_count (from mine.py)")
    assert report._repr_html_().startswith('<div class="jj jj-report" data-verdict="accepted">')


@pytest.mark.slow
def test_check_and_hint_from_a_jupyter_kernel(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    cells = [
        "!echo setting up\n%time x = 1",
        "import jax\nimport jax.numpy as jnp\n_sum = jax.jit(jnp.sum)",
        "def my_count(x_a, x_b):\n    return _sum(x_a) + _sum(x_b)",
        "def too_short(x_a, x_b):\n    return _sum(x_a)",
        f"from judge import check, hint\nreport = check({TASK!r}, my_count, examples=10)\nreport",
        f"wrong = check({TASK!r}, too_short, examples=10)\n"
        "print(wrong.verdict, '|', wrong.notes[0])",
        f"hint({TASK!r}, 1)",
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    client = nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    shown = nb.cells[4].outputs[-1]["data"]
    assert shown["text/html"].startswith('<div class="jj jj-report" data-verdict="accepted">')
    assert "2 examples from the statement" in shown["text/html"]
    assert shown["text/plain"].startswith(f"ACCEPTED  {TASK}  my_count (from the notebook)")
    printed = "".join(o.get("text", "") for o in nb.cells[5].outputs)
    assert printed == f"wrong_answer | graded too_short as {TASK}, with jax, jnp, _sum (cell 2)\n"
    assert (
        nb.cells[6].outputs[-1]["data"]["text/markdown"].startswith(f"**Hint 1 of 3** for `{TASK}`")
    )
    assert json.dumps(nb.cells[0].outputs).count("setting up") == 1  # the magics ran there
