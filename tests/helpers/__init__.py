"""What many test modules need: where things are, the `judge` command as a learner runs
it, small files and banks made on the fly.  Import them by name (`from helpers import
ROOT, run_judge, ...`); fixtures live in the conftest.py files, never here."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Callable

import yaml

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"  # the data folders: hostile/, attacks/, ...

TASK = "cache_independent_count"  # the bank's first task, the course's step 9
KNOWN = ROOT / "tasks" / TASK / "known"
SOLUTION = (ROOT / "examples" / f"{TASK}.py").read_text()
JUDGE = [sys.executable, "-m", "judge"]


def run_judge(
    *args, cwd: Path | None = None, env: dict | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """`judge ARGS...` in a fresh process, on this checkout, with the default bank unless
    ``--bank`` is among the arguments (a JUDGE_BANK in the caller's environment is
    ignored)."""
    full_env = {k: v for k, v in os.environ.items() if k != "JUDGE_BANK"}
    full_env.update(env or {})
    full_env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        JUDGE + [str(a) for a in args],
        cwd=cwd or ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def put(path: Path, text: str = "def f(): pass\n") -> Path:
    """Write ``text`` to ``path``, making its folders."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def bank_of(
    dst: Path,
    *task_ids: str,
    edit: Callable[[dict], None] | None = None,
    references: dict[str, str] | None = None,
) -> Path:
    """A bank at ``dst`` holding only these tasks of the shipped one (so a task being
    written elsewhere cannot break a test), with ``edit(entry)`` applied to each entry of
    tasks.yaml and ``references`` (task id -> source) replacing reference solutions."""
    data = yaml.safe_load((ROOT / "tasks.yaml").read_text())
    data["tasks"] = [t for t in data["tasks"] if t["id"] in task_ids]
    for entry in data["tasks"]:
        if edit is not None:
            edit(entry)
        shutil.copytree(ROOT / "tasks" / entry["id"], dst / "tasks" / entry["id"])
        reference = (references or {}).get(entry["id"])
        put(
            dst / "reference" / f"{entry['id']}.py",
            reference
            if reference is not None
            else (ROOT / "reference" / f"{entry['id']}.py").read_text(),
        )
    (dst / "tasks.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return dst


DOUBLE_IT = """\
tasks:
  - id: double_it
    title: Double every element
    step: 1
    dims: {n: [0, 8]}
    args:
      x: {type: array, dtype: float32, shape: [n], values: [-10, 10]}
    result: {type: array, dtype: same}
"""
DOUBLE_IT_REFERENCE = "import jax\n\n@jax.jit\ndef double_it(x):\n    return 2 * x\n"


def double_it_bank(dst: Path, fields: str, files: dict[str, str] | None = None, drop=()) -> Path:
    """A bank at ``dst`` of one small task of its own, doubling a float32 vector (fast to
    grade, for tests of one check or one rule): ``fields`` is the rest of its tasks.yaml
    entry (tolerance, examples, scripts, checks) at any indentation, ``files`` more files
    of the bank by path, ``drop`` paths of the usual ones left out."""
    entry = textwrap.indent(textwrap.dedent(fields).strip("\n"), "    ")
    put(dst / "tasks.yaml", DOUBLE_IT + entry + "\n")
    usual = {
        "reference/double_it.py": DOUBLE_IT_REFERENCE,
        "tasks/double_it/statement.md": "# Double every element\n",
        "tasks/double_it/starter.py": "def double_it(x):\n    raise NotImplementedError\n",
    }
    for rel, body in {**usual, **(files or {})}.items():
        if rel not in drop:
            put(dst / rel, body)
    return dst


def notebook(*cells: tuple[str, str]) -> str:
    """A Jupyter notebook's text: ``("code", source)`` and ``("markdown", text)`` cells."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    make = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell}
    nb.cells = [make[kind](src) for kind, src in cells]
    return nbformat.writes(nb)


def put_at(doc, place, value):
    if not place:
        return value
    target = doc
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = value
    return doc


def until(condition: Callable, timeout_s: float = 120.0, what: str = "the condition", every=0.05):
    """Poll ``condition`` until it gives something true (returned), failing the test
    after ``timeout_s``: a deadline, never a fixed sleep."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"{what} did not happen within {timeout_s} s")


def python_json(code: str, timeout_s: float = 300):
    """Run ``code`` in a fresh interpreter with this checkout on its path and jax on the
    CPU, and give back the JSON its last line printed (its stderr in the failure)."""
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])
