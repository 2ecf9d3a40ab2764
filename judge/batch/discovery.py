"""Which file is which learner's submission for which task.

Two ways to say it: a folder laid out ``SUBMISSIONS/<learner>/<task_id>.py`` (or
``.ipynb``), or a CSV manifest with the columns ``learner,task,path`` and optionally
``submitted`` (an ISO 8601 time, what ``--deadline`` is compared with; paths relative
to the manifest; a header row is optional).  Anything that is not a gradable submission
is returned in ``skipped`` with the reason (and the closest task id for a misspelt one),
never silently dropped and never fatal: one stray file must not stop a class's grading.
Hidden entries (``.ipynb_checkpoints``, ``.DS_Store``) and ``__pycache__`` are not
submissions and are not listed.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path

from ..sources import SubmissionRefused, read_submission

SUFFIXES = (".py", ".ipynb")
HEADER = ["learner", "task", "path"]
TIME_COLUMN = "submitted"


class DiscoveryError(Exception):
    """The submissions cannot be read at all (missing folder, malformed manifest)."""


@dataclass(frozen=True)
class Submission:
    learner: str
    task_id: str
    path: str               # as the instructor wrote it, for reports
    source: bytes = field(repr=False)   # the exact bytes hashed, so the key matches what is graded
    submitted: datetime | None = None   # when the learner handed it in (a manifest's column)
    refused: str = ""       # why it is not a file the judge reads (a FIFO, a link out): invalid

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.source).hexdigest()

    @property
    def suffix(self) -> str:
        return Path(self.path).suffix


@dataclass(frozen=True)
class Skipped:
    """A file that is not graded, and why; learner and task where they are known, so a
    missing grading can say why it is missing."""
    path: str
    why: str
    learner: str | None = None
    task_id: str | None = None


@dataclass
class Found:
    submissions: list[Submission] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    learners: set[str] = field(default_factory=set)   # everyone seen, graded or not

    def why_missing(self, learner: str, task_id: str) -> str:
        """Why ``learner`` has no grading for ``task_id``, in words for them."""
        for s in self.skipped:
            if s.learner == learner and s.task_id == task_id:
                return f"{s.path}: {s.why}"
        return f"no submission for {task_id} was found (expected {learner}/{task_id}.py or .ipynb)"


def closest_task(name: str, task_ids: set[str]) -> str:
    """ " (did you mean cache_independent_count?)" for a misspelt task id, or "". """
    close = difflib.get_close_matches(name, sorted(task_ids), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


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
            found.skipped.append(Skipped(str(entry), "not inside a learner's folder"))
            continue
        found.learners.add(entry.name)
        for item in sorted(entry.iterdir()):
            if _hidden(item):
                continue
            if item.is_dir():
                found.skipped.append(Skipped(str(item), "a folder inside a learner's folder",
                                             entry.name))
            elif item.suffix not in SUFFIXES or item.stem not in task_ids:
                found.skipped.append(Skipped(
                    str(item), "matches no task (expected <task_id>.py or .ipynb)"
                    + closest_task(item.stem, task_ids), entry.name))
            else:
                candidates.append((entry.name, item.stem, item, None))
    _read_all(candidates, found, root)
    return found


def _from_manifest(manifest: Path, task_ids: set[str]) -> Found:
    try:
        rows = list(csv.reader(manifest.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DiscoveryError(f"{manifest}: cannot read the manifest: {exc}") from None
    first = 1
    if rows and [c.strip().lower() for c in rows[0]] in (HEADER, HEADER + [TIME_COLUMN]):
        rows, first = rows[1:], 2
    found, candidates = Found(), []
    for line, row in enumerate(rows, first):
        if not any(c.strip() for c in row):
            continue
        if len(row) not in (3, 4):
            raise DiscoveryError(f"{manifest}, row {line}: expected learner,task,path "
                                 f"(and optionally {TIME_COLUMN}); got {row}")
        learner, task_id, rel, *when = (c.strip() for c in row)
        if not learner or learner in (".", "..") or "/" in learner or "\\" in learner:
            raise DiscoveryError(f"{manifest}, row {line}: '{learner}' cannot be a learner's name "
                                 "(it names the learner's folder in the outputs)")
        submitted = _time(when[0], f"{manifest}, row {line}") if when and when[0] else None
        found.learners.add(learner)
        path = manifest.parent / rel
        if task_id not in task_ids:
            found.skipped.append(Skipped(str(path), f"task '{task_id}' is not in the bank"
                                         + closest_task(task_id, task_ids), learner))
        elif path.suffix not in SUFFIXES:
            found.skipped.append(Skipped(str(path), "not a .py or .ipynb file", learner, task_id))
        else:
            candidates.append((learner, task_id, path, submitted))
    _read_all(candidates, found, manifest.parent)
    return found


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (``2026-11-20T23:59``, ``...Z``, ``...+01:00``); one without a
    zone is in this machine's local time."""
    when = datetime.fromisoformat(text.strip())
    return when if when.tzinfo else when.astimezone()


def _time(text: str, where: str) -> datetime:
    try:
        return parse_time(text)
    except ValueError:
        raise DiscoveryError(f"{where}: '{text}' is not a time (ISO 8601: 2026-11-20T23:59 "
                             "or 2026-11-20T23:59:00+01:00)") from None


def _read_all(candidates: list[tuple[str, str, Path, datetime | None]], found: Found,
              within: Path) -> None:
    """Read each file once; two files for one learner's task are both left out, since
    grading either would be a guess.  Only regular files in the class folder are read
    (a link may not point out of ``within``)."""
    seen: dict[tuple[str, str], list[tuple[Path, datetime | None]]] = {}
    for learner, task_id, path, submitted in candidates:
        seen.setdefault((learner, task_id), []).append((path, submitted))
    for (learner, task_id), entries in seen.items():
        if len(entries) > 1:
            names = " and ".join(str(p) for p, _ in entries)
            found.skipped.extend(Skipped(str(p), f"{learner} has two submissions for {task_id} "
                                                 f"({names}): keep one", learner, task_id)
                                 for p, _ in entries)
            continue
        path, submitted = entries[0]
        try:
            source = read_submission(path, within=within)
        except SubmissionRefused as exc:   # graded as invalid_submission, saying why
            found.submissions.append(Submission(learner, task_id, str(path), b"", submitted,
                                                str(exc)))
            continue
        except OSError as exc:
            found.skipped.append(Skipped(str(path), f"cannot be read: {exc.strerror or exc}",
                                         learner, task_id))
            continue
        found.submissions.append(Submission(learner, task_id, str(path), source, submitted))


def _hidden(path: Path) -> bool:
    return path.name.startswith(".") or path.name == "__pycache__"
