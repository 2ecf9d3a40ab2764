"""judge batch end to end, as an instructor runs it: a real class over two tasks, graded
by real `judge batch` processes; then killed with SIGKILL halfway, left with a torn last
line, edited, and run on a Dask LocalCluster.  Every one of them must end with the same
gradebook as one uninterrupted run, and one line per grading."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from helpers import KNOWN, ROOT, SOLUTION, TASK
from helpers.platform_shapes import exercism_problems, gradescope_problems, junit_problems

pytestmark = pytest.mark.slow

TWIN = "cache_independent_count_twin"
RIGHT = SOLUTION
CRASH = "import os\n\n\ndef cache_independent_count(x_a, x_b):\n    os.abort()\n"
JUDGE = str(Path(sys.executable).parent / "judge")
EXAMPLES = "20"

# learner -> task -> (source, the verdict its label or kind says)
CLASS = {
    "ann": {TASK: (RIGHT, "accepted"), TWIN: ((KNOWN / "abs_sum.py").read_text(), "wrong_answer")},
    "ben": {
        TASK: ((KNOWN / "first_plus_rest.py").read_text(), "runtime_error"),
        TWIN: (RIGHT, "accepted"),
    },
    "cat": {TASK: ((KNOWN / "syntax_error.py").read_text(), "invalid_submission")},
    "dan": {
        TASK: (CRASH, "runtime_error"),
        TWIN: ((KNOWN / "fresh_jit_of_sum.py").read_text(), "accepted"),
    },
    "eve": {TASK: ((KNOWN / "fresh_lambda.py").read_text(), "accepted")},  # advisory retrace fails
}
N = sum(len(tasks) for tasks in CLASS.values())


def make_bank(dst: Path) -> Path:
    """TASK and a twin with its own id and seed (two columns), and nothing else of the
    shipped bank, so a task being written elsewhere cannot break these tests."""
    data = yaml.safe_load((ROOT / "tasks.yaml").read_text())
    base = next(t for t in data["tasks"] if t["id"] == TASK)
    data["tasks"] = [base, dict(base, id=TWIN, seed=base["seed"] + 1)]
    (dst / "reference").mkdir(parents=True)
    for task_id in (TASK, TWIN):
        shutil.copytree(ROOT / "tasks" / TASK, dst / "tasks" / task_id)
        shutil.copy(ROOT / "reference" / f"{TASK}.py", dst / "reference" / f"{task_id}.py")
    (dst / "tasks.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return dst


def make_class(dst: Path) -> Path:
    for learner, tasks in CLASS.items():
        for task_id, (source, _) in tasks.items():
            path = dst / learner / f"{task_id}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source)
    (dst / "cat" / "notes.txt").write_text("not a submission")
    return dst


def batch_cmd(bank: Path, cls: Path, out: Path, *extra: str) -> list[str]:
    return [
        JUDGE,
        "--bank",
        str(bank),
        "batch",
        str(cls),
        "--out",
        str(out),
        "--examples",
        EXAMPLES,
        *extra,
    ]


def run_batch(*args: Path | str, check_rc: int = 0) -> subprocess.CompletedProcess:
    proc = subprocess.run(batch_cmd(*args), capture_output=True, text=True, timeout=600)
    assert proc.returncode == check_rc, proc.stderr[-3000:]
    return proc


def gradebook(out: Path) -> list[dict]:
    return list(csv.DictReader((out / "gradebook.csv").read_text().splitlines()))


def lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def keys(records: list[dict]) -> list[tuple]:
    return [
        (r["learner"], r["task"], r["sha256"], r["seed"], r["strict"], r["examples"])
        for r in records
    ]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """One uninterrupted run: the reference every other run is compared with."""
    root = tmp_path_factory.mktemp("batch")
    bank, cls = make_bank(root / "bank"), make_class(root / "class")
    out = root / "out"
    proc = run_batch(bank, cls, out, "--workers", "2", "--emit", "exercism,gradescope,junit")
    return {"root": root, "bank": bank, "cls": cls, "out": out, "stderr": proc.stderr}


def fresh_copy(world, name: str) -> tuple[Path, Path]:
    cls = world["root"] / f"class-{name}"
    shutil.copytree(world["cls"], cls)
    return cls, world["root"] / f"out-{name}"


# ---------------------------------------------------------------- one whole run


def test_every_submission_gets_the_verdict_its_label_says(world):
    book = {row["learner"]: row for row in gradebook(world["out"])}
    records = lines(world["out"])
    for learner, tasks in CLASS.items():
        for task_id in (TASK, TWIN):
            want = tasks[task_id][1] if task_id in tasks else "missing"
            assert book[learner][task_id] == want, (learner, task_id)
        mine = [r for r in records if r["learner"] == learner]
        assert float(book[learner]["score"]) == sum(r["score"]["points"] for r in mine)
        assert book[learner]["max_score"] == "8"  # examples 2 + property 2, twice
        for r in mine:  # every record's score follows its verdict, none left unchecked
            want_score = {"points": 4, "max_points": 4} if r["verdict"] == "accepted" else None
            assert want_score is None or r["score"] == want_score, (learner, r["task"])
            assert r["score"]["max_points"] == 4 and 0 <= r["score"]["points"] <= 4
    # the class holds accepted submissions, so the rule for them above was exercised
    accepted = [r for r in records if r["verdict"] == "accepted"]
    assert accepted and all(r["score"] == {"points": 4, "max_points": 4} for r in accepted)


def test_results_jsonl_holds_the_json_report_plus_learner_and_hash(world):
    records = lines(world["out"])
    assert len(records) == N and len(set(keys(records))) == N
    for r in records:
        assert {
            "task",
            "submission",
            "verdict",
            "seed",
            "elapsed_s",
            "judge_version",
            "checks",
            "output",
            "learner",
            "sha256",
            "examples",
        } <= set(r)
        assert r["examples"] == int(EXAMPLES)
        assert r["submission"] == str(world["cls"] / r["learner"] / f"{r['task']}.py")
        assert r["sha256"] == hashlib.sha256(Path(r["submission"]).read_bytes()).hexdigest()


def test_summary_counts_match_the_results(world):
    s = json.loads((world["out"] / "summary.json").read_text())
    assert s["graded"] == N and s["pending"] == 0
    assert s["tasks"][TASK]["verdicts"] == {
        "accepted": 2,
        "runtime_error": 2,
        "invalid_submission": 1,
    }
    assert s["tasks"][TWIN]["verdicts"] == {"accepted": 2, "wrong_answer": 1}
    assert s["tasks"][TASK]["checks"]["load"] == {"error": 1}
    assert s["tasks"][TWIN]["common_failures"][0]["learners"] == ["ann"]
    assert [Path(x["path"]).name for x in s["skipped"]] == ["notes.txt"]
    assert "not graded:" in world["stderr"] and "notes.txt" in world["stderr"]


def test_emitted_files_have_the_published_shapes(world):
    out = world["out"]
    for learner, tasks in CLASS.items():
        for task_id in tasks:
            ex = json.loads((out / "exercism" / learner / task_id / "results.json").read_text())
            gs = json.loads((out / "gradescope" / learner / task_id / "results.json").read_text())
            assert exercism_problems(ex) == [] and gradescope_problems(gs) == []
            assert junit_problems((out / "junit" / learner / f"{task_id}.xml").read_text()) == []
            assert gs["extra_data"]["verdict"] == tasks[task_id][1]
    assert (
        json.loads((out / "exercism" / "cat" / TASK / "results.json").read_text())["status"]
        == "error"
    )


def test_a_missing_submission_still_gets_a_gradescope_file_with_score_0_and_why(world):
    doc = json.loads((world["out"] / "gradescope" / "cat" / TWIN / "results.json").read_text())
    assert gradescope_problems(doc) == [] and doc["score"] == 0
    assert sum(t["max_score"] for t in doc["tests"]) == 4  # the task's points
    assert f"no submission for {TWIN} was found (expected cat/{TWIN}.py" in doc["output"]


def test_a_rerun_grades_nothing_and_changes_nothing(world):
    before = (world["out"] / "results.jsonl").read_bytes()
    proc = run_batch(world["bank"], world["cls"], world["out"])
    assert f"{N} already graded, 0 to grade" in proc.stderr
    assert (world["out"] / "results.jsonl").read_bytes() == before


# ---------------------------------------------------------------- the class report


def test_report_html_renders_and_its_numbers_are_summary_json(world, browser, tmp_path):
    from selenium.webdriver.common.by import By

    s = json.loads((world["out"] / "summary.json").read_text())
    browser.get((world["out"] / "report.html").as_uri())
    assert browser.title == "Class report"
    card = lambda name: int(browser.find_element(By.CSS_SELECTOR, f"[data-summary='{name}']").text)
    assert (card("graded"), card("pending"), card("missing"), card("late")) == (
        s["graded"],
        s["pending"],
        s["missing"],
        s["late"],
    )
    for task_id, t in s["tasks"].items():
        row = browser.find_element(By.CSS_SELECTOR, f"tr[data-task='{task_id}']")
        metric = lambda m, row=row: row.find_element(By.CSS_SELECTOR, f"[data-metric='{m}']")
        assert int(metric("graded").text) == t["graded"]
        assert int(metric("accepted").text) == t["verdicts"].get("accepted", 0)
        assert float(metric("pass_rate").get_attribute("data-value")) == t["pass_rate"]
        assert metric("pass_rate").text == f"{t['pass_rate'] * 100:.0f}%"
        segments = browser.find_elements(By.CSS_SELECTOR, f"svg.bar[data-task='{task_id}'] rect")
        assert {
            r.get_attribute("data-verdict"): int(r.get_attribute("data-count")) for r in segments
        } == t["verdicts"]
        assert all(r.size["width"] > 0 for r in segments)  # drawn, not just written
        for cid, counts in t["checks"].items():
            crow = browser.find_element(
                By.CSS_SELECTOR, f"tr[data-task='{task_id}'][data-check='{cid}']"
            )
            shown = {
                td.get_attribute("data-status"): int(td.text)
                for td in crow.find_elements(By.CSS_SELECTOR, "td[data-status]")
            }
            assert {k: v for k, v in shown.items() if v} == counts
            rate = crow.find_element(By.CSS_SELECTOR, "[data-metric='check_pass_rate']")
            assert float(rate.get_attribute("data-value")) == t["check_pass_rates"][cid]
        failures = browser.find_elements(By.CSS_SELECTOR, f"li[data-task='{task_id}'][data-count]")
        assert [int(f.get_attribute("data-count")) for f in failures] == [
            g["count"] for g in t["common_failures"]
        ]
        for f, g in zip(failures, t["common_failures"]):
            assert [a.text for a in f.find_elements(By.TAG_NAME, "a")] == g["learners"]
    book = {row["learner"]: row for row in gradebook(world["out"])}
    for cell in browser.find_elements(By.CSS_SELECTOR, "td[data-learner][data-task]"):
        assert (
            cell.get_attribute("data-verdict")
            == book[cell.get_attribute("data-learner")][cell.get_attribute("data-task")]
        )
    # eve's advisory retrace failed: drawn, a box per scripted call, with her name under it
    drawing = browser.find_element(By.CSS_SELECTOR, f"div.retrace[data-task='{TASK}']")
    assert len(drawing.find_elements(By.CSS_SELECTOR, "g.call")) == 8 and "eve" in drawing.text
    shot = Path(os.environ.get("JUDGE_SCREENS") or tmp_path) / "class-report.png"
    browser.set_window_size(1280, browser.execute_script("return document.body.scrollHeight") + 60)
    assert browser.save_screenshot(str(shot))
    # every verdict links to that grading's own page
    browser.find_element(By.CSS_SELECTOR, f"td[data-learner='eve'][data-task='{TASK}'] a").click()
    assert (
        browser.find_element(By.CSS_SELECTOR, ".jj-report").get_attribute("data-verdict")
        == "accepted"
    )
    assert "would be INEFFICIENT with --strict" in browser.page_source
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.script g.call")) == 8
    browser.save_screenshot(str(shot.with_name("grading-report.png")))


# ---------------------------------------------------------------- regrading on demand


def test_only_and_force_regrade_what_they_name_and_nothing_else(world):
    cls, out = fresh_copy(world, "only")
    shutil.copytree(world["out"], out)
    before = [{**r, "mark": "before"} for r in lines(out)]  # a line graded again loses it
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in before))
    proc = run_batch(world["bank"], cls, out, "--only", f"ann/{TASK},ben", "--force")
    assert "3 to grade" in proc.stderr and "--only: 3 of them" in proc.stderr
    records = lines(out)
    assert len(records) == len(before)  # replaced, not appended
    changed = [r for r in records if "mark" not in r]  # graded again: a new line
    assert sorted((r["learner"], r["task"]) for r in changed) == [
        ("ann", TASK),
        ("ben", TASK),
        ("ben", TWIN),
    ]
    assert [(r["learner"], r["task"]) for r in records] == [
        (b["learner"], b["task"]) for b in before
    ]
    assert gradebook(out) == gradebook(world["out"])  # the new lines stand, once each
    assert json.loads((out / "summary.json").read_text())["graded"] == N
    again = run_batch(world["bank"], cls, out, "--only", "dan")  # no --force: graded already
    assert "0 to grade" in again.stderr and len(lines(out)) == len(records)


def test_a_manifest_time_after_the_deadline_marks_the_grading_late(world, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(world["out"], out)  # the same files: nothing to grade again
    rows = ["learner,task,path,submitted"]
    for learner, tasks in CLASS.items():
        for task_id in tasks:
            when = "2026-11-21T09:00:00+00:00" if learner == "ben" else "2026-11-19T09:00:00+00:00"
            rows.append(f"{learner},{task_id},{world['cls'] / learner / task_id}.py,{when}")
    manifest = tmp_path / "class.csv"
    manifest.write_text("\n".join(rows) + "\n")
    proc = run_batch(world["bank"], manifest, out, "--deadline", "2026-11-20T23:59:00+00:00")
    assert "0 to grade" in proc.stderr
    late = {row["learner"]: row["late"] for row in gradebook(out)}
    assert late == {"ann": "", "ben": f"{TASK} {TWIN}", "cat": "", "dan": "", "eve": ""}
    assert json.loads((out / "summary.json").read_text())["late"] == 2


def test_a_deadline_without_a_zone_says_which_zone_it_was_taken_in(world, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(world["out"], out)
    proc = run_batch(world["bank"], world["cls"], out, "--deadline", "2026-11-20T23:59")
    said = [line for line in proc.stderr.splitlines() if "--deadline" in line]
    assert said and "names no time zone" in said[0] and "2026-11-20T23:59:00" in said[0]
    assert re.search(r"23:59:00([+-]\d\d:\d\d|Z)", said[0])  # the offset it assumed
    zoned = run_batch(world["bank"], world["cls"], out, "--deadline", "2026-11-20T23:59Z")
    assert "names no time zone" not in zoned.stderr


# ---------------------------------------------------------------- interrupted runs


def test_resume_after_sigkill_halfway(world):
    cls, out = fresh_copy(world, "killed")
    proc = subprocess.Popen(
        batch_cmd(world["bank"], cls, out, "--workers", "1"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    results = out / "results.jsonl"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if results.exists() and results.read_bytes().count(b"\n") >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the batch ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    try:  # its sandboxed workers, should any outlive it (the session the test started)
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    done_before = results.read_bytes().count(b"\n")
    assert 2 <= done_before < N
    rerun = run_batch(world["bank"], cls, out)
    assert f"{N - done_before} to grade" in rerun.stderr
    records = lines(out)
    assert len(records) == N and len(set(keys(records))) == N
    assert gradebook(out) == gradebook(world["out"])


def test_a_torn_last_line_is_repaired_and_that_grading_redone(world):
    cls, out = fresh_copy(world, "torn")
    out.mkdir()
    whole = (
        (world["out"] / "results.jsonl")
        .read_bytes()
        .replace(str(world["cls"]).encode(), str(cls).encode())
    )  # the same class, at its new path
    complete, last = whole.rstrip(b"\n").rsplit(b"\n", 1)
    (out / "results.jsonl").write_bytes(complete + b"\n" + last[: len(last) // 2])
    proc = run_batch(world["bank"], cls, out)
    assert "cut off a partial last line" in proc.stderr and "1 to grade" in proc.stderr
    records = lines(out)
    assert len(records) == N and len(set(keys(records))) == N
    assert gradebook(out) == gradebook(world["out"])


def test_an_edited_submission_is_graded_again(world):
    cls, out = fresh_copy(world, "edited")
    shutil.copytree(world["out"], out)
    first = lines(out)
    (cls / "ann" / f"{TWIN}.py").write_text(RIGHT + "\n# fixed the absolute value\n")
    proc = run_batch(world["bank"], cls, out)
    assert f"{N - 1} already graded, 1 to grade" in proc.stderr
    records = lines(out)
    assert len(records) == N + 1 and records[:N] == first  # the old line stays, appended after
    assert (records[-1]["learner"], records[-1]["task"], records[-1]["verdict"]) == (
        "ann",
        TWIN,
        "accepted",
    )
    ann = next(row for row in gradebook(out) if row["learner"] == "ann")
    assert (ann[TWIN], ann["score"]) == ("accepted", "8")
    s = json.loads((out / "summary.json").read_text())
    assert s["graded"] == N and s["tasks"][TWIN]["verdicts"] == {"accepted": 3}  # counted once


def test_judge_errors_are_graded_again_by_the_next_run(world, tmp_path):
    bank = make_bank(tmp_path / "bank")
    reference = bank / "reference" / f"{TWIN}.py"
    working = reference.read_text()
    reference.write_text(
        "def cache_independent_count(x_a, x_b):\n    raise RuntimeError('broken')\n"
    )
    cls, out = fresh_copy(world, "judge-error")
    first = run_batch(bank, cls, out, check_rc=3)  # the twin's reference is broken
    errors = [r for r in lines(out) if r["verdict"] == "judge_error"]
    assert {r["task"] for r in errors} == {TWIN} and len(errors) == 3
    reference.write_text(working)  # the author fixes it
    rerun = run_batch(bank, cls, out)
    assert f"{N - 3} already graded, 3 to grade" in rerun.stderr
    assert "3 of them ended in a judge error last time" in rerun.stderr
    records = lines(out)  # the errors replaced, one line a key
    assert len(records) == N and not [r for r in records if r["verdict"] == "judge_error"]
    assert gradebook(out) == gradebook(world["out"])
    s = json.loads((out / "summary.json").read_text())
    assert s["graded"] == N and "judge_error" not in s["tasks"][TWIN]["verdicts"]
    assert "broken" in first.stderr + json.dumps(errors)


# ---------------------------------------------------------------- on a Dask cluster


def test_dask_localcluster_gives_the_same_gradebook(world, tmp_path):
    distributed = pytest.importorskip("distributed")
    cls, out = fresh_copy(world, "dask")
    # A worker process, as on a real cluster: in-process workers would grade inside
    # pytest, whose import hook parses modules with ast (not thread-safe in CPython 3.11).
    with distributed.LocalCluster(
        n_workers=1,
        threads_per_worker=2,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        local_directory=str(tmp_path),
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        proc = run_batch(world["bank"], cls, out, "--scheduler", cluster.scheduler_address)
    assert f"on {cluster.scheduler_address}" in proc.stderr
    records = lines(out)
    assert len(records) == N and len(set(keys(records))) == N
    assert gradebook(out) == gradebook(world["out"])


def test_without_dask_the_scheduler_option_says_what_to_install(world, tmp_path):
    (tmp_path / "distributed.py").write_text("raise ImportError('no dask here')\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    cls, out = fresh_copy(world, "nodask")
    proc = subprocess.run(
        batch_cmd(world["bank"], cls, out, "--scheduler", "tcp://127.0.0.1:1"),
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2 and "pip install 'jax-judge[dask]'" in proc.stderr
