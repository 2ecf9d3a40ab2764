"""judge batch on a class folder its learners wrote, end to end through `judge batch`
in every isolation mode: a link to a classmate's file or folder is the learner's
invalid_submission and is never read; the same content handed in by several learners
is listed for the instructor (not a task's untouched starter); a learner folder named
like a spreadsheet formula stays text in gradebook.csv; a malformed notebook is the
learner's invalid_submission, not a judge error (exit 3)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil

import pytest

from helpers import TESTS, notebook, put, run_judge
from helpers.isolation_modes import MODES

RIGHT = "def double(x):\n    return x * 2\n"
ALSO_RIGHT = "def double(x):\n    return x + x\n"
STARTER = "def double(x):\n    raise NotImplementedError\n"
FORMULAS = ['=HYPERLINK("https:evil.example","grades")', "@SUM(A1)", "-1+2", "+1", "\tTAB"]


def make_class(root):
    cls = root / "class"
    put(cls / "ann" / "double.py", RIGHT)
    (cls / "ben").mkdir()
    (cls / "ben" / "double.py").symlink_to("../ann/double.py")  # git keeps it
    (cls / "cid").symlink_to("ann")  # a learner folder that is a link
    put(cls / "eve" / "double.py", RIGHT)  # a copy
    put(cls / "hal" / "double.py", ALSO_RIGHT)
    (cls / "ivy").mkdir()
    os.link(cls / "hal" / "double.py", cls / "ivy" / "double.py")  # one file, two names
    put(cls / "fay" / "double.py", STARTER)  # not attempted, twice
    put(cls / "gus" / "double.py", STARTER)
    broken = json.loads(notebook(("code", RIGHT)))
    broken["cells"][0]["source"] = 5  # a number, not text
    put(cls / FORMULAS[0] / "double.ipynb", json.dumps(broken))
    put(cls / "jo" / "double.py", "# my own work, promise\n" + RIGHT.replace("    ", "  "))
    for name in FORMULAS[1:]:
        put(cls / name / "double.py", RIGHT + f"NAME = {name!r}\n")  # code of their own
    return cls


@pytest.fixture(scope="module", params=MODES)
def graded(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"class-{request.param}")
    bank = root / "bank"
    shutil.copytree(TESTS / "trust_bank", bank)
    put(bank / "tasks" / "double" / "starter.py", STARTER)
    cls, out = make_class(root), root / "out"
    proc = run_judge(
        "--bank",
        bank,
        "batch",
        cls,
        "--out",
        out,
        "--workers",
        "2",
        "--isolation",
        request.param,
        timeout=600,
    )
    records = {
        r["learner"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())
    }
    return proc, out, records


def test_no_judge_error_so_the_batch_exits_0(graded):
    proc, _, records = graded
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(records) == 9 + len(FORMULAS) and "judge_error" not in {
        r["verdict"] for r in records.values()
    }


def test_a_link_to_a_classmates_file_or_folder_is_invalid_and_never_read(graded):
    _, out, records = graded
    for learner, said in (
        ("ben", "ben/double.py is a symbolic link to ann/double.py, not a file"),
        ("cid", "cid is a symbolic link to ann, not a folder of cid's own"),
    ):
        record = records[learner]
        assert record["verdict"] == "invalid_submission", record
        assert said in record["checks"][0]["message"]
        assert "a link to another learner's file" in record["checks"][0]["message"]
        assert record["sha256"] == hashlib.sha256(b"").hexdigest()  # nothing was read
    assert records["ann"]["verdict"] == "accepted"


def test_identical_submissions_are_listed_for_the_instructor_but_not_the_starter(graded):
    _, out, records = graded
    summary = json.loads((out / "summary.json").read_text())
    groups = summary["tasks"]["double"]["identical"]
    assert [(g["learners"], g["same_bytes"], g["same_file"]) for g in groups] == [
        (["ann", "eve", "jo"], False, False),  # jo's copy has a comment and other indents
        (["hal", "ivy"], True, True),
    ]  # one file, two names
    assert hashlib.sha256(RIGHT.encode()).hexdigest() in groups[0]["sha256"]
    assert summary["identical"] == 2
    # the untouched starter, handed in by two, is "not attempted", not copying
    for learner in ("fay", "gus"):
        assert any(c["message"].startswith("not attempted yet") for c in records[learner]["checks"])
    page = (out / "report.html").read_text()
    assert "<h2>Identical submissions</h2>" in page
    assert f'data-sha256="{groups[1]["sha256"][0]}" data-count="2"' in page
    assert (
        "a hard link" in page
        and 'data-learner="fay"'
        not in page.split("Identical submissions")[1].split("</section>")[0]
    )


def test_formula_names_stay_text_in_gradebook_csv_and_points_stay_numbers(graded):
    _, out, records = graded
    text = (out / "gradebook.csv").read_text()
    rows = {row[0]: row for row in csv.reader(io.StringIO(text))}
    for name in FORMULAS:
        assert "'" + name in rows, sorted(rows)
        assert name not in rows
    assert rows["'" + FORMULAS[0]][1] == "invalid_submission"
    full = json.loads((out / "summary.json").read_text())["tasks"]["double"]["points"]["max"]
    assert rows["'-1+2"][1:4] == ["accepted", str(full), str(full)]  # score, max_score: numbers
    assert not any(
        cell.startswith(("=", "+", "-", "@", "\t", "\r")) for row in rows.values() for cell in row
    )


def test_a_malformed_notebook_is_the_learners_invalid_submission(graded):
    _, _, records = graded
    record = records[FORMULAS[0]]
    assert record["verdict"] == "invalid_submission", record
    assert "cell 1, source: 5" in record["checks"][0]["message"]
