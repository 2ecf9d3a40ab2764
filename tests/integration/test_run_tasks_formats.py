"""``judge run --tasks ID,ID NOTEBOOK`` in every format (issue 22): one Gradescope or
Exercism results.json holding every task's tests, one JUnit XML with a testsuite per
task, one HTML page with a section per task; and a task that cannot be graded still has
its place in a results file, scoring 0 and saying why."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from helpers import ROOT, notebook, run_judge
from helpers.platform_shapes import exercism_problems, gradescope_problems, junit_problems

pytest.importorskip("nbformat")

BUCKETED = (ROOT / "reference" / "bucketed_mean.py").read_text()
COL_MEAN = (ROOT / "reference" / "col_mean.py").read_text()


def test_a_task_that_cannot_be_graded_still_has_its_place_in_the_results_file(tmp_path):
    missing = tmp_path / "week3.ipynb"  # never written: nothing is graded, nothing started
    done = run_judge("run", "--tasks", "col_mean,no_such_task", missing, "--format", "gradescope")
    assert done.returncode == 2, done.stderr
    doc = json.loads(done.stdout)  # one document, not one a task
    assert gradescope_problems(doc) == [] and doc["score"] == 0
    assert set(doc["extra_data"]["tasks"]) == {"col_mean", "no_such_task"}
    assert "cannot read" in doc["output"] and "no_such_task" in doc["output"]
    done = run_judge("run", "--tasks", "col_mean,no_such_task", missing, "--format", "exercism")
    doc = json.loads(done.stdout)
    assert done.returncode == 2 and exercism_problems(doc) == [] and doc["status"] == "error"
    assert "col_mean: nothing to grade: cannot read" in doc["message"]


def test_an_unknown_task_is_a_usage_error_before_anything_is_graded(tmp_path):
    path = tmp_path / "week3.ipynb"
    path.write_text(notebook(("code", COL_MEAN)))
    for fmt in ("text", "json", "junit", "html"):
        done = run_judge("run", "--tasks", "col_mean,no_such_task", path, "--format", fmt)
        assert done.returncode == 2 and "no_such_task" in done.stderr, (fmt, done.stderr)
        assert done.stdout == "", fmt  # col_mean was not graded first


@pytest.mark.slow
def test_every_format_writes_one_document_of_every_task(tmp_path):
    path = tmp_path / "week3.ipynb"
    path.write_text(notebook(("code", BUCKETED), ("code", COL_MEAN)))
    tasks = ["bucketed_mean", "col_mean", "huber"]  # huber's function is not there

    def run(fmt: str):
        done = run_judge(
            "run", "--tasks", ",".join(tasks), path, "--format", fmt, "--examples", "10",
            timeout=900,
        )  # fmt: skip
        assert done.returncode == 1, done.stderr  # the worst: huber is not accepted
        return done.stdout

    gradescope = json.loads(run("gradescope"))
    assert gradescope_problems(gradescope) == []
    by_task = {t: [x for x in gradescope["tests"] if x["extra_data"]["task"] == t] for t in tasks}
    assert all(by_task.values()) and by_task["bucketed_mean"][0]["name"].startswith(
        "bucketed_mean: "
    )
    full = [sum(x["max_score"] for x in by_task[t]) for t in tasks]
    assert gradescope["score"] == full[0] + full[1] > 0  # huber's 0 in the sum
    exercism = json.loads(run("exercism"))
    assert exercism_problems(exercism) == [] and exercism["status"] == "fail"
    assert {t["task_id"] for t in exercism["tests"]} == {1, 2, 3}
    junit = run("junit")
    assert junit_problems(junit) == []
    suites = ET.fromstring(junit).findall("testsuite")
    assert [s.get("name").split(":")[0] for s in suites] == tasks
    page = run("html")
    assert page.count("<!doctype html>") == 1
    assert [t for t in tasks if f'<section id="task-{t}">' in page] == tasks
