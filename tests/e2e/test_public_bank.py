"""What a learner installs holds no reference: the wheel (and the source archive) carry
the public part of the bank only, a learner's install shows, lists and hints its tasks
and refuses to grade with a message that says where grading is, and the full bank in a
checkout still grades through that same install (the README's Quickstart).

The wheel is built here exactly as `pip install .` builds it (pip, the project's own
backend and build hook), from this checkout."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from judge.bank import PUBLIC_TASK_FILES, load_bank

from helpers import ROOT, TASK
from helpers.isolation_modes import MODES

EXAMPLE = ROOT / "examples" / f"{TASK}.py"
REFUSAL = "holds the public bank only"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _private_files() -> dict[str, Path]:
    """Every file only the grader may have, by its content's hash: the references and
    the known submissions (a copy under any other name is caught too)."""
    files = list((ROOT / "reference").rglob("*.py"))
    files += [p for p in (ROOT / "tasks").glob("*/known/*") if p.is_file()]
    assert len(files) > 100  # the bank's 28 references and their known submissions
    return {_digest(p.read_bytes()): p for p in files}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    (built,) = out.glob("jax_judge-*.whl")
    return built


@pytest.fixture(scope="module")
def learner_site(wheel, tmp_path_factory) -> Path:
    """The wheel installed as a learner's `pip install jax-judge` installs it (into a
    folder of its own, put first on the path; its dependencies are this venv's)."""
    site = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(site),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return site


def as_learner(
    site: Path, *args: str, cwd: Path, code: str | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """`judge ARGS` (or ``python -c CODE``) from the learner's install, in a folder that
    is not a checkout, with no JUDGE_BANK or JUDGE_SERVER of the caller's."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("JUDGE_BANK", "JUDGE_SERVER", "JUDGE_TOKEN")
    }
    env["PYTHONPATH"] = str(site)
    cmd = (
        [sys.executable, "-c", code] if code is not None else [sys.executable, "-m", "judge", *args]
    )
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


# ---------------------------------------------------------------- what is packaged


def test_the_wheel_holds_the_public_bank_and_nothing_private(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = [n for n in z.namelist() if not n.endswith("/")]
        contents = {n: z.read(n) for n in names}
    bank = load_bank(ROOT)
    public = {"tasks.yaml"} | {
        f"tasks/{t}/{name}"
        for t in bank.tasks
        for name in PUBLIC_TASK_FILES
        if (ROOT / "tasks" / t / name).is_file()
    }
    shipped = {n.removeprefix("judge/_bank/") for n in names if n.startswith("judge/_bank/")}
    assert shipped == public  # exactly: nothing else beside a task
    assert len(public) == 1 + 3 * len(bank.tasks)
    private = _private_files()
    leaked = sorted(
        f"{n} is {private[_digest(data)].relative_to(ROOT)}"
        for n, data in contents.items()
        if _digest(data) in private
    )
    assert leaked == []
    assert not [n for n in names if "/reference/" in n or "/known/" in n]


def test_only_the_public_files_themselves_are_shipped(tmp_path):
    """Files are chosen by name, never a folder copied: a stray file beside a task (a
    reference copied there), a known submission: neither reaches the wheel; and a public
    name that is a link (to a reference) stops the build, saying so."""
    from hatchling.builders.wheel import WheelBuilder

    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "hatch_build.py", "README.md", "tasks.yaml"):
        shutil.copy(ROOT / name, project / name)
    shutil.copytree(ROOT / "judge", project / "judge", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "tasks", project / "tasks")
    shutil.copytree(ROOT / "reference", project / "reference")
    folder = project / "tasks" / TASK
    secret = (ROOT / "reference" / f"{TASK}.py").read_text()
    (folder / "solution.py").write_text(secret)  # an author's stray copy
    (built,) = WheelBuilder(str(project)).build(directory=str(tmp_path / "out"))
    with zipfile.ZipFile(built) as z:
        names = set(z.namelist())
        texts = [z.read(n).decode("utf-8", "replace") for n in names]
    assert f"judge/_bank/tasks/{TASK}/statement.md" in names
    assert f"judge/_bank/tasks/{TASK}/solution.py" not in names
    # no reference folder nor a file of one (judge/reference_checks.py is the judge's code)
    assert not [n for n in names if "/known/" in n or "reference/" in n]
    assert not [t for t in texts if secret.strip() in t]
    (folder / "hints.md").unlink()
    (folder / "hints.md").symlink_to(project / "reference" / f"{TASK}.py")
    with pytest.raises(ValueError, match=f"tasks/{TASK}/hints.md is a symbolic link"):
        list(WheelBuilder(str(project)).build(directory=str(tmp_path / "out2")))
    assert not (tmp_path / "out2").exists() or not list((tmp_path / "out2").iterdir())


def test_the_build_hook_ships_what_the_bank_calls_public():
    sys.path.insert(0, str(ROOT))
    try:
        import hatch_build
    finally:
        sys.path.remove(str(ROOT))
    assert hatch_build.PUBLIC_TASK_FILES == PUBLIC_TASK_FILES


def test_the_source_archive_holds_nothing_private(tmp_path):
    from hatchling.builders.sdist import SdistBuilder

    (built,) = SdistBuilder(str(ROOT)).build(directory=str(tmp_path))
    private = _private_files()
    with tarfile.open(built) as tar:
        files = [m for m in tar.getmembers() if m.isfile()]
        leaked = sorted(m.name for m in files if _digest(tar.extractfile(m).read()) in private)
        names = [m.name for m in files]
    assert leaked == []
    assert any(n.endswith("/tasks.yaml") for n in names)
    assert any(n.endswith(f"/tasks/{TASK}/statement.md") for n in names)


# ---------------------------------------------------------------- the learner's install


def test_a_learner_install_lists_shows_and_hints(learner_site, tmp_path):
    listed = as_learner(learner_site, "list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert TASK in listed.stdout and str(learner_site / "judge" / "_bank") in listed.stdout
    shown = as_learner(learner_site, "show", TASK, cwd=tmp_path)
    assert shown.returncode == 0 and f"Signature: {TASK}(x_a, x_b)" in shown.stdout
    assert f'Grade:   check("{TASK}", my_fn) in a notebook, with JUDGE_SERVER=URL' in shown.stdout
    starter = as_learner(learner_site, "show", TASK, "--starter", cwd=tmp_path)
    assert starter.stdout == (ROOT / "tasks" / TASK / "starter.py").read_text()
    hinted = as_learner(learner_site, "hint", TASK, "1", cwd=tmp_path)
    assert hinted.returncode == 0 and hinted.stdout.startswith(f"Hint 1 of 3 for {TASK}:")


def test_a_learner_install_refuses_to_grade_and_says_where_grading_is(learner_site, tmp_path):
    for command in (
        ("run", TASK, str(EXAMPLE)),
        ("validate", TASK),
        ("batch", str(tmp_path), "--out", str(tmp_path / "out"), "--isolation", "process"),
        ("serve", "--port", "0", "--state", str(tmp_path / "state.sqlite")),
    ):
        proc = as_learner(learner_site, *command, cwd=tmp_path)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        said = proc.stderr
        assert f"this install {REFUSAL}" in said, (command, said)
        assert "JUDGE_SERVER=URL" in said and "check(..., server=URL)" in said
        assert "--bank DIR" in said and "Traceback" not in said
    checked = as_learner(
        learner_site,
        cwd=tmp_path,
        code=(
            "import importlib.util, sys\n"
            f"spec = importlib.util.spec_from_file_location('mine', {str(EXAMPLE)!r})\n"
            "mine = importlib.util.module_from_spec(spec); spec.loader.exec_module(mine)\n"
            "from judge import check\n"
            "try:\n"
            f"    check({TASK!r}, mine.{TASK})\n"
            "except Exception as exc:\n"
            "    print(type(exc).__name__, exc)\n"
        ),
    )
    assert checked.stdout.startswith(f"PublicBankOnly this install {REFUSAL}"), (
        checked.stdout + checked.stderr
    )


@pytest.mark.parametrize("mode", MODES)
def test_the_quickstart_grades_with_the_checkouts_bank(learner_site, mode):
    """README's first command, once the wheel is installed: `judge --bank . run ...`
    from the checkout grades with its full bank."""
    proc = as_learner(
        learner_site,
        "--bank",
        ".",
        "run",
        TASK,
        f"examples/{TASK}.py",
        "--isolation",
        mode,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith(f"ACCEPTED  {TASK}")
