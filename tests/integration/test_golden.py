"""The report contract, pinned by golden files (graded here; tests/unit/test_golden.py
renders the stored reports): a batch of seven gradings (two tasks;
accepted, wrong_answer, inefficient, invalid_submission, an accepted one whose advisory
retrace check failed, and three missing submissions) whose every output file, and every
writer's rendering of each report, is compared with tests/golden/.  A change to the
contract shows as a diff of those files.

Regenerate after a deliberate change (docs/contract.md allows changes by addition):

    .venv/bin/python -m pytest -q -n 0 tests -k golden --update-goldens

(or JUDGE_UPDATE_GOLDENS=1), then read `git diff tests/golden` before committing it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from judge.report import Report

from helpers.golden import (
    GOLDEN,
    ROOT,
    SUBMISSIONS,
    SUFFIX,
    TASKS,
    compare_tree,
    normal_data,
    normal_file,
    normal_text,
    render,
    updating,
)

# ---------------------------------------------------------------- the batch, graded


@pytest.fixture(scope="module")
def batch(tmp_path_factory) -> Path:
    """The batch graded once: OUT, with the submissions at a path of this run."""
    base = tmp_path_factory.mktemp("golden")
    subs = base / "subs"
    shutil.copytree(SUBMISSIONS, subs)
    env = {k: v for k, v in os.environ.items() if k not in ("JUDGE_BANK", "JUDGE_ISOLATION")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge",
            "batch",
            str(subs),
            "--out",
            str(base / "out"),
            "--tasks",
            TASKS,
            "--workers",
            "2",
            "--isolation",
            "process",
            "--emit",
            "exercism,gradescope,junit",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode in (0, 1), done.stderr
    return base


def test_batch_outputs_match_golden(batch, request):
    out, place = batch / "out", str(batch / "subs")
    got = {
        str(p.relative_to(out)): normal_file(p, place)
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }
    compare_tree(got, GOLDEN / "batch", updating(request.config))


def test_emitted_files_are_the_writers_view_of_the_stored_report(batch):
    """--emit writes exactly what each writer makes of the results.jsonl record (so the
    writers' golden renderings below pin the emitted files too)."""
    out = batch / "out"
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == 7
    for record in records:
        report = Report.from_dict(record)
        learner, task = record["learner"], record["task"]
        for fmt, rel in (
            ("exercism", f"exercism/{learner}/{task}/results.json"),
            ("gradescope", f"gradescope/{learner}/{task}/results.json"),
            ("junit", f"junit/{learner}/{task}.xml"),
        ):
            assert (out / rel).read_text() == render(report, fmt), rel


def test_judge_run_says_what_the_batch_says(batch, tmp_path, request):
    """`judge run` on one submission: its JSON and text are the writers' golden files of
    the same grading (ben's wrong_answer, a counterexample in it)."""
    sub = batch / "subs" / "ben" / "cache_independent_count.py"
    env = {k: v for k, v in os.environ.items() if k not in ("JUDGE_BANK", "JUDGE_ISOLATION")}
    env["PYTHONPATH"] = str(ROOT)
    place = str(batch / "subs")
    for fmt in ("json", "text"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "judge",
                "run",
                "cache_independent_count",
                str(sub),
                "--format",
                fmt,
                "--isolation",
                "process",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 1, done.stderr
        golden = GOLDEN / "writers" / "ben" / f"cache_independent_count.{SUFFIX[fmt]}"
        if fmt == "json":
            got = (
                json.dumps(normal_data(json.loads(done.stdout), place), indent=1, sort_keys=True)
                + "\n"
            )
            want = json.dumps(json.loads(golden.read_text()), indent=1, sort_keys=True) + "\n"
        else:
            got, want = normal_text(done.stdout, place), golden.read_text()
        assert got == want, f"judge run --format {fmt} differs from {golden.relative_to(ROOT)}"
