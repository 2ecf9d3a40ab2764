"""`judge gradescope`: the autograder zip, tested the way Gradescope uses it.  The zip is
extracted into a temporary root laid out as /autograder (source/, submission/,
results/, run_autograder copied beside them), and run_autograder runs end to end,
pointed at this test's Python (JUDGE_PYTHON) instead of the venv setup.sh would make;
setup.sh itself is not run (it installs packages as root).  Also: a check's
`visibility` in tasks.yaml, from the bank to the Gradescope tests."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

from judge.bank import BankError, load_bank
from judge.report import CheckResult, Report
from judge.writers import writer

from helpers import notebook, put, run_judge
from helpers.isolation_modes import MODES
from helpers.platform_shapes import gradescope_problems

# Two small tasks of a bank of three (the third must stay out of the zip).  double_it's
# property check is shown only after the due date.
BANK = """\
course: Test course
tasks:
  - id: double_it
    title: Double every element
    step: 1
    dims: {n: [0, 8]}
    args:
      x: {type: array, dtype: float32, shape: [n], values: [-10, 10]}
    result: {type: array, dtype: same}
    examples:
      - args: {x: {$array: [1.0, 2.0], dtype: float32}}
        expect: {$array: [2.0, 4.0], dtype: float32}
    checks:
      - {id: examples, kind: example}
      - {id: property, kind: property, examples: 10, max_shapes: 3, visibility: after_due_date}
  - id: negate_it
    title: Negate every element
    step: 1
    dims: {n: [0, 8]}
    args:
      x: {type: array, dtype: float32, shape: [n], values: [-10, 10]}
    result: {type: array, dtype: same}
    examples:
      - args: {x: {$array: [1.0, -2.0], dtype: float32}}
        expect: {$array: [-1.0, 2.0], dtype: float32}
    checks:
      - {id: examples, kind: example}
      - {id: property, kind: property, examples: 10, max_shapes: 3}
  - id: square_it
    title: Square every element
    step: 2
    dims: {n: [0, 8]}
    args:
      x: {type: array, dtype: float32, shape: [n], values: [-10, 10]}
    result: {type: array, dtype: same}
    checks:
      - {id: property, kind: property, examples: 10, max_shapes: 3}
"""
RIGHT = {
    "double_it": "import jax\n\n@jax.jit\ndef double_it(x):\n    return 2 * x\n",
    "negate_it": "import jax\n\n@jax.jit\ndef negate_it(x):\n    return -x\n",
    "square_it": "def square_it(x):\n    return x * x\n",
}
WRONG_NEGATE = "def negate_it(x):\n    return x\n"
TASKS = ["double_it", "negate_it"]
MAX = {"double_it": 4, "negate_it": 4}  # an example and a property check, 2 points each


def make_bank(root: Path) -> Path:
    put(root / "tasks.yaml", BANK)
    for task_id, source in RIGHT.items():
        put(root / "reference" / f"{task_id}.py", source)
        put(root / "tasks" / task_id / "statement.md", f"# {task_id}\n")
        put(
            root / "tasks" / task_id / "starter.py",
            f"def {task_id}(x):\n    raise NotImplementedError\n",
        )
    return root


def extract(zip_path: Path, dst: Path) -> None:
    """As Gradescope does: the zip into source/, its modes kept."""
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            zf.extract(info, dst)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(dst / info.filename, mode)


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    here = tmp_path_factory.mktemp("gradescope")
    bank = make_bank(here / "bank")
    out = here / "autograder.zip"
    proc = run_judge("gradescope", ",".join(TASKS), "--out", out, "--bank", bank)
    assert proc.returncode == 0, proc.stderr
    return {"zip": out, "bank": bank, "stdout": proc.stdout, "here": here}


def autograde(
    bundle: dict, name: str, files: dict[str, str], env: dict | None = None, prepare=None
) -> tuple[dict, subprocess.CompletedProcess, Path]:
    """A fresh /autograder tree holding ``files`` as the submission (``prepare(root)``
    done to it last); run_autograder's results.json, its run, and the root."""
    root = bundle["here"] / name
    extract(bundle["zip"], root / "source")
    (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
    (root / "run_autograder").chmod(0o755)
    (root / "submission").mkdir()
    for rel, text in files.items():
        put(root / "submission" / rel, text)
    if prepare is not None:
        prepare(root)
    full_env = {k: v for k, v in os.environ.items() if k != "JUDGE_BANK"}
    full_env.update({"AUTOGRADER_ROOT": str(root), "JUDGE_PYTHON": sys.executable, **(env or {})})
    proc = subprocess.run(
        [str(root / "run_autograder")],
        cwd=root,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads((root / "results" / "results.json").read_text())
    assert gradescope_problems(doc) == [], doc
    return doc, proc, root


def checks_of(doc: dict, task_id: str) -> list[dict]:
    return [t for t in doc["tests"] if t["name"].startswith(f"{task_id}: ")]


# ---------------------------------------------------------------- the zip


def test_the_zip_holds_what_gradescope_runs_and_only_the_named_tasks(bundle):
    with zipfile.ZipFile(bundle["zip"]) as zf:
        names = set(zf.namelist())
        modes = {i.filename: (i.external_attr >> 16) & 0o777 for i in zf.infolist()}
        tasks_yaml = yaml.safe_load(zf.read("bank/tasks.yaml"))
        project = tomllib.loads(zf.read("judge-src/pyproject.toml").decode())
        manifest = json.loads(zf.read("autograder.json"))
        requirements = zf.read("requirements.txt").decode()
    assert {
        "setup.sh",
        "run_autograder",
        "requirements.txt",
        "autograder.json",
        "judge-src/judge/cli.py",
        "judge-src/judge/gradescope_autograder.py",
    } <= names
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    # the bank: the two tasks asked for, nothing of the third, no second copy in the judge
    assert [t["id"] for t in tasks_yaml["tasks"]] == TASKS
    assert {n for n in names if n.startswith("bank/reference/")} == {
        f"bank/reference/{t}.py" for t in TASKS
    }
    assert not any("square_it" in n or n.startswith("judge-src/judge/_bank") for n in names)
    assert not any("__pycache__" in n for n in names)
    # the judge's source installs as jax-judge, with no bank forced into it
    assert project["project"]["name"] == "jax-judge"
    assert project["project"]["scripts"]["judge"] == "judge.cli:entry"
    assert "force-include" not in json.dumps(project)
    assert any(d.startswith("nbformat") for d in project["project"]["dependencies"])
    assert "jax==" in requirements and "hypothesis==" in requirements
    assert [(t["id"], t["files"][:2], t["max_score"]) for t in manifest["tasks"]] == [
        (t, [f"{t}.py", f"{t}.ipynb"], MAX[t]) for t in TASKS
    ]
    assert "8 points in all" in bundle["stdout"] and "reference solutions" in bundle["stdout"]


def test_setup_installs_bubblewrap_python_and_the_judge_from_the_zip(bundle):
    with zipfile.ZipFile(bundle["zip"]) as zf:
        setup = zf.read("setup.sh").decode()
    assert setup.startswith("#!/usr/bin/env bash")
    assert "apt-get install" in setup and "bubblewrap" in setup
    assert '-r "$SOURCE/requirements.txt"' in setup and '"$SOURCE/judge-src"' in setup
    assert subprocess.run(["bash", "-n", "-c", setup]).returncode == 0


def test_an_unknown_task_or_a_folder_for_out_is_a_usage_error(bundle, tmp_path):
    proc = run_judge(
        "gradescope", "double_it,negate_iit", "--out", tmp_path / "a.zip", "--bank", bundle["bank"]
    )
    assert proc.returncode == 2 and "did you mean: negate_it" in proc.stderr.lower()
    assert not (tmp_path / "a.zip").exists()
    proc = run_judge("gradescope", "double_it", "--out", tmp_path, "--bank", bundle["bank"])
    assert proc.returncode == 2 and ("folder" in proc.stderr or "directory" in proc.stderr)


# ---------------------------------------------------------------- run_autograder end to end


def test_a_right_and_a_wrong_file_each_get_their_tasks_tests_and_the_sum(bundle):
    doc, proc, root = autograde(
        bundle, "right_wrong", {"double_it.py": RIGHT["double_it"], "negate_it.py": WRONG_NEGATE}
    )
    double, negate = checks_of(doc, "double_it"), checks_of(doc, "negate_it")
    assert len(double) + len(negate) == len(doc["tests"]) and double and negate
    assert [t["number"] for t in double] == [f"1.{i}" for i in range(1, len(double) + 1)]
    assert all(t["extra_data"]["task"] == "double_it" for t in double)
    assert (
        sum(t["score"] for t in double) == sum(t["max_score"] for t in double) == MAX["double_it"]
    )
    assert (
        sum(t["score"] for t in negate) == 0
        and sum(t["max_score"] for t in negate) == MAX["negate_it"]
    )
    assert doc["score"] == MAX["double_it"]
    assert doc["extra_data"]["tasks"]["double_it"]["verdict"] == "accepted"
    assert doc["extra_data"]["tasks"]["negate_it"]["verdict"] == "wrong_answer"
    assert (
        "double_it (4 of 4 points)" in doc["output"]
        and "negate_it (0 of 4 points)" in doc["output"]
    )
    # the instructor's log: each task's file and verdict
    assert "double_it: graded submission/double_it.py: accepted" in proc.stdout
    # visibility from tasks.yaml, per check, through the real grading
    shown = {t["name"]: t["visibility"] for t in doc["tests"]}
    assert shown["double_it: property (property)"] == "after_due_date"
    assert shown["double_it: examples (example)"] == "visible"
    assert shown["negate_it: property (property)"] == "visible"


def test_a_misnamed_file_and_a_missing_one_score_0_and_say_why(bundle):
    doc, proc, root = autograde(
        bundle, "missing", {"doubel_it.py": RIGHT["double_it"], "notes.txt": "hello\n"}
    )
    assert doc["score"] == 0
    for task_id in TASKS:
        tests = checks_of(doc, task_id)
        assert sum(t["max_score"] for t in tests) == MAX[task_id]  # the same maximum as graded
        assert all(t["score"] == 0 for t in tests)
    said = doc["output"]
    assert (
        "no file named double_it.py (or double_it.ipynb) was handed in; you handed in "
        "doubel_it.py: did you mean double_it.py?" in said
    )
    assert (
        "no file named negate_it.py (or negate_it.ipynb) was handed in (you handed in "
        "doubel_it.py, notes.txt)" in said
    )
    load = [t for t in checks_of(doc, "double_it") if "load" in t["name"]]
    assert load and "did you mean double_it.py" in load[0]["output"]
    assert "Traceback" not in said and "Traceback" not in proc.stdout


def test_one_notebook_answering_both_tasks_is_graded_for_each(bundle):
    cells = [
        ("markdown", "# Week 1"),
        ("code", "import jax\nimport jax.numpy as jnp"),
        ("code", RIGHT["double_it"]),
        ("code", "%time double_it(jnp.ones(3))"),
        ("code", RIGHT["negate_it"]),
    ]
    doc, proc, root = autograde(bundle, "notebook", {"work/week1.ipynb": notebook(*cells)})
    assert doc["score"] == MAX["double_it"] + MAX["negate_it"]
    assert "double_it: graded submission/work/week1.ipynb: accepted" in proc.stdout
    assert "negate_it: graded submission/work/week1.ipynb: accepted" in proc.stdout


def test_a_results_file_is_written_even_when_the_grader_cannot_start(bundle):
    # a results.json already there (planted, or left over) is never taken for this run's
    planted = json.dumps({"score": 1000, "tests": []})
    doc, proc, root = autograde(
        bundle,
        "no_python",
        {"double_it.py": RIGHT["double_it"]},
        env={"JUDGE_PYTHON": "/nonexistent/python"},
        prepare=lambda root: put(root / "results" / "results.json", planted),
    )
    assert doc["score"] == 0 and "failed to run (not your fault)" in doc["output"]
    assert "before writing its results" in proc.stdout


def test_a_grading_that_runs_too_long_is_the_judge_s_fault_and_the_others_still_count(bundle):
    doc, proc, root = autograde(
        bundle,
        "too_long",
        {"double_it.py": RIGHT["double_it"]},
        env={"AUTOGRADER_TASK_TIMEOUT": "0.001"},
    )
    double = checks_of(doc, "double_it")
    assert doc["score"] == 0 and sum(t["max_score"] for t in double) == MAX["double_it"]
    assert "The judge failed (not your fault): grading took over 0.001 s" in doc["output"]
    assert doc["extra_data"]["tasks"]["double_it"]["verdict"] == "judge_error"
    assert "no file named negate_it.py" in doc["output"]  # the next task is still there
    assert "double_it: grading submission/double_it.py took over 0.001 s; stopped" in proc.stdout


@pytest.mark.parametrize("isolation", MODES)
def test_a_submission_cannot_write_its_own_results(bundle, isolation):
    """The learner's code knows where results.json goes.  What it writes there while it
    runs, a forged file or a link for the judge's own write to follow (here also planted
    beforehand, as if it had got through), is not what Gradescope reads."""
    name = f"forger_{isolation}"
    root = bundle["here"] / name
    victim = bundle["here"] / f"victim_{isolation}.txt"
    victim.write_text("untouched\n")
    forged = json.dumps({"score": 1000, "tests": []})
    forger = f"""\
import os
results = {str(root / "results")!r}
for attempt in (lambda: os.makedirs(results, exist_ok=True),
                lambda: open(os.path.join(results, "results.json"), "w").write({forged!r}),
                lambda: os.symlink({str(victim)!r}, os.path.join(results, ".results.json.partial"))):
    try:
        attempt()
    except OSError:
        pass
{RIGHT["double_it"]}"""

    def plant(root: Path) -> None:
        put(root / "results" / "results.json", forged)
        for name in (".results.json.partial", ".results.json.tmp", "results.json.tmp"):
            (root / "results" / name).symlink_to(victim)

    doc, proc, root = autograde(
        bundle, name, {"double_it.py": forger}, env={"JUDGE_ISOLATION": isolation}, prepare=plant
    )
    assert doc["score"] == MAX["double_it"], doc["output"]
    assert victim.read_text() == "untouched\n"
    assert not (root / "results" / "results.json").is_symlink()


# ---------------------------------------------------------------- visibility


def written(report: Report) -> dict:
    buf = io.StringIO()
    writer("gradescope")(report, buf)
    return json.loads(buf.getvalue())


def graded(checks, stdout="") -> Report:
    return Report(
        task="double_it",
        submission="double_it.py",
        seed=1,
        judge_version="0",
        checks=checks,
        output={"stdout": stdout, "stderr": "", "truncated": False},
    ).finish()


def test_each_check_s_visibility_is_its_gradescope_test_s():
    doc = written(
        graded(
            [
                CheckResult(
                    id="examples", kind="example", required=True, status="passed", message="ok"
                ),
                CheckResult(
                    id="property",
                    kind="property",
                    required=True,
                    status="passed",
                    message="ok",
                    details={"visibility": "hidden"},
                ),
            ]
        )
    )
    assert [t["visibility"] for t in doc["tests"]] == ["visible", "hidden"]
    assert gradescope_problems(doc) == []


def test_what_the_code_printed_is_withheld_with_a_withheld_failure():
    doc = written(
        graded(
            [
                CheckResult(
                    id="examples", kind="example", required=True, status="passed", message="ok"
                ),
                CheckResult(
                    id="property",
                    kind="property",
                    required=True,
                    status="failed",
                    message="f(x=[3.5]): expected 7.0, got 0.0",
                    counterexample={"args": {"x": [3.5]}},
                    details={"visibility": "after_due_date"},
                ),
            ],
            stdout="x = [3.5]\n",
        )
    )
    # the inputs the learner printed, and which check failed, wait for the due date too
    assert "3.5" not in doc["output"] and "property" not in doc["output"]
    printed = [t for t in doc["tests"] if t["name"] == "what your code printed"]
    assert (
        printed and printed[0]["visibility"] == "after_due_date" and "3.5" in printed[0]["output"]
    )
    assert gradescope_problems(doc) == []
    # all visible: the summary says it, as before
    visible = written(
        graded(
            [
                CheckResult(
                    id="property", kind="property", required=True, status="failed", message="wrong"
                )
            ],
            stdout="x = [3.5]\n",
        )
    )
    assert "x = [3.5]" in visible["output"] and len(visible["tests"]) == 1


def test_visibility_is_read_from_tasks_yaml_per_check(tmp_path):
    make_bank(tmp_path)
    task = load_bank(tmp_path).get("double_it")
    assert task.visibility == {"examples": "visible", "property": "after_due_date"}


@pytest.mark.parametrize(
    "value, said",
    [
        ("later", "must be one of visible, after_due_date, after_published, hidden, got 'later'"),
        ("after_due", "(did you mean 'after_due_date'?)"),
        ("true", "expected one of visible, after_due_date, after_published, hidden, got a boolean"),
    ],
)
def test_a_bad_visibility_names_the_file_task_and_field(tmp_path, value, said):
    put(tmp_path / "tasks.yaml", BANK.replace("visibility: after_due_date", f"visibility: {value}"))
    with pytest.raises(BankError) as err:
        load_bank(tmp_path)
    assert err.value.task == "double_it" and err.value.field == "checks[1].visibility"
    assert str(tmp_path / "tasks.yaml") in str(err.value) and said in str(err.value)


def test_a_misspelt_visibility_field_gets_a_did_you_mean(tmp_path):
    put(tmp_path / "tasks.yaml", BANK.replace("visibility: after_due_date", "visiblity: hidden"))
    with pytest.raises(BankError) as err:
        load_bank(tmp_path)
    assert "unknown field 'visiblity' (did you mean 'visibility'?)" in str(err.value)
    assert err.value.field == "checks[1].visiblity"
