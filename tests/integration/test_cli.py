"""The command line: exit codes, the JSON contract, and no writes where the learner is."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from helpers import KNOWN, ROOT, TASK
from helpers import run_judge as judge

CONTRACT_KEYS = {
    "task",
    "submission",
    "verdict",
    "seed",
    "elapsed_s",
    "judge_version",
    "checks",
    "output",
}
CHECK_KEYS = {"id", "kind", "required", "status", "message", "details"}


def test_unknown_task_is_usage_error_naming_closest():
    proc = judge("run", "cache_independant_count", KNOWN / "hard_coded.py")
    assert proc.returncode == 2 and "cache_independent_count" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_unreadable_submission_is_usage_error(tmp_path):
    proc = judge("run", TASK, tmp_path / "missing.py")
    assert proc.returncode == 2 and "missing.py" in proc.stderr


def _bank_with(tmp_path, task_id: str, old: str, new: str):
    """A copy of the shipped bank with ``old`` replaced by ``new`` in that task's entry."""
    shutil.copytree(ROOT / "tasks", tmp_path / "tasks")
    shutil.copytree(ROOT / "reference", tmp_path / "reference")
    text = (ROOT / "tasks.yaml").read_text()
    at = text.index(f"- id: {task_id}\n")
    (tmp_path / "tasks.yaml").write_text(text[:at] + text[at:].replace(old, new, 1))
    return tmp_path


def test_malformed_bank_names_file_task_and_field(tmp_path):
    bank = _bank_with(tmp_path, TASK, "difficulty: medium", "dificulty: medium")  # misspelt
    for args in (("list",), ("run", TASK, KNOWN / "hard_coded.py")):
        proc = judge("--bank", bank, *args)
        assert proc.returncode == 2, proc.stderr
        assert "tasks.yaml" in proc.stderr and f"task '{TASK}'" in proc.stderr
        assert "field 'dificulty'" in proc.stderr and "did you mean 'difficulty'" in proc.stderr
        assert "Traceback" not in proc.stderr


def test_a_malformed_other_task_does_not_stop_grading_this_one(tmp_path):
    bank = _bank_with(tmp_path, "huber", "difficulty:", "dificulty:")
    proc = judge("--bank", bank, "run", TASK, KNOWN / "hard_coded.py")
    assert proc.returncode == 1, proc.stderr  # graded: wrong_answer
    assert "WRONG ANSWER" in proc.stdout
    listed = judge("--bank", bank, "list")  # the whole bank is still refused
    assert listed.returncode == 2 and "task 'huber'" in listed.stderr


def test_a_malformed_worker_setting_is_a_usage_error_naming_the_field(tmp_path):
    """`devices` and `limits` are read first, to start the worker before the rest."""
    bank = _bank_with(tmp_path, TASK, "difficulty: medium", "difficulty: medium\n    devices: 0")
    proc = judge("--bank", bank, "run", TASK, KNOWN / "hard_coded.py")
    assert proc.returncode == 2
    assert f"task '{TASK}'" in proc.stderr and "devices" in proc.stderr
    assert "from 1 to" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_json_contract_and_exit_code_of_a_wrong_answer(tmp_path):
    sub = tmp_path / "learner" / "mine.py"
    sub.parent.mkdir()
    shutil.copy(KNOWN / "abs_sum.py", sub)
    before_cwd = set(os.listdir(tmp_path))
    proc = judge("run", TASK, sub, "--format", "json", "--examples", "30", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)  # exactly one JSON object
    assert CONTRACT_KEYS <= set(report) and report["verdict"] == "wrong_answer"
    assert report["seed"] == 9009 and isinstance(report["elapsed_s"], float)
    for check in report["checks"]:
        assert CHECK_KEYS <= set(check)
        assert check["status"] in ("passed", "failed", "error", "skipped")
    prop = next(c for c in report["checks"] if c["id"] == "property")
    assert prop["status"] == "failed" and set(prop["counterexample"]) == {
        "args",
        "expected",
        "actual",
    }
    assert set(report["output"]) == {"stdout", "stderr", "truncated"}
    # nothing written next to the learner's file or in the current folder
    assert os.listdir(sub.parent) == ["mine.py"]
    assert set(os.listdir(tmp_path)) == before_cwd


@pytest.mark.slow
def test_seed_is_reported_and_changes_inputs():
    a = json.loads(
        judge(
            "run", TASK, KNOWN / "abs_sum.py", "--format", "json", "--seed", "1", "--examples", "20"
        ).stdout
    )
    b = json.loads(
        judge(
            "run", TASK, KNOWN / "abs_sum.py", "--format", "json", "--seed", "1", "--examples", "20"
        ).stdout
    )
    assert a["seed"] == 1
    strip = lambda r: [(c["id"], c["status"], c["message"]) for c in r["checks"]]
    assert strip(a) == strip(b)  # same seed, same report


@pytest.mark.slow
def test_strict_turns_advisory_retrace_into_inefficient():
    plain = judge("run", TASK, KNOWN / "fresh_lambda.py", "--examples", "10")
    strict = judge("run", TASK, KNOWN / "fresh_lambda.py", "--examples", "10", "--strict")
    assert plain.returncode == 0 and plain.stdout.startswith("ACCEPTED")
    assert "new function object" in plain.stdout and "lambda at line 9" in plain.stdout
    assert strict.returncode == 1 and strict.stdout.startswith("INEFFICIENT")


def test_list_and_show():
    listing = judge("list", "--format", "json")
    data = json.loads(listing.stdout)
    ids = [t["id"] for s in data["steps"] for t in s["tasks"]]
    assert TASK in ids
    shown = judge("show", TASK)
    assert "Signature: cache_independent_count(x_a, x_b)" in shown.stdout
    starter = judge("show", TASK, "--starter")
    assert starter.stdout == (ROOT / "tasks" / TASK / "starter.py").read_text()


def test_new_refuses_existing_and_bad_ids(tmp_path):
    for name in ("tasks.yaml", "tasks", "reference"):
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, tmp_path / name)
    assert judge("--bank", tmp_path, "new", TASK).returncode == 2
    assert judge("--bank", tmp_path, "new", "2fast").returncode == 2
    before = (tmp_path / "tasks.yaml").read_text()
    made = judge("--bank", tmp_path, "new", "double_it", "--step", "3", "--title", "Double it")
    assert made.returncode == 0, made.stderr
    after = (tmp_path / "tasks.yaml").read_text()
    assert after.startswith(before) and "id: double_it" in after
    for rel in (
        "tasks/double_it/statement.md",
        "tasks/double_it/starter.py",
        "reference/double_it.py",
    ):
        assert (tmp_path / rel).is_file()
    assert list((tmp_path / "tasks/double_it/known").glob("*.py"))
    again = judge("--bank", tmp_path, "new", "double_it")
    assert again.returncode == 2 and (tmp_path / "tasks.yaml").read_text() == after


def test_a_missing_file_under_gradescope_still_prints_a_results_file(tmp_path):
    proc = judge("run", TASK, tmp_path / "nothing.py", "--format", "gradescope")
    assert proc.returncode == 2 and "cannot read" in proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["score"] == 0 and sum(t["max_score"] for t in doc["tests"]) == 4
    assert "nothing.py" in doc["output"] and doc["output"].startswith(
        "Nothing to grade: cannot read"
    )


@pytest.mark.parametrize("fmt", ["gradescope", "exercism"])
@pytest.mark.parametrize("submission", ["hard_coded.py", "nothing.py"])
def test_an_unknown_task_under_a_platform_format_still_prints_a_results_file(fmt, submission):
    proc = judge("run", "cache_independant_count", KNOWN / submission, "--format", fmt)
    assert proc.returncode == 2 and "cache_independent_count" in proc.stderr
    doc = json.loads(proc.stdout)
    said = doc["output"] if fmt == "gradescope" else doc["message"]
    assert "not your fault" in said and "did you mean: cache_independent_count" in said.lower()
    if fmt == "gradescope":
        assert doc["score"] == 0
    else:
        assert doc["status"] == "error"
