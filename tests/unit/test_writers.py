"""The Exercism v3, Gradescope and JUnit writers: every output has the published shape
(validators in tests/helpers/platform_shapes.py), and
agrees with the verdict.

Here: the tests that start no process; tests/integration/test_writers.py has those that
grade in a worker."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest

from judge.report import CheckResult, Report
from judge.writers import FORMATS, writer

from helpers import TASK
from helpers.platform_shapes import exercism_problems, gradescope_problems, junit_problems


def check(cid, status, message="", *, kind=None, required=True, verdict=None, **kw):
    return CheckResult(
        id=cid,
        kind=kind or cid,
        required=required,
        status=status,
        message=message,
        verdict=verdict,
        **kw,
    )


def report(checks, *, strict=False, output=None) -> Report:
    r = Report(
        task=TASK,
        submission="ann/cache_independent_count.py",
        seed=9009,
        judge_version="0.1.0",
        checks=checks,
        strict=strict,
        elapsed_s=1.25,
        output=output or {"stdout": "", "stderr": "", "truncated": False},
    )
    return r.finish()


ACCEPTED = report(
    [
        check("examples", "passed", "2 examples", kind="example"),
        check("property", "passed", "100 inputs agree"),
        check("retrace", "passed", "3 traces, within 3", required=False),
    ]
)
ADVISORY_FAILED = [
    check("examples", "passed", "2 examples", kind="example"),
    check("property", "passed", "100 inputs agree"),
    check(
        "retrace", "failed", "5 traces, over the budget of 3", required=False, verdict="inefficient"
    ),
]
WRONG = report(
    [
        check("examples", "passed", "2 examples", kind="example"),
        check(
            "property",
            "failed",
            "f(x_a=[-1.0], x_b=[]): expected -1.0, got 1.0",
            counterexample={"args": {"x_a": [-1.0], "x_b": []}, "expected": -1.0, "actual": 1.0},
        ),
        check(
            "retrace", "error", "scripted call 1 failed", required=False, verdict="runtime_error"
        ),
    ],
    output={"stdout": "debug \x00\x1b[31m" + "x" * 2000, "stderr": "warn\n", "truncated": True},
)
CRASHED = report(
    [
        check(
            "examples",
            "error",
            "Example 1: crashed with SIGABRT",
            kind="example",
            verdict="runtime_error",
            details={"traceback": "Traceback ...\nOSError"},
        ),
        check("property", "error", "crashed with SIGABRT", verdict="runtime_error"),
        check("retrace", "passed", "0 traces", required=False),
    ]
)
INVALID = report(
    [
        check(
            "load",
            "error",
            "the file does not load: SyntaxError (line 6)",
            verdict="invalid_submission",
        ),
        check("examples", "skipped", "not run: the submission did not load", kind="example"),
        check("property", "skipped", "not run: the submission did not load"),
        check("retrace", "skipped", "not run: the submission did not load", required=False),
    ]
)
JUDGE_ERROR = report(
    [check("judge", "error", "the judge failed (not your fault): boom", verdict="judge_error")]
)
REPORTS = {
    "accepted": ACCEPTED,
    "advisory": report(ADVISORY_FAILED),
    "advisory-strict": report(ADVISORY_FAILED, strict=True),
    "wrong": WRONG,
    "crashed": CRASHED,
    "invalid": INVALID,
    "judge_error": JUDGE_ERROR,
}


def written(fmt: str, r: Report) -> str:
    buf = io.StringIO()
    writer(fmt)(r, buf)
    return buf.getvalue()


# ---------------------------------------------------------------- the tests


def test_the_three_formats_are_registered():
    assert {"exercism", "gradescope", "junit"} <= set(FORMATS)


@pytest.mark.parametrize("name", REPORTS)
def test_exercism_shape(name):
    doc = json.loads(written("exercism", REPORTS[name]))
    assert exercism_problems(doc) == []
    assert (doc["status"] == "pass") == (REPORTS[name].verdict == "accepted")


@pytest.mark.parametrize("name", REPORTS)
def test_gradescope_shape(name):
    assert gradescope_problems(json.loads(written("gradescope", REPORTS[name]))) == []


@pytest.mark.parametrize("name", REPORTS)
def test_junit_shape(name):
    assert junit_problems(written("junit", REPORTS[name])) == []


def test_exercism_error_only_when_no_test_ran():
    invalid = json.loads(written("exercism", INVALID))
    assert invalid["status"] == "error" and "SyntaxError" in invalid["message"]
    assert json.loads(written("exercism", JUDGE_ERROR))["status"] == "error"
    crashed = json.loads(written("exercism", CRASHED))
    assert crashed["status"] == "fail"  # the checks ran: they failed, not the runner
    assert [t["status"] for t in crashed["tests"]] == ["error", "error", "pass"]


def test_exercism_one_test_per_check_with_capped_output():
    doc = json.loads(written("exercism", WRONG))
    assert [t["name"] for t in doc["tests"]] == ["examples", "property", "retrace"]
    assert [t["status"] for t in doc["tests"]] == ["pass", "fail", "pass"]  # retrace is advisory
    assert "expected -1.0, got 1.0" in doc["tests"][1]["message"]
    assert all(len(t["output"]) <= 500 for t in doc["tests"])
    assert "cut" in doc["tests"][0]["output"]  # says it was truncated (exercism#5602)
    assert doc["tests"][2]["output"].startswith("advisory, not counted")


def test_advisory_failure_counts_only_under_strict():
    plain = json.loads(written("exercism", REPORTS["advisory"]))
    strict = json.loads(written("exercism", REPORTS["advisory-strict"]))
    assert plain["status"] == "pass" and strict["status"] == "fail"
    assert strict["tests"][2]["status"] == "fail"
    g_plain = json.loads(written("gradescope", REPORTS["advisory"]))
    g_strict = json.loads(written("gradescope", REPORTS["advisory-strict"]))
    # examples 2 + property 2; the advisory retrace is worth its 1 only under --strict
    assert (g_plain["score"], sum(t["max_score"] for t in g_plain["tests"])) == (4, 4)
    assert (g_strict["score"], sum(t["max_score"] for t in g_strict["tests"])) == (4, 5)


def test_gradescope_scores_required_checks_and_keeps_the_maximum_fixed():
    maxima = {
        name: sum(t["max_score"] for t in json.loads(written("gradescope", r))["tests"])
        for name, r in REPORTS.items()
        if name not in ("advisory-strict", "judge_error")
    }
    assert set(maxima.values()) == {4}, maxima  # a file that does not load: 0 of the same 4
    scores = {
        name: json.loads(written("gradescope", REPORTS[name]))["score"]
        for name in ("accepted", "wrong", "crashed", "invalid")
    }
    assert scores == {"accepted": 4, "wrong": 2, "crashed": 0, "invalid": 0}
    wrong = json.loads(written("gradescope", WRONG))
    assert wrong["tests"][1]["extra_data"]["counterexample"]["expected"] == -1.0
    assert wrong["extra_data"]["verdict"] == "wrong_answer"


def test_junit_elements_follow_the_verdict():
    suite = ET.fromstring(written("junit", WRONG).encode()).find("testsuite")
    cases = {c.get("name"): [e.tag for e in c] for c in suite.findall("testcase")}
    assert cases == {"examples": [], "property": ["failure"], "retrace": ["system-out"]}
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["verdict"] == "wrong_answer" and props["seed"] == "9009"
    assert "debug" in suite.find("system-out").text  # control characters replaced
    crashed = ET.fromstring(written("junit", CRASHED).encode()).find("testsuite")
    assert crashed.get("errors") == "2" and "OSError" in crashed.find("testcase/error").text
    invalid = ET.fromstring(written("junit", INVALID).encode()).find("testsuite")
    assert (invalid.get("errors"), invalid.get("skipped")) == ("1", "3")


@pytest.mark.parametrize("fmt", ["exercism", "gradescope", "junit"])
def test_a_stored_report_writes_the_same(fmt):
    """judge batch writes these from results.jsonl: the same bytes as judge run would."""
    for r in REPORTS.values():
        assert written(fmt, Report.from_dict(json.loads(json.dumps(r.to_dict())))) == written(
            fmt, r
        )


def test_the_validators_have_teeth():
    good = json.loads(written("exercism", WRONG))
    for broken in (
        {**good, "version": 2},
        {**good, "status": "failed"},
        {**good, "status": "error", "message": None},
        {**good, "tests": [{**good["tests"][1], "message": None}]},
        {**good, "tests": [{**good["tests"][0], "output": "x" * 501}]},
    ):
        assert exercism_problems(broken)
    g = json.loads(written("gradescope", WRONG))
    for broken in (
        {**g, "score": "1"},
        {**g, "visibility": "public"},
        {**g, "tests": [{**g["tests"][0], "score": g["tests"][0]["max_score"] + 1}]},
        {**g, "tests": [{**g["tests"][0], "status": "pass"}]},
    ):
        assert gradescope_problems(broken)
    xml = written("junit", WRONG)
    assert junit_problems(xml.replace('failures="1"', 'failures="0"', 1))  # the root's
    assert junit_problems(
        xml.replace('failures="1"', 'failures="0"')
        .replace(  # the suite's
            "<failure ", "<skipped "
        )
        .replace("</failure>", "</skipped>")
    )
    assert junit_problems(xml.replace("<failure ", "<oops ", 1).replace("</failure>", "</oops>", 1))
    with pytest.raises(ET.ParseError):
        junit_problems(xml.replace("debug", "debug\x01"))


# ---------------------------------------------------------------- one score everywhere

INEFFICIENT = report(
    [
        check("examples", "passed", "2 examples", kind="example"),
        check("property", "passed", "100 inputs agree"),
        check(
            "retrace",
            "failed",
            "12 traces, over the budget of 3",
            verdict="inefficient",
            details={"performance": True},
        ),
    ]
)
FAST_BUT_WRONG = report(
    [
        check("examples", "passed", "2 examples", kind="example", details={"points": 5}),
        check("property", "failed", "expected 1.0, got 2.0"),
        check("retrace", "passed", "3 traces", details={"performance": True}),
    ]
)


def test_an_inefficient_grading_scores_its_value_points_in_every_view():
    from judge.batch.discovery import Submission
    from judge.batch.gradebook import build, gradebook_csv
    from judge.scoring import score

    class Spec:
        def __init__(self, kind, performance=False):
            self.id = self.kind = kind
            self.required, self.performance, self.points = (
                True,
                performance,
                1 if performance else 2,
            )

    class Task:
        checks = [Spec("example"), Spec("property"), Spec("retrace", True)]

    record = dict(INEFFICIENT.to_dict(), learner="ann")
    sub = Submission("ann", TASK, "ann.py", b"x")
    book = build({"ann"}, [TASK], {TASK: Task()}, [sub], [record], lambda *_: "", strict=False)
    row = gradebook_csv(book).splitlines()[1].split(",")
    gradescope = json.loads(written("gradescope", INEFFICIENT))
    page = written("html", INEFFICIENT)
    assert score(INEFFICIENT).earned == 4 and record["score"] == {"points": 4, "max_points": 5}
    assert row[:4] == ["ann", "inefficient", "4", "5"]
    assert (gradescope["score"], sum(t["max_score"] for t in gradescope["tests"])) == (4, 5)
    assert 'data-points="4" data-max-points="5"' in page
    text = written("text", INEFFICIENT)
    assert "points: 4 of 5" in text


def test_values_first_a_performance_check_earns_only_once_the_values_are_right():
    from judge.scoring import score

    points = score(FAST_BUT_WRONG)  # the declared points: examples 5
    assert [(c.earned, c.worth) for c in points.checks] == [(5, 5), (0, 2), (0, 1)]
    tests = json.loads(written("gradescope", FAST_BUT_WRONG))["tests"]
    assert tests[2]["status"] == "passed" and "values first" in tests[2]["output"]


def test_accepted_above_a_failed_advisory_check_says_what_strict_would_make_it():
    advisory = REPORTS["advisory"]
    first = written("text", advisory).splitlines()[0]
    assert first.startswith("ACCEPTED") and "(would be INEFFICIENT with --strict)" in first
    assert "would be" not in written("text", REPORTS["advisory-strict"]).splitlines()[0]
    assert "would be" not in written("text", ACCEPTED)
    assert "would be INEFFICIENT with --strict" in written("html", advisory)


def test_the_html_page_is_self_contained_and_escapes_what_the_learner_wrote():
    hostile = report(
        [
            check(
                "examples",
                "failed",
                "<script>alert(1)</script>",
                kind="example",
                counterexample={"args": {"x": "<img src=x onerror=alert(2)>"}},
            )
        ],
        output={"stdout": "</pre><script>alert(3)</script>", "stderr": "", "truncated": False},
    )
    page = written("html", hostile)
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "alert(3)" in page
    assert "default-src 'none'" in page  # nothing fetched, nothing run
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    from judge.writers.html import fragment

    assert fragment(hostile).startswith('<div class="jj jj-report"')


# ---------------------------------------------------------------- trees and scripts, readable


def test_a_tree_counterexample_reads_as_the_learner_wrote_it():
    import numpy as np

    from judge.checks.outcome import counterexample
    from judge.worker.wire import Leaf

    f32 = lambda *v: Leaf(
        np.array(v, np.float32).reshape(-1) if len(v) != 1 else np.array(v[0], np.float32), "jax"
    )
    params = {
        "dense": {"w": Leaf(np.zeros((3, 4), np.float32), "jax"), "b": f32(0.5)},
        "scale": f32(1.0, 2.0),
    }
    ce = counterexample(
        {"params": params, "lr": 0.1}, {"dense": {"b": f32(0.4)}}, {"dense": {"b": f32(0.6)}}
    )
    r = report(
        [
            check(
                "examples",
                "failed",
                "wrong value at ['dense']['b']",
                kind="example",
                counterexample=ce,
            )
        ]
    )
    text = written("text", r)
    assert (
        "params = {'dense': {'w': float32[3, 4], 'b': float32(0.5)}, 'scale': float32[2] [1.0, 2.0]}"
        in text
    )
    assert (
        "expected: {'dense': {'b': float32(0.4)}}" in text
        and "got:      {'dense': {'b': float32(0.6)}}" in text
    )
    assert "'dict'" not in text and "'kind'" not in text  # not the wire format
    assert "{&#x27;dense&#x27;: {&#x27;w&#x27;: float32[3, 4]" in written("html", r)
