"""What Gradescope runs for every submission (the bundle's run_autograder starts it,
judge/gradescope_bundle.py makes the bundle): find each task's file among the learner's,
grade it with `judge run --format gradescope` in a process of its own, and merge the
tasks' results into the one results.json Gradescope reads: each task's tests, named
after the task, and the sum of their scores.

A task whose file is not there, or is misnamed, scores 0 of its points, saying why in
the learner's words (a did-you-mean for a misspelt name).  Whatever goes wrong, a
results.json is written: without one Gradescope shows a broken autograder and the
learner no reason.  What an instructor needs to see goes to standard output, which
Gradescope keeps for them (results/stdout).

The tree is Gradescope's: /autograder/source (the zip), /autograder/submission,
/autograder/results.  AUTOGRADER_ROOT moves it, for tests.
"""

from __future__ import annotations

import ast
import difflib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT_ENV = "AUTOGRADER_ROOT"
TIMEOUT_ENV = "AUTOGRADER_TASK_TIMEOUT"  # seconds one task's grading may take
DEFAULT_TIMEOUT_S = 600
MAX_FILES = 10_000  # of the submission, looked at for names
MAX_NOTEBOOKS = 20  # read to see which tasks' functions they define
SHOWN_FILES = 8  # of the learner's file names, listed when none fits


@dataclass
class Found:
    """A task's file in the submission, or why there is none (for the learner)."""

    path: Path | None
    why: str = ""


# ---------------------------------------------------------------- finding the files


def submitted_files(folder: Path) -> list[Path]:
    """The submission's files (links too, never followed into folders), relative to
    ``folder``, shallowest first."""
    out: list[Path] = []
    for here, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            out.append(Path(here, name).relative_to(folder))
            if len(out) >= MAX_FILES:
                break
        if len(out) >= MAX_FILES:
            break
    return sorted(out, key=lambda p: (len(p.parts), p.as_posix()))


def defines(path: Path, folder: Path, name: str) -> bool:
    """Does the notebook at ``path`` define ``name`` at its top level (a def, a class,
    an assignment or an import)?  A notebook that cannot be read defines nothing."""
    from .notebooks import notebook_source
    from .sources import read_submission

    try:
        text = read_submission(path, within=folder).decode("utf-8")
        tree = ast.parse(notebook_source(text, path.name))
    except Exception:  # noqa: BLE001 - unreadable in any way: not this task's file
        return False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [(a.asname or a.name).split(".")[0] for a in node.names]
        else:
            continue
        if name in names:
            return True
    return False


def find(folder: Path, tasks: list[dict]) -> dict[str, Found]:
    """Each task's file: one named after the task (`<task>.py` or `.ipynb`, anywhere in
    the submission, the shallowest first), else a notebook that defines its function
    (one notebook may answer several tasks), else none, and why."""
    files = submitted_files(folder) if folder.is_dir() else []
    by_name: dict[str, Path] = {}
    rel: Path | None
    for rel in files:
        by_name.setdefault(rel.name, rel)
    found: dict[str, Found] = {}
    for task in tasks:
        rel = next((by_name[n] for n in task["files"] if n in by_name), None)
        if rel is not None:
            found[task["id"]] = Found(folder / rel)
    named = {f.path for f in found.values()}
    notebooks = [
        folder / rel for rel in files if rel.suffix == ".ipynb" and folder / rel not in named
    ][:MAX_NOTEBOOKS]
    for task in tasks:
        if task["id"] in found:
            continue
        nb = next((p for p in notebooks if defines(p, folder, task["entrypoint"])), None)
        if nb is not None:
            found[task["id"]] = Found(nb)
    used = {f.path for f in found.values()}
    for task in tasks:
        if task["id"] not in found:
            spare = [rel for rel in files if folder / rel not in used]
            found[task["id"]] = Found(None, why_missing(task, spare, folder.is_dir()))
    return found


def why_missing(task: dict, spare: list[Path], any_folder: bool) -> str:
    """Why no file counts for ``task``, in the learner's words: the name expected, and
    the closest name handed in (a misspelt `bucketd_mean.py`, a `Bucketed_Mean.py`)."""
    expected = f"{task['files'][0]} (or {task['files'][1]})"
    if not any_folder or not spare:
        return f"no file named {expected} was handed in"
    stems = [Path(n).stem for n in task["files"]]
    close = None
    for rel in spare:
        if rel.suffix.lower() not in (".py", ".ipynb"):
            continue
        stem = rel.stem.lower()
        if stem in stems or difflib.get_close_matches(stem, stems, n=1, cutoff=0.75):
            close = rel
            break
    if close is not None:
        suffix = close.suffix.lower()
        return (
            f"no file named {expected} was handed in; you handed in {close.as_posix()}: "
            f"did you mean {stems[0]}{suffix}? Rename it and submit again"
        )
    listed = ", ".join(rel.as_posix() for rel in spare[:SHOWN_FILES])
    more = f" and {len(spare) - SHOWN_FILES} more" if len(spare) > SHOWN_FILES else ""
    return f"no file named {expected} was handed in (you handed in {listed}{more})"


# ---------------------------------------------------------------- grading


def judge_command() -> list[str]:
    """The judge, run by the Python running this (the one setup.sh installed it in),
    isolated from the working folder so no file of the submission can stand in for it."""
    return [sys.executable, "-I", "-m", "judge"]


def grade(task: dict, found: Found, bank: Path, root: Path, timeout: float, log) -> dict:
    """The task's Gradescope results: graded by `judge run`, or scoring 0 and saying why."""
    from .bank import load_bank
    from .runner import missing_report
    from .writers.gradescope import results

    if found.path is None:
        log(f"{task['id']}: nothing to grade: {found.why}")
        return results(
            missing_report(
                load_bank(bank, lazy=True).get(task["id"]), task["files"][0], found.why, None, False
            )
        )
    shown = found.path.relative_to(root).as_posix()
    command = judge_command() + [
        "--bank",
        str(bank),
        "run",
        task["id"],
        str(found.path),
        "--format",
        "gradescope",
    ]
    started = time.monotonic()
    try:
        proc = run(command, root, timeout)
    except subprocess.TimeoutExpired:
        log(f"{task['id']}: grading {shown} took over {timeout:g} s; stopped")
        return judge_failed(task, bank, f"grading took over {timeout:g} s and was stopped")
    except OSError as exc:
        log(f"{task['id']}: the judge did not start: {exc}")
        return judge_failed(task, bank, "the judge did not start")
    if proc.stderr.strip():
        log(f"{task['id']}: the judge said:\n{_tail(proc.stderr)}")
    try:
        doc = json.loads(proc.stdout)
        if not isinstance(doc, dict) or not isinstance(doc.get("tests"), list):
            raise ValueError("not a Gradescope results object")
    except ValueError:
        log(f"{task['id']}: the judge (exit status {proc.returncode}) printed no results")
        return judge_failed(task, bank, "the judge printed no results")
    extra = doc.get("extra_data") or {}
    log(
        f"{task['id']}: graded {shown}: {extra.get('verdict', '?')}, "
        f"{doc.get('score')} of {_maximum(doc)} points ({time.monotonic() - started:.1f} s)"
    )
    return doc


def run(command: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess:
    """``command`` in a session of its own, all of it killed when it takes too long
    (the judge's workers die with it too, but nothing is left to that)."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
        raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def judge_failed(task: dict, bank: Path, what: str) -> dict:
    """0 of the task's points, saying the judge is at fault (the instructor regrades)."""
    from .bank import load_bank
    from .report import CheckResult
    from .runner import missing_report
    from .verdicts import Status, Verdict
    from .writers.gradescope import results

    try:
        report = missing_report(
            load_bank(bank, lazy=True).get(task["id"]), task["files"][0], what, None, False
        )
        report.checks[0] = CheckResult(
            id="judge",
            kind="judge",
            required=True,
            status=Status.ERROR,
            message=f"the judge failed (not your fault): {what}",
            verdict=Verdict.JUDGE_ERROR,
        )
        return results(report.finish())
    except Exception:  # noqa: BLE001 - even the bank is gone: a test that says so
        return {
            "score": 0,
            "output": f"The judge failed (not your fault): {what}",
            "tests": [
                {
                    "name": "judge",
                    "score": 0,
                    "max_score": task.get("max_score", 0),
                    "status": "failed",
                    "output": f"the judge failed (not your fault): {what}",
                }
            ],
        }


def _maximum(doc: dict) -> float:
    from .scoring import number

    return number(sum(t.get("max_score", 0) for t in doc.get("tests", [])))


def _tail(text: str, lines: int = 20) -> str:
    return "\n".join("    " + line for line in text.rstrip().splitlines()[-lines:])


# ---------------------------------------------------------------- merging


def merge(docs: list[tuple[dict, dict]], judge_version: str) -> dict:
    """One results.json of the tasks' ones (judge/writers/gradescope.py's ``merge``, which
    ``judge run --tasks --format gradescope`` writes too)."""
    from .writers.gradescope import merge as merged

    return merged([(task["id"], doc) for task, doc in docs], judge_version)


def write_results(path: Path, doc: dict) -> None:
    """Whole or not at all, and only ours: a new file of a fresh name (never one planted
    there, nor a link), renamed over whatever is at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=path.parent, prefix=".results-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        os.chmod(partial, 0o644)
        os.replace(partial, path)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise


def main() -> int:
    root = Path(os.environ.get(ROOT_ENV) or "/autograder").resolve()
    source, results_file = root / "source", root / "results" / "results.json"
    from .report import escape_controls

    log = lambda text: print(escape_controls(text), flush=True)  # file names are the learner's
    try:
        manifest = json.loads((source / "autograder.json").read_text(encoding="utf-8"))
        tasks = manifest["tasks"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log(
            f"run_autograder: {source / 'autograder.json'} cannot be read ({exc}): "
            f"make the zip again with `judge gradescope`"
        )
        return 1
    try:
        timeout = float(os.environ.get(TIMEOUT_ENV) or DEFAULT_TIMEOUT_S)
    except ValueError:
        timeout = DEFAULT_TIMEOUT_S
    found = find(root / "submission", tasks)
    docs = []
    for task in tasks:
        try:
            doc = grade(task, found[task["id"]], source / "bank", root, timeout, log)
        except Exception as exc:  # noqa: BLE001 - one task's failure leaves the others graded
            log(f"{task['id']}: the autograder failed: {type(exc).__name__}: {exc}")
            doc = judge_failed(task, source / "bank", "the autograder failed")
        docs.append((task, doc))
    merged = merge(docs, manifest.get("judge_version", "?"))
    write_results(results_file, merged)
    log(
        f"run_autograder: {merged['score']} of {_maximum(merged)} points, written to {results_file}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
