"""`judge gradescope`: the autograder zip an instructor uploads to Gradescope.

Gradescope's autograder specification: the zip's root holds `setup.sh` (run once, as
root, while Gradescope builds the assignment's image: it installs what grading needs)
and `run_autograder` (run for every submission, in /autograder, with the learner's
files in /autograder/submission; it must leave /autograder/results/results.json).  The
zip is extracted into /autograder/source.  This one holds:

    setup.sh, run_autograder     the two scripts (judge/gradescope_files/)
    requirements.txt             the judge's dependencies, pinned to this judge's versions
    judge-src/                   a copy of the judge's own source, which setup.sh installs
    bank/                        only the tasks asked for: their tasks.yaml entries,
                                 tasks/<id>/ and reference/<id>.py
    autograder.json              the tasks in grading order and each one's file names,
                                 for judge/gradescope_autograder.py, which grades

It carries the references: it is for the instructor to upload, never for learners.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import yaml

from . import __version__
from .bank import Bank, Task, load_bank, read_yaml
from .scoring import number, task_maximum

MANIFEST = "autograder.json"
SCRIPTS = Path(__file__).resolve().parent / "gradescope_files"
PACKAGE = Path(__file__).resolve().parent
DISTRIBUTION = "jax-judge"
# extras a learner's submission may need in grading: a notebook needs nbformat and IPython
EXTRAS = ("notebooks",)
# zip entries get a fixed time, so the same bank and judge make the same zip
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


class BundleError(Exception):
    """A bundle that cannot be made; the message says why, for the instructor."""


@dataclass(frozen=True)
class Bundle:
    path: Path
    tasks: list[dict]  # the manifest's entries: id, title, files, max_score

    @property
    def max_score(self) -> float:
        return number(sum(t["max_score"] for t in self.tasks))


def file_names(task: Task) -> list[str]:
    """The names a learner's file for ``task`` may have, in the order they are looked for."""
    stems = [task.id] + ([task.entrypoint] if task.entrypoint != task.id else [])
    return [f"{stem}{suffix}" for stem in stems for suffix in (".py", ".ipynb")]


def build_bundle(bank: Bank, tasks: list[Task], out: Path) -> Bundle:
    """Write the autograder zip for ``tasks`` (of ``bank``) to ``out``, replacing it."""
    if not tasks:
        raise BundleError("name at least one task")
    out = Path(out)
    if out.is_dir():
        raise BundleError(f"--out {out} is a folder: name the zip to write (autograder.zip)")
    entries = [
        {
            "id": t.id,
            "title": t.title,
            "entrypoint": t.entrypoint,
            "files": file_names(t),
            "max_score": number(task_maximum(t, False)),
        }
        for t in tasks
    ]
    with tempfile.TemporaryDirectory(prefix="jax-judge-gradescope-") as tmp:
        stage = Path(tmp) / "autograder"
        _copy_bank(bank, [t.id for t in tasks], stage / "bank")
        _copy_judge(stage / "judge-src")
        (stage / "requirements.txt").write_text(requirements(), encoding="utf-8")
        for script in ("setup.sh", "run_autograder"):
            shutil.copyfile(SCRIPTS / script, stage / script)
        (stage / MANIFEST).write_text(
            json.dumps({"judge_version": __version__, "tasks": entries}, indent=2) + "\n",
            encoding="utf-8",
        )
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(f".{out.name}.partial")
        try:
            _zip(stage, partial)
            os.replace(partial, out)  # a zip there is whole, the old one or the new
        finally:
            partial.unlink(missing_ok=True)
    return Bundle(out, entries)


def _copy_bank(bank: Bank, task_ids: list[str], dst: Path) -> None:
    """A bank of only these tasks, parsed again once copied: what the zip holds grades."""
    data = read_yaml(bank.file)
    wanted = set(task_ids)
    # the parsed form (aliases expanded), so an entry never points at one left out
    data["tasks"] = [
        t for t in data.get("tasks") or [] if isinstance(t, dict) and t.get("id") in wanted
    ]
    dst.mkdir(parents=True)
    (dst / "tasks.yaml").write_text(
        yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    for task_id in task_ids:
        task = bank.get(task_id)
        _copy_tree(task.folder, dst / "tasks" / task_id)
        reference = dst / "reference" / f"{task_id}.py"
        reference.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copyfile(task.reference_path, reference)
        except OSError as exc:
            raise BundleError(
                f"task {task_id}: its reference {task.reference_path} cannot be "
                f"read: {exc.strerror or exc}"
            ) from None
    try:
        copied = load_bank(dst)
    except Exception as exc:  # noqa: BLE001 - whatever it is, the zip would not grade
        raise BundleError(
            f"the bank cut down to {', '.join(task_ids)} does not load: {exc}"
        ) from None
    missing = wanted - set(copied.tasks)
    if missing:
        raise BundleError(
            f"the bank cut down to {', '.join(task_ids)} lacks {', '.join(sorted(missing))}"
        )


def _copy_judge(dst: Path) -> None:
    """The judge's package as it runs here, without a bank of its own (a wheel's
    judge/_bank holds every reference: the autograder's bank is ../bank), and a
    pyproject.toml that installs it."""
    _copy_tree(PACKAGE, dst / "judge", skip=("_bank",))
    (dst / "pyproject.toml").write_text(pyproject(), encoding="utf-8")


def _copy_tree(src: Path, dst: Path, skip: tuple[str, ...] = ()) -> None:
    if not src.is_dir():
        raise BundleError(f"{src} is not a folder")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".*", *skip)
    shutil.copytree(src, dst, ignore=ignore, symlinks=False)


def _requirements() -> list[tuple[str, str]]:
    """(name, requirement) of what the judge needs, its EXTRAS included (their markers
    dropped): from the installed package's metadata, or a checkout's pyproject.toml."""
    try:
        declared = importlib.metadata.requires(DISTRIBUTION) or []
    except importlib.metadata.PackageNotFoundError:  # run from a checkout, not installed
        import tomllib

        project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]
        declared = list(project.get("dependencies", []))
        for extra in EXTRAS:
            declared += [
                f"{r}; extra == '{extra}'"
                for r in project.get("optional-dependencies", {}).get(extra, [])
            ]
    out: list[tuple[str, str]] = []
    for req in declared:
        spec, _, marker = req.partition(";")
        found = re.search(r"""extra\s*==\s*["']([^"']+)["']""", marker)
        if found and found.group(1) not in EXTRAS:
            continue
        name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec).group(1)  # type: ignore[union-attr]  # a requirement starts with its name
        rest = "" if found else marker.strip()
        if (name, spec.strip()) not in [(n, s.partition(";")[0].strip()) for n, s in out]:
            out.append((name, spec.strip() + (f"; {rest}" if rest else "")))
    return out


def requirements() -> str:
    """requirements.txt: each of the judge's dependencies at the version installed here,
    so a grading on Gradescope computes what it computes here; one not installed here
    is left to its range."""
    lines = ["# the versions `judge gradescope` ran with; setup.sh installs them first"]
    for name, spec in _requirements():
        try:
            lines.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            lines.append(spec)
    return "\n".join(lines) + "\n"


def pyproject() -> str:
    deps = ",\n".join(f"    {json.dumps(spec)}" for _, spec in _requirements())
    return f"""\
# jax-judge {__version__}, as `judge gradescope` copied it: setup.sh installs it.  No bank
# ships with it; the autograder's is ../bank.
[build-system]
requires = ["hatchling>=1.21"]
build-backend = "hatchling.build"

[project]
name = "{DISTRIBUTION}"
version = "{__version__}"
requires-python = ">=3.11"
dependencies = [
{deps},
]

[project.scripts]
judge = "judge.cli:entry"

[tool.hatch.build.targets.wheel]
packages = ["judge"]
"""


def _zip(stage: Path, out: Path) -> None:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(p for p in stage.rglob("*") if p.is_file()):
            rel = path.relative_to(stage).as_posix()
            info = zipfile.ZipInfo(rel, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = rel in ("setup.sh", "run_autograder")
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            zf.writestr(info, path.read_bytes())
