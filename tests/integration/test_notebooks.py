"""Notebook submissions: the code cells are the submission; shell escapes and magics are
transformed as IPython does and dropped (they do nothing in grading), each one said.

Here: the tests that start a worker or a `judge` process; tests/unit/test_notebooks.py has the
rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import SOLUTION, TASK, notebook, put_at, run_judge
from helpers.isolation_modes import MODES


def judge_run(path: Path) -> dict:
    return json.loads(run_judge("run", TASK, path, "--format", "json", "--examples", "20").stdout)


@pytest.mark.slow
def test_judge_run_grades_a_notebook(tmp_path):
    path = tmp_path / f"{TASK}.ipynb"
    path.write_text(
        notebook(("markdown", "My answer"), ("code", "!pip install jax"), ("code", SOLUTION))
    )
    report = judge_run(path)
    assert report["verdict"] == "accepted", report["checks"]


@pytest.mark.slow
def test_judge_run_grades_a_notebook_with_magics_and_says_what_it_left_out(tmp_path):
    path = tmp_path / f"{TASK}.ipynb"
    path.write_text(
        notebook(("code", "%%time\n" + SOLUTION + "\n%timeit cache_independent_count(1, 2)"))
    )
    report = judge_run(path)
    assert report["verdict"] == "accepted", report["checks"]
    assert report["notes"] == [
        "notebook cell 1, line 1: %%time: an IPython-only line, left out (it does nothing when graded)",
        f"notebook cell 1, line {SOLUTION.count(chr(10)) + 3}: %timeit cache_independent_count(1, 2): "
        "an IPython-only line, left out (it does nothing when graded)",
    ]


@pytest.mark.slow
def test_judge_run_reads_a_py_as_python_would(tmp_path):
    """A .py's bytes reach the worker as they are: an encoding cookie is honoured, and a
    file Python cannot decode is the learner's invalid submission, not a judge error."""
    latin = tmp_path / f"{TASK}.py"
    latin.write_bytes(
        ("# -*- coding: latin-1 -*-\n" + SOLUTION + "\nassert len('é') == 1\n").encode("latin-1")
    )
    assert judge_run(latin)["verdict"] == "accepted"
    broken = tmp_path / "broken.py"
    broken.write_bytes(SOLUTION.encode() + b"\nname = '\xff'\n")
    assert judge_run(broken)["verdict"] == "invalid_submission"


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_judge_run_grades_a_malformed_notebook_as_the_learners_invalid_submission(tmp_path, mode):
    """Exit 1 and invalid_submission, not exit 3 (judge_error, "not your fault")."""
    path = tmp_path / f"{TASK}.ipynb"
    path.write_text(
        json.dumps(put_at(json.loads(notebook(("code", SOLUTION))), ("cells", 0, "source"), 5))
    )
    out = run_judge("run", TASK, path, "--format", "json", "--isolation", mode)
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "invalid_submission"
    assert "cell 1, source: 5" in report["checks"][0]["message"]
    assert "Traceback" not in out.stderr
