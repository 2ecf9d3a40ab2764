"""Several tasks' reports of one submission in one document (``judge run --tasks``), as a
reader of each format expects it; and a late submission's charge in the files that
carry no score (Exercism, JUnit), as in Gradescope's (issue 22).

The reports are the golden batch's (tests/golden/batch/results.jsonl): real gradings of
two tasks.  tests/integration/test_run_tasks_formats.py grades a notebook and writes them
through ``judge run``."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest

from judge.report import Report
from judge.scoring import LatePolicy, score
from judge.writers import many_writer, render
from judge.writers.gradescope import results as gradescope_results

from helpers import TESTS
from helpers.platform_shapes import exercism_problems, gradescope_problems, junit_problems

RECORDS = {
    (r["learner"], r["task"]): r
    for r in map(
        json.loads, (TESTS / "golden" / "batch" / "results.jsonl").read_text().splitlines()
    )
}


def graded(learner: str, task: str) -> Report:
    return Report.from_dict(RECORDS[(learner, task)])


def both(learner: str = "ben") -> list[Report]:
    return [graded(learner, "cache_independent_count"), graded(learner, "huber")]


def late(report: Report, by: timedelta, penalty: str | None = "10%/day") -> Report:
    """The report as a batch's gradebook hands it to the writers (gradebook.cell_report)."""
    report.late = LatePolicy.parse(penalty).charge(by)  # type: ignore[attr-defined]
    return report


@pytest.mark.parametrize("fmt", ["gradescope", "exercism", "junit", "html"])
def test_every_file_format_writes_several_tasks_as_one_document(fmt):
    assert many_writer(fmt) is not None
    assert many_writer("text") is None and many_writer("json") is None  # one after another


def test_one_gradescope_results_json_holds_every_tasks_tests_and_sums_the_scores():
    reports = [graded("ann", "cache_independent_count"), graded("ben", "huber")]
    doc = json.loads(render("gradescope", reports))
    assert gradescope_problems(doc) == []
    one = [gradescope_results(r) for r in reports]
    assert doc["score"] == sum(d["score"] for d in one) == sum(score(r).earned for r in reports)
    names = [t["name"] for t in doc["tests"]]
    assert names == [f"{r.task}: {t['name']}" for r, d in zip(reports, one) for t in d["tests"]]
    assert [t["number"] for t in doc["tests"]][:2] == ["1.1", "1.2"]
    assert doc["tests"][-1]["number"] == f"2.{len(one[1]['tests'])}"
    assert set(doc["extra_data"]["tasks"]) == {"cache_independent_count", "huber"}


def test_one_exercism_results_json_holds_every_tasks_tests():
    doc = json.loads(render("exercism", both("ann")))
    assert exercism_problems(doc) == [] and doc["status"] == "pass"
    assert {t["name"].split(": ")[0] for t in doc["tests"]} == {"cache_independent_count", "huber"}
    assert {t["task_id"] for t in doc["tests"]} == {1, 2}
    mixed = json.loads(render("exercism", [graded("ann", "huber"), graded("ben", "huber")]))
    assert exercism_problems(mixed) == [] and mixed["status"] == "fail"
    # a task none of whose tests ran is an error test of its own, not a silent gap
    broken = json.loads(
        render("exercism", [graded("ann", "huber"), graded("dan", "cache_independent_count")])
    )
    assert exercism_problems(broken) == [] and broken["status"] == "fail"
    (error,) = [t for t in broken["tests"] if t["status"] == "error"]
    assert error["name"] == "cache_independent_count: the file" and error["task_id"] == 2
    alone = json.loads(render("exercism", [graded("dan", "cache_independent_count")] * 2))
    assert exercism_problems(alone) == [] and alone["status"] == "error"


def test_one_junit_document_has_a_testsuite_per_task():
    text = render("junit", both())
    assert junit_problems(text) == []
    root = ET.fromstring(text)
    suites = root.findall("testsuite")
    assert [s.find("properties/property[@name='task']").get("value") for s in suites] == [
        "cache_independent_count",
        "huber",
    ]
    assert int(root.get("failures")) == sum(int(s.get("failures")) for s in suites) > 0


def test_one_html_page_has_a_section_and_a_row_per_task():
    page = render("html", both("ann"))
    assert page.count("<!doctype html>") == 1 and page.count("<section id=") == 2
    for task in ("cache_independent_count", "huber"):
        assert f'<section id="task-{task}">' in page and f'href="#task-{task}"' in page
    maximum = sum(score(r).maximum for r in both("ann"))
    assert f'data-points="{maximum:g}" data-max-points="{maximum:g}"' in page


NOTE = (
    "handed in 1 day 2 h after the deadline (late policy: 10% of the points per started "
    "day late): 20% off"
)


def test_a_late_submissions_exercism_file_says_how_late_and_what_was_charged():
    doc = json.loads(render("exercism", [late(graded("ann", "huber"), timedelta(hours=26))]))
    assert exercism_problems(doc) == []  # the top-level message stays null: the spec's rule
    assert doc["tests"][0]["output"].startswith(NOTE)
    assert all(NOTE not in t.get("output", "") for t in doc["tests"][1:])  # said once
    error = json.loads(
        render("exercism", [late(graded("dan", "cache_independent_count"), timedelta(hours=26))])
    )
    assert error["status"] == "error" and NOTE in error["message"]
    on_time = json.loads(render("exercism", [graded("ann", "huber")]))
    assert "late" not in json.dumps(on_time)


def test_a_late_submissions_junit_file_says_how_late_and_what_was_charged():
    report = late(graded("ann", "huber"), timedelta(hours=26))
    earned = score(report)
    text = render("junit", [report])
    assert junit_problems(text) == []
    suite = ET.fromstring(text).find("testsuite")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["late_by_s"] == str(26 * 3600) and props["late_penalty"] == "0.2"
    assert props["late_policy"] == "10% of the points per started day late"
    assert (float(props["points_before_late"]), float(props["points"])) == (
        earned.before_late,
        earned.earned,
    )
    assert suite.find("system-out").text.startswith(f"note: {NOTE}")
    assert "late" not in render("junit", [graded("ann", "huber")])


def test_gradescope_says_a_late_submission_was_late_even_where_nothing_was_charged():
    charged = json.loads(render("gradescope", [late(graded("ann", "huber"), timedelta(hours=26))]))
    assert NOTE in charged["output"]
    marked = json.loads(
        render("gradescope", [late(graded("ann", "huber"), timedelta(hours=2), penalty=None)])
    )
    assert "handed in 2 h after the deadline (late policy: no penalty)" in marked["output"]
    assert marked["score"] == score(graded("ann", "huber")).earned
    assert "late" not in io.StringIO(render("gradescope", [graded("ann", "huber")])).getvalue()
