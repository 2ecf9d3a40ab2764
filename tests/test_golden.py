"""The report contract, pinned by golden files: a batch of seven gradings (two tasks;
accepted, wrong_answer, inefficient, invalid_submission, an accepted one whose advisory
retrace check failed, and three missing submissions) whose every output file, and every
writer's rendering of each report, is compared with tests/golden/.  A change to the
contract shows as a diff of those files.

Regenerate after a deliberate change (docs/contract.md allows changes by addition):

    .venv/bin/python -m pytest -q -n 0 tests -k golden --update-goldens

(or JUDGE_UPDATE_GOLDENS=1), then read `git diff tests/golden` before committing it.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import judge
from judge.report import Report
from judge.writers import FORMATS, writer

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
SUBMISSIONS = GOLDEN / "submissions"       # <learner>/<task>.py, copied from the bank
TASKS = "cache_independent_count,huber"
SUFFIX = {"text": "txt", "json": "json", "exercism": "exercism.json",
          "gradescope": "gradescope.json", "junit": "xml", "html": "html"}

# What differs from run to run or machine to machine, and nothing else: wall-clock
# times (a report's elapsed_s and what is drawn from it; a trace's seconds), the folder
# the submissions sit in, and the judge's version.  Seeds are fixed by the tasks, and
# hypothesis runs without a database, so values and counterexamples repeat exactly.
# The isolation mode would differ (bubblewrap where it works): the batch is run with
# --isolation process everywhere.
TIME_KEYS = {"elapsed_s", "seconds", "execution_time"}
PLACE = "SUBMISSIONS"
VERSION = "VERSION"


def updating(config: pytest.Config) -> bool:
    return bool(config.getoption("--update-goldens") or os.environ.get("JUDGE_UPDATE_GOLDENS"))


def normal_data(value, place: str):
    if isinstance(value, dict):
        return {k: (0.0 if k in TIME_KEYS and isinstance(v, (int, float)) else
                    VERSION if k == "judge_version" else normal_data(v, place))
                for k, v in value.items()}
    if isinstance(value, list):
        return [normal_data(v, place) for v in value]
    if isinstance(value, str):
        return value.replace(place, PLACE)
    return value


def normal_text(text: str, place: str) -> str:
    text = text.replace(place, PLACE)
    text = re.sub(r'time="[0-9.]+"', 'time="0.000"', text)                  # junit
    text = re.sub(r"\b\d+\.\d\d s\b", "0.00 s", text)                         # text, html
    version = re.escape(judge.__version__)
    text = re.sub(rf'(judge_version" value="){version}"', rf'\g<1>{VERSION}"', text)
    text = re.sub(rf"(judge ){version}\b", rf"\g<1>{VERSION}", text)          # class page
    return text


def normal_file(path: Path, place: str) -> str:
    """The file's text with the run's noise taken out; JSON pretty-printed, sorted."""
    text = path.read_text()
    if path.name == "results.jsonl":       # one line per grading, in finishing order
        records = sorted((json.loads(line) for line in text.splitlines() if line),
                         key=lambda r: (r["learner"], r["task"]))
        return "".join(json.dumps(normal_data(r, place), sort_keys=True) + "\n" for r in records)
    if path.suffix == ".json":
        return json.dumps(normal_data(json.loads(text), place), indent=1, sort_keys=True) + "\n"
    return normal_text(text, place)


def compare_tree(got: dict[str, str], golden: Path, update: bool) -> None:
    """``got``: relative path -> text.  Every file equal, none missing, none extra."""
    if update:
        shutil.rmtree(golden, ignore_errors=True)
        for rel, text in got.items():
            (golden / rel).parent.mkdir(parents=True, exist_ok=True)
            (golden / rel).write_text(text)
        return
    want = {str(p.relative_to(golden)): p.read_text() for p in sorted(golden.rglob("*"))
            if p.is_file()}
    assert sorted(got) == sorted(want), (
        f"files differ from {golden.relative_to(ROOT)}: new {sorted(set(got) - set(want))}, "
        f"gone {sorted(set(want) - set(got))} (--update-goldens rewrites them)")
    for rel in sorted(want):
        assert got[rel] == want[rel], (
            f"{rel} differs from {golden.relative_to(ROOT)}/{rel}: the report contract "
            f"changed (--update-goldens rewrites it; read the diff first)")


def render(report: Report, fmt: str) -> str:
    buf = io.StringIO()
    writer(fmt)(report, buf, color=False)
    return buf.getvalue()


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
        [sys.executable, "-m", "judge", "batch", str(subs), "--out", str(base / "out"),
         "--tasks", TASKS, "--workers", "2", "--isolation", "process",
         "--emit", "exercism,gradescope,junit"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    return base


def test_batch_outputs_match_golden(batch, request):
    out, place = batch / "out", str(batch / "subs")
    got = {str(p.relative_to(out)): normal_file(p, place) for p in sorted(out.rglob("*"))
           if p.is_file() and p.name != ".lock"}
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
        for fmt, rel in (("exercism", f"exercism/{learner}/{task}/results.json"),
                         ("gradescope", f"gradescope/{learner}/{task}/results.json"),
                         ("junit", f"junit/{learner}/{task}.xml")):
            assert (out / rel).read_text() == render(report, fmt), rel


# ---------------------------------------------------------------- every writer, no process


def golden_reports() -> list[dict]:
    path = GOLDEN / "batch" / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def test_writers_render_the_golden_reports_as_pinned(request):
    """Every format of each stored grading, rendered from the golden results.jsonl (no
    worker started): text and json, which the batch does not emit, are pinned here."""
    got = {}
    for record in golden_reports():
        report = Report.from_dict(record)
        for fmt in FORMATS:
            got[f"{record['learner']}/{record['task']}.{SUFFIX[fmt]}"] = render(report, fmt)
    assert len(got) == 7 * len(FORMATS)
    compare_tree(got, GOLDEN / "writers", updating(request.config))


def test_golden_cases_cover_every_learner_verdict():
    verdicts = {(r["learner"], r["task"]): r["verdict"] for r in golden_reports()}
    assert set(verdicts.values()) == {"accepted", "wrong_answer", "inefficient",
                                      "invalid_submission"}
    assert verdicts[("eve", "cache_independent_count")] == "accepted"   # advisory failed


def test_judge_run_says_what_the_batch_says(batch, tmp_path, request):
    """`judge run` on one submission: its JSON and text are the writers' golden files of
    the same grading (ben's wrong_answer, a counterexample in it)."""
    sub = batch / "subs" / "ben" / "cache_independent_count.py"
    env = {k: v for k, v in os.environ.items() if k not in ("JUDGE_BANK", "JUDGE_ISOLATION")}
    env["PYTHONPATH"] = str(ROOT)
    place = str(batch / "subs")
    for fmt in ("json", "text"):
        done = subprocess.run([sys.executable, "-m", "judge", "run", "cache_independent_count",
                               str(sub), "--format", fmt, "--isolation", "process"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 1, done.stderr
        golden = GOLDEN / "writers" / "ben" / f"cache_independent_count.{SUFFIX[fmt]}"
        if fmt == "json":
            got = json.dumps(normal_data(json.loads(done.stdout), place), indent=1,
                             sort_keys=True) + "\n"
            want = json.dumps(json.loads(golden.read_text()), indent=1, sort_keys=True) + "\n"
        else:
            got, want = normal_text(done.stdout, place), golden.read_text()
        assert got == want, f"judge run --format {fmt} differs from {golden.relative_to(ROOT)}"
