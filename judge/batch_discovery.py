"""Which file is which learner's submission for which task.

Two ways to say it: a folder laid out ``SUBMISSIONS/<learner>/<task_id>.py`` (or
``.ipynb``), or a CSV manifest with the columns ``learner,task,path`` (paths relative to
the manifest; a header row is optional).  Anything that is not a gradable submission is
returned in ``skipped`` with the reason, never silently dropped and never fatal: one
stray file must not stop a class's grading.  Hidden entries (``.ipynb_checkpoints``,
``.DS_Store``) and ``__pycache__`` are not submissions and are not listed.
"""

from __future__ import annotations

import csv
import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .sources import SubmissionRefused, read_submission

SUFFIXES = (".py", ".ipynb")


class DiscoveryError(Exception):
    """The submissions cannot be read at all (missing folder, malformed manifest)."""


@dataclass(frozen=True)
class Submission:
    learner: str
    task_id: str
    path: str               # as the instructor wrote it, for reports
    source: bytes = field(repr=False)   # the exact bytes hashed, so the key matches what is graded
    refused: str = ""       # why it is not a file the judge reads (a FIFO, a link out): invalid

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.source).hexdigest()

    @property
    def suffix(self) -> str:
        return Path(self.path).suffix


@dataclass
class Found:
    submissions: list[Submission] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)    # (path, why)
    learners: set[str] = field(default_factory=set)   # everyone seen, graded or not


def discover(root: str | Path, task_ids: set[str], out: str | Path | None = None) -> Found:
    """``out``: the batch's output folder, skipped should it sit inside ``root``."""
    root = Path(root)
    if root.is_file():
        return _from_manifest(root, task_ids)
    if not root.is_dir():
        raise DiscoveryError(f"{root}: no such folder or manifest")
    found, candidates = Found(), []
    out = Path(out).resolve() if out else None
    for entry in sorted(root.iterdir()):
        if _hidden(entry) or entry.resolve() == out:
            continue
        if not entry.is_dir():
            found.skipped.append((str(entry), "not inside a learner's folder"))
            continue
        found.learners.add(entry.name)
        for item in sorted(entry.iterdir()):
            if _hidden(item):
                continue
            if item.is_dir():
                found.skipped.append((str(item), "a folder inside a learner's folder"))
            elif item.suffix not in SUFFIXES or item.stem not in task_ids:
                found.skipped.append((str(item), "matches no task (expected <task_id>.py or .ipynb)"))
            else:
                candidates.append((entry.name, item.stem, item))
    _read_all(candidates, found, root)
    return found


def _from_manifest(manifest: Path, task_ids: set[str]) -> Found:
    try:
        rows = list(csv.reader(manifest.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DiscoveryError(f"{manifest}: cannot read the manifest: {exc}") from None
    first = 1
    if rows and [c.strip().lower() for c in rows[0]] == ["learner", "task", "path"]:
        rows, first = rows[1:], 2
    found, candidates = Found(), []
    for line, row in enumerate(rows, first):
        if not any(c.strip() for c in row):
            continue
        if len(row) != 3:
            raise DiscoveryError(f"{manifest}, row {line}: expected learner,task,path; got {row}")
        learner, task_id, rel = (c.strip() for c in row)
        if not learner or learner in (".", "..") or "/" in learner or "\\" in learner:
            raise DiscoveryError(f"{manifest}, row {line}: '{learner}' cannot be a learner's name "
                                 "(it names the learner's folder in the outputs)")
        found.learners.add(learner)
        path = manifest.parent / rel
        if task_id not in task_ids:
            found.skipped.append((str(path), f"task '{task_id}' is not in the bank"))
        elif path.suffix not in SUFFIXES:
            found.skipped.append((str(path), "not a .py or .ipynb file"))
        else:
            candidates.append((learner, task_id, path))
    _read_all(candidates, found, manifest.parent)
    return found


def _read_all(candidates: list[tuple[str, str, Path]], found: Found, within: Path) -> None:
    """Read each file once; two files for one learner's task are both left out, since
    grading either would be a guess."""
    seen: dict[tuple[str, str], list[Path]] = {}
    for learner, task_id, path in candidates:
        seen.setdefault((learner, task_id), []).append(path)
    for (learner, task_id), paths in seen.items():
        if len(paths) > 1:
            names = " and ".join(str(p) for p in paths)
            found.skipped.extend((str(p), f"{learner} has two submissions for {task_id} ({names}): "
                                          "keep one") for p in paths)
            continue
        try:
            source = read_submission(paths[0], within=within)
        except SubmissionRefused as exc:   # graded as invalid_submission, saying why
            found.submissions.append(Submission(learner, task_id, str(paths[0]), b"", str(exc)))
            continue
        except OSError as exc:
            found.skipped.append((str(paths[0]), f"cannot be read: {exc.strerror or exc}"))
            continue
        found.submissions.append(Submission(learner, task_id, str(paths[0]), source))


def _hidden(path: Path) -> bool:
    return path.name.startswith(".") or path.name == "__pycache__"
