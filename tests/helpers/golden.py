"""The golden files' machinery (tests/golden/README.md says what they hold): where they
are, what is taken out of an output before comparing (the run's noise), the comparison,
and whether this run rewrites them (--update-goldens, or JUDGE_UPDATE_GOLDENS=1)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

import judge
from judge.report import Report
from judge.writers import writer

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
SUBMISSIONS = GOLDEN / "submissions"  # <learner>/<task>.py, copied from the bank
TASKS = "cache_independent_count,huber"
SUFFIX = {
    "text": "txt",
    "json": "json",
    "exercism": "exercism.json",
    "gradescope": "gradescope.json",
    "junit": "xml",
    "html": "html",
}

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
        return {
            k: (
                0.0
                if k in TIME_KEYS and isinstance(v, (int, float))
                else VERSION
                if k == "judge_version"
                else normal_data(v, place)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [normal_data(v, place) for v in value]
    if isinstance(value, str):
        return value.replace(place, PLACE)
    return value


def normal_text(text: str, place: str) -> str:
    text = text.replace(place, PLACE)
    text = re.sub(r'time="[0-9.]+"', 'time="0.000"', text)  # junit
    text = re.sub(r"\b\d+\.\d\d s\b", "0.00 s", text)  # text, html
    version = re.escape(judge.__version__)
    text = re.sub(rf'(judge_version" value="){version}"', rf'\g<1>{VERSION}"', text)
    text = re.sub(rf"(judge ){version}\b", rf"\g<1>{VERSION}", text)  # class page
    return text


def normal_file(path: Path, place: str) -> str:
    """The file's text with the run's noise taken out; JSON pretty-printed, sorted."""
    text = path.read_text()
    if path.name == "results.jsonl":  # one line per grading, in finishing order
        records = sorted(
            (json.loads(line) for line in text.splitlines() if line),
            key=lambda r: (r["learner"], r["task"]),
        )
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
    want = {
        str(p.relative_to(golden)): p.read_text() for p in sorted(golden.rglob("*")) if p.is_file()
    }
    assert sorted(got) == sorted(want), (
        f"files differ from {golden.relative_to(ROOT)}: new {sorted(set(got) - set(want))}, "
        f"gone {sorted(set(want) - set(got))} (--update-goldens rewrites them)"
    )
    for rel in sorted(want):
        assert got[rel] == want[rel], (
            f"{rel} differs from {golden.relative_to(ROOT)}/{rel}: the report contract "
            f"changed (--update-goldens rewrites it; read the diff first)"
        )


def render(report: Report, fmt: str) -> str:
    buf = io.StringIO()
    writer(fmt)(report, buf, color=False)
    return buf.getvalue()
