"""The published shapes of the files other platforms read (Exercism v3, Gradescope,
JUnit), as validators: each returns what is wrong with a document, [] when nothing is.
Written from the platforms' docs."""

from __future__ import annotations

import xml.etree.ElementTree as ET

EXERCISM_TOP = {"version", "status", "message", "tests"}
EXERCISM_TEST = {"name", "status", "message", "output", "test_code", "task_id"}
GRADESCOPE_TOP = {
    "score",
    "max_score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
GRADESCOPE_TEST = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}
OUTPUT_FORMATS = {"text", "html", "simple_format", "md", "ansi"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


def exercism_problems(doc: dict) -> list[str]:
    p = []
    if set(doc) - EXERCISM_TOP:
        p.append(f"unknown keys {set(doc) - EXERCISM_TOP}")
    if doc.get("version") != 3:
        p.append("version must be 3")
    status = doc.get("status")
    if status not in ("pass", "fail", "error"):
        p.append(f"bad status {status!r}")
    if status == "error" and not isinstance(doc.get("message"), str):
        p.append("message is required when status is error")
    if status != "error" and doc.get("message") is not None:
        p.append("message must be null or absent unless status is error")
    tests = doc.get("tests")
    if status in ("pass", "fail") and not isinstance(tests, list):
        p.append("tests is required when status is pass or fail")
    for t in tests or []:
        if set(t) - EXERCISM_TEST:
            p.append(f"unknown test keys {set(t) - EXERCISM_TEST}")
        if not isinstance(t.get("name"), str) or not isinstance(t.get("test_code"), str):
            p.append("a test needs name and test_code strings")
        if t.get("status") not in ("pass", "fail", "error"):
            p.append(f"bad test status {t.get('status')!r}")
        if t.get("status") in ("fail", "error") and not isinstance(t.get("message"), str):
            p.append("a failed test needs a message")
        if "output" in t and (not isinstance(t["output"], str) or len(t["output"]) > 500):
            p.append("output must be a string of at most 500 characters")
        if "task_id" in t and not isinstance(t["task_id"], int):
            p.append("task_id must be a number")
    if status == "pass" and any(t["status"] != "pass" for t in tests or []):
        p.append("status pass, but a test did not pass")
    if status == "fail" and all(t["status"] == "pass" for t in tests or []):
        p.append("status fail, but every test passed")
    return p


def gradescope_problems(doc: dict) -> list[str]:
    p = []
    if set(doc) - GRADESCOPE_TOP:
        p.append(f"unknown keys {set(doc) - GRADESCOPE_TOP}")
    num = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    if "score" in doc and not num(doc["score"]):
        p.append("score must be a number")
    if not num(doc.get("execution_time", 0)):
        p.append("execution_time must be a number of seconds")
    for key, allowed in (
        ("output_format", OUTPUT_FORMATS),
        ("visibility", VISIBILITIES),
        ("stdout_visibility", VISIBILITIES),
    ):
        if key in doc and doc[key] not in allowed:
            p.append(f"bad {key} {doc[key]!r}")
    if not isinstance(doc.get("extra_data", {}), dict):
        p.append("extra_data must be an object")
    tests = doc.get("tests", [])
    if "score" not in doc and not all("score" in t for t in tests):
        p.append("score is required at the top or in every test")
    for t in tests:
        if set(t) - GRADESCOPE_TEST:
            p.append(f"unknown test keys {set(t) - GRADESCOPE_TEST}")
        if not (num(t.get("score")) and num(t.get("max_score"))) or t["score"] > t["max_score"]:
            p.append(f"test {t.get('name')}: score and max_score numbers, score <= max_score")
        if t.get("status") not in ("passed", "failed"):
            p.append(f"bad test status {t.get('status')!r}")
        for key in ("name", "number", "output"):
            if key in t and not isinstance(t[key], str):
                p.append(f"test {key} must be a string")
        if not isinstance(t.get("tags", []), list) or not all(
            isinstance(x, str) for x in t.get("tags", [])
        ):
            p.append("tags must be a list of strings")
        if (
            t.get("output_format", "text") not in OUTPUT_FORMATS
            or t.get("visibility", "visible") not in VISIBILITIES
        ):
            p.append("bad test output_format or visibility")
    if "score" in doc and tests and doc["score"] != sum(t["score"] for t in tests):
        p.append("score must be the sum of the tests' scores")
    return p


def junit_problems(text: str) -> list[str]:
    p = []
    root = ET.fromstring(text.encode())  # raises on anything that is not XML 1.0
    suites = [root] if root.tag == "testsuite" else list(root)
    if root.tag not in ("testsuites", "testsuite") or not suites:
        return [f"root must be testsuites or testsuite, got {root.tag}"]
    for key in ("tests", "failures", "errors", "skipped"):
        if (
            root.tag == "testsuites"
            and key in root.attrib
            and int(root.get(key)) != sum(int(s.get(key, "0")) for s in suites)
        ):
            p.append(f"testsuites {key}= is not the sum over its suites")
    for suite in suites:
        if suite.tag != "testsuite" or not suite.get("name"):
            p.append("each child of testsuites is a named testsuite")
        cases = suite.findall("testcase")
        outcome = lambda c: [e.tag for e in c if e.tag in ("failure", "error", "skipped")]
        for key, tag in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
            if int(suite.get(key, "0")) != sum(outcome(c) == [tag] for c in cases):
                p.append(f"{key}= does not count the {tag} elements")
        if int(suite.get("tests", "-1")) != len(cases):
            p.append("tests= does not count the testcases")
        float(suite.get("time", "0"))
        for c in cases:
            if not c.get("name") or not c.get("classname"):
                p.append("a testcase needs name and classname")
            if len(outcome(c)) > 1:
                p.append("a testcase has at most one of failure, error, skipped")
            for e in c:
                if e.tag in ("failure", "error") and e.get("message") is None:
                    p.append(f"{e.tag} needs a message attribute")
                if e.tag not in (
                    "failure",
                    "error",
                    "skipped",
                    "system-out",
                    "system-err",
                    "properties",
                ):
                    p.append(f"unexpected element {e.tag} in testcase")
    return p


# ---------------------------------------------------------------- reports to write
