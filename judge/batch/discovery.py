"""Which file is which learner's submission for which task.

Two ways to say it: a folder laid out ``SUBMISSIONS/<learner>/<task_id>.py`` (or
``.ipynb``), or a CSV manifest with the columns ``learner,task,path`` and optionally
``submitted`` (an ISO 8601 time, what ``--deadline`` is compared with; paths relative
to the manifest; a header row is optional).  Anything that is not a gradable submission
is returned in ``skipped`` with the reason (and the closest task id for a misspelt one),
never silently dropped and never fatal: one stray file must not stop a class's grading.
Hidden entries (``.ipynb_checkpoints``, ``.DS_Store``) and ``__pycache__`` are not
submissions and are not listed.

One notebook may hold several steps of a course (``alice/week3.ipynb``): one not named
after a task is the submission of every task whose entrypoint it defines at its top
level (given ``entrypoints``), unless the learner handed in a file named after that
task, which is the one graded.  A manifest maps one file to several tasks by a row per
task, by several ids in its task cell (``bucketed_mean;col_mean``), or by ``*``: every
task whose entrypoint the notebook defines.

A class folder is written by its learners (a shared repository, a zip of their
uploads), so nothing in it is followed: it is walked through descriptors (each folder
opened once, its entries looked at with lstat, each file opened by name in its open
folder with ``O_NOFOLLOW``, read from that descriptor, and those bytes hashed and
graded), never by re-resolving a path.  A symbolic link anywhere in it is the learner's
``invalid_submission``, since ``A/task.py -> ../B/task.py`` (which git keeps) would hand
in B's work as A's: a linked file is its own task's, a learner folder that is a link
is every task's.  The message names the file a link points at only when the link's
own text says it is inside the class folder; the link is never read through.  The
same holds for each path of a manifest, every one of its parts after the manifest's
own folder.

A hard link (one file, two names) cannot say which name came first, so refusing it
would fail the learner whose file was linked to as well: both are graded, and since
their content is the same, the class report lists them as identical submissions (as
the same file on disk) for the instructor to look at.  Two manifest rows of two
learners naming one path are graded and listed alike: the instructor's manifest says
they handed in that file (a group's submission, say).
"""

from __future__ import annotations

import csv
import difflib
import errno
import hashlib
import os
import posixpath
import stat
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path

from ..sources import IsALink, SubmissionRefused, read_at

SUFFIXES = (".py", ".ipynb")
HEADER = ["learner", "task", "path"]
TIME_COLUMN = "submitted"


class DiscoveryError(Exception):
    """The submissions cannot be read at all (missing folder, malformed manifest)."""


@dataclass(frozen=True)
class Submission:
    learner: str
    task_id: str
    path: str  # as the instructor wrote it, for reports
    source: bytes = field(repr=False)  # the exact bytes hashed, so the key matches what is graded
    submitted: datetime | None = None  # when the learner handed it in (a manifest's column)
    refused: str = ""  # why it is not a file the judge reads (a FIFO, a link): invalid
    # (st_dev, st_ino) of the file read: two learners' names for one file (a hard link)
    file: tuple[int, int] | None = field(default=None, compare=False, repr=False)

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.source).hexdigest()

    @property
    def suffix(self) -> str:
        return Path(self.path).suffix


@dataclass(frozen=True)
class Skipped:
    """A file that is not graded, and why; learner and task where they are known, so a
    missing grading can say why it is missing; ``meant``: the task a misspelt file's
    name is closest to (``bucketd_mean.py``), whose missing grading it explains too."""

    path: str
    why: str
    learner: str | None = None
    task_id: str | None = None
    meant: str | None = None


@dataclass
class Found:
    submissions: list[Submission] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    learners: set[str] = field(default_factory=set)  # everyone seen, graded or not

    def why_missing(self, learner: str, task_id: str) -> str:
        """Why ``learner`` has no grading for ``task_id``, in words for them: the same
        words the instructor reads (a misspelt file's did-you-mean too)."""
        for s in self.skipped:
            if s.learner == learner and s.task_id == task_id:
                return f"{s.path}: {s.why}"
        for s in self.skipped:
            if s.learner == learner and s.task_id is None and s.meant == task_id:
                # the learner's own file as they named it, not the instructor's path
                return (
                    f"no submission for {task_id} was found: {learner}/{Path(s.path).name} {s.why}"
                )
        return f"no submission for {task_id} was found (expected {learner}/{task_id}.py or .ipynb)"


def closest_task(name: str, task_ids: set[str]) -> str:
    """ " (did you mean cache_independent_count?)" for a misspelt task id, or ""."""
    close = nearest_task(name, task_ids)
    return f" (did you mean {close}?)" if close else ""


def nearest_task(name: str, task_ids) -> str | None:
    close = difflib.get_close_matches(name, sorted(task_ids), n=1, cutoff=0.6)
    return close[0] if close else None


def notebook_tasks(source: bytes, entrypoints: dict[str, str]) -> list[str]:
    """The tasks whose entrypoint a notebook's bytes define at its top level (none for a
    notebook that does not read: graded nowhere, listed as matching no task)."""
    from ..notebooks import NotebookError, defined_names, notebook_from_bytes

    try:
        names = defined_names(notebook_from_bytes(source).text)
    except (NotebookError, ImportError):
        return []
    return sorted(t for t, entry in entrypoints.items() if entry in names)


def discover(
    root: str | Path,
    task_ids: set[str],
    out: str | Path | None = None,
    entrypoints: dict[str, str] | None = None,
) -> Found:
    """``out``: the batch's output folder, skipped should it sit inside ``root``;
    ``entrypoints``: task id -> its function's name, for notebooks holding several
    tasks (without it, only a file named after its task is one)."""
    root = Path(root)
    entrypoints = {t: e for t, e in (entrypoints or {}).items() if t in task_ids}
    if root.is_file():
        return _from_manifest(root, task_ids, entrypoints)
    try:
        root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        raise DiscoveryError(f"{root}: no such folder or manifest") from None
    except OSError as exc:
        raise DiscoveryError(f"{root}: cannot read the folder: {exc.strerror or exc}") from None
    found, candidates, linked = Found(), [], []
    try:
        skip = _output_folder(root, out)
        for name in sorted(os.listdir(root_fd)):
            entry = root / name
            if _hidden(name):
                continue
            try:
                st = os.stat(name, dir_fd=root_fd, follow_symlinks=False)
            except OSError:  # gone since the listing: nothing to grade
                continue
            if skip(name, st):
                continue
            if stat.S_ISLNK(st.st_mode):
                found.learners.add(name)
                linked.append((name, entry, _readlink(name, root_fd)))
            elif not stat.S_ISDIR(st.st_mode):
                found.skipped.append(Skipped(str(entry), "not inside a learner's folder"))
            else:
                found.learners.add(name)
                candidates += _learner_folder(
                    name, entry, root_fd, task_ids, found, linked, entrypoints
                )
    finally:
        os.close(root_fd)
    handed_in = sorted({c.task_id for c in candidates})  # the class's columns
    for learner, entry, target in linked:
        candidates += _linked_folder(learner, entry, target, handed_in, found)
    _settle(candidates, found)
    return found


@dataclass
class _Read:
    """One file as discovery found it: its bytes, or why it is refused or unreadable."""

    learner: str
    task_id: str
    path: Path
    submitted: datetime | None = None
    source: bytes = b""
    file: tuple[int, int] | None = None
    refused: str = ""
    unreadable: str = ""


def _output_folder(root: Path, out):
    """Is an entry of ``root`` the batch's output folder?  By its name as given, or by
    its identity: never by resolving an entry's path (an entry may be a link)."""
    if not out:
        return lambda name, st: False
    where = os.path.abspath(out)
    try:
        st = os.stat(out)
        ident = (st.st_dev, st.st_ino)
    except OSError:
        ident = None
    return lambda name, st: os.path.abspath(root / name) == where or (st.st_dev, st.st_ino) == ident


def _learner_folder(
    learner: str,
    entry: Path,
    root_fd: int,
    task_ids: set[str],
    found: Found,
    linked: list,
    entrypoints: dict[str, str],
) -> list[_Read]:
    try:
        fd = os.open(
            learner, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=root_fd
        )
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):  # made a link since the lstat
            linked.append((learner, entry, _readlink(learner, root_fd)))
            return []
        found.skipped.append(Skipped(str(entry), f"cannot be read: {exc.strerror or exc}", learner))
        return []
    reads, notebooks = [], []
    try:
        for name in sorted(os.listdir(fd)):
            item = entry / name
            if _hidden(name):
                continue
            stem, suffix = posixpath.splitext(name)
            try:
                mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
            except OSError:  # gone since the listing: nothing to grade
                continue
            if stat.S_ISDIR(mode):
                found.skipped.append(
                    Skipped(str(item), "a folder inside a learner's folder", learner)
                )
            elif suffix == ".ipynb" and stem not in task_ids and entrypoints:
                notebooks.append(
                    _read(_Read(learner, "", item), fd, name, f"{learner}/{name}", learner)
                )
            elif suffix not in SUFFIXES or stem not in task_ids:
                found.skipped.append(_no_task(item, stem, task_ids, learner))
            else:
                reads.append(
                    _read(_Read(learner, stem, item), fd, name, f"{learner}/{name}", learner)
                )
    finally:
        os.close(fd)
    named = {r.task_id for r in reads}
    for nb in notebooks:
        answers = (
            [t for t in notebook_tasks(nb.source, entrypoints) if t not in named]
            if not (nb.refused or nb.unreadable)
            else []
        )
        if not answers:
            stem = posixpath.splitext(nb.path.name)[0]
            why = nb.refused or nb.unreadable
            found.skipped.append(
                Skipped(str(nb.path), why, learner)
                if why
                else _no_task(nb.path, stem, task_ids, learner, notebook=True)
            )
        reads += [_Read(learner, t, nb.path, nb.submitted, nb.source, nb.file) for t in answers]
    return reads


def _no_task(
    item: Path, stem: str, task_ids: set[str], learner: str, notebook: bool = False
) -> Skipped:
    meant = nearest_task(stem, task_ids)
    expected = (
        "expected <task_id>.py or .ipynb, or a notebook defining a task's function"
        if notebook
        else "expected <task_id>.py or .ipynb"
    )
    return Skipped(
        str(item),
        f"matches no task ({expected})" + (f" (did you mean {meant}?)" if meant else ""),
        learner,
        meant=meant,
    )


def _linked_folder(
    learner: str, entry: Path, target: str, tasks: list[str], found: Found
) -> list[_Read]:
    """A learner folder that is a link: what it holds is not read, so each task the
    class handed in is refused for that learner (the gradebook's columns, not the whole
    bank's); with no such task, it is listed as not graded."""
    why = (
        f"{learner} is a symbolic link{_link_target(target, '')}, not a folder of "
        f"{learner}'s own: {_NO_LINKS} files; hand in the files themselves"
    )
    if not tasks:
        found.skipped.append(Skipped(str(entry), why, learner))
    return [_Read(learner, task_id, entry, refused=why) for task_id in tasks]


_NO_LINKS = (
    "the judge grades no link in a class folder, since it could be a link to another learner's"
)


def _read(item: _Read, dir_fd: int, name: str, shown: str, where: str) -> _Read:
    """Read ``name`` of the folder open as ``dir_fd`` into ``item``; ``where``: that
    folder's path inside the class folder (for the message about a link)."""
    try:
        item.source, st = read_at(dir_fd, name, shown)
        item.file = (st.st_dev, st.st_ino)
    except IsALink as exc:
        item.refused = (
            f"{shown} is a symbolic link{_link_target(exc.target, where)}, not a "
            f"file: {_NO_LINKS} file; hand in the file itself"
        )
    except SubmissionRefused as exc:  # graded as invalid_submission, saying why
        item.refused = str(exc)
    except OSError as exc:
        item.unreadable = f"cannot be read: {exc.strerror or exc}"
    return item


def _readlink(name: str, dir_fd: int) -> str:
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:
        return ""


def _link_target(text: str, where: str) -> str:
    """ " to bob/task.py" where a link's own text (never followed) names a path inside
    the class folder; " to a file outside the class folder" otherwise.  ``where``: the
    link's folder, relative to the class folder."""
    if not text or posixpath.isabs(text):
        return " to a file outside the class folder" if text else ""
    path = posixpath.normpath(posixpath.join(where, text))
    if path == "." or path == ".." or path.startswith("../"):
        return " to a file outside the class folder"
    return f" to {path}"


def _from_manifest(manifest: Path, task_ids: set[str], entrypoints: dict[str, str]) -> Found:
    try:
        rows = list(csv.reader(manifest.read_text(encoding="utf-8-sig").splitlines()))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DiscoveryError(f"{manifest}: cannot read the manifest: {exc}") from None
    first = 1
    if rows and [c.strip().lower() for c in rows[0]] in (HEADER, HEADER + [TIME_COLUMN]):
        rows, first = rows[1:], 2
    found, candidates = Found(), []
    try:
        base_fd = os.open(manifest.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise DiscoveryError(
            f"{manifest.parent}: cannot read the folder: {exc.strerror or exc}"
        ) from None
    try:
        for line, row in enumerate(rows, first):
            if not any(c.strip() for c in row):
                continue
            if len(row) not in (3, 4):
                raise DiscoveryError(
                    f"{manifest}, row {line}: expected learner,task,path "
                    f"(and optionally {TIME_COLUMN}); got {row}"
                )
            learner, task_id, rel, *when = (c.strip() for c in row)
            if not learner or learner in (".", "..") or "/" in learner or "\\" in learner:
                raise DiscoveryError(
                    f"{manifest}, row {line}: '{learner}' cannot be a learner's "
                    "name (it names the learner's folder in the outputs)"
                )
            submitted = _time(when[0], f"{manifest}, row {line}") if when and when[0] else None
            found.learners.add(learner)
            path = manifest.parent / rel
            ids = [t for t in task_id.replace(";", " ").split() if t]
            if ids == ["*"]:  # every task the notebook defines
                candidates += _every_task(
                    _read_path(_Read(learner, "*", path, submitted), base_fd, rel),
                    entrypoints,
                    found,
                )
                continue
            for one in ids or [task_id]:
                if one not in task_ids:
                    found.skipped.append(
                        Skipped(
                            str(path),
                            f"task '{one}' is not in the bank" + closest_task(one, task_ids),
                            learner,
                            meant=nearest_task(one, task_ids),
                        )
                    )
                elif path.suffix not in SUFFIXES:
                    found.skipped.append(
                        Skipped(str(path), "not a .py or .ipynb file", learner, one)
                    )
                else:
                    candidates.append(
                        _read_path(_Read(learner, one, path, submitted), base_fd, rel)
                    )
    finally:
        os.close(base_fd)
    _settle(candidates, found)
    return found


def _every_task(item: _Read, entrypoints: dict[str, str], found: Found) -> list[_Read]:
    """A manifest's ``*`` row: the notebook is each task's whose function it defines."""
    why = item.refused or item.unreadable
    if not why and item.path.suffix != ".ipynb":
        why = "task '*' (every task the file defines) needs a notebook (.ipynb)"
    answers = [] if why else notebook_tasks(item.source, entrypoints)
    if not answers:
        found.skipped.append(
            Skipped(
                str(item.path),
                why
                or "defines no task's function (task '*': every task whose function it defines)",
                item.learner,
            )
        )
    return [
        _Read(item.learner, t, item.path, item.submitted, item.source, item.file) for t in answers
    ]


def _read_path(item: _Read, base_fd: int, rel: str) -> _Read:
    """A manifest's path, one part at a time from the manifest's folder (from / for an
    absolute one), none of them followed if it is a link."""
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if not parts:
        item.unreadable = "cannot be read: not a file"
        return item
    fd = (
        os.open("/", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        if rel.startswith("/")
        else os.dup(base_fd)
    )
    where = "/" if rel.startswith("/") else ""
    try:
        for part in parts[:-1]:
            try:
                st = os.stat(part, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISLNK(st.st_mode):
                    shown = posixpath.join(where, part)
                    item.refused = (
                        f"{shown} (in {rel}) is a symbolic link"
                        f"{_link_target(_readlink(part, fd), where)}, not a folder: "
                        f"{_NO_LINKS} file; hand in the file itself"
                    )
                    return item
                step = os.open(
                    part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd
                )
            except OSError as exc:
                item.unreadable = f"cannot be read: {exc.strerror or exc}"
                return item
            os.close(fd)
            fd, where = step, posixpath.join(where, part)
        return _read(item, fd, parts[-1], rel, where)
    finally:
        os.close(fd)


def parse_time(text: str) -> datetime:
    """An ISO 8601 time (``2026-11-20T23:59``, ``...Z``, ``...+01:00``); one without a
    zone is in this machine's local time."""
    when = datetime.fromisoformat(text.strip())
    return when if when.tzinfo else when.astimezone()


def _time(text: str, where: str) -> datetime:
    try:
        return parse_time(text)
    except ValueError:
        raise DiscoveryError(
            f"{where}: '{text}' is not a time (ISO 8601: 2026-11-20T23:59 "
            "or 2026-11-20T23:59:00+01:00)"
        ) from None


def _settle(candidates: list[_Read], found: Found) -> None:
    """Two files for one learner's task are both left out, since grading either would
    be a guess; each other one is a submission (refused ones too: invalid_submission,
    saying why), or listed as unreadable."""
    seen: dict[tuple[str, str], list[_Read]] = {}
    for item in candidates:
        seen.setdefault((item.learner, item.task_id), []).append(item)
    for (learner, task_id), items in seen.items():
        if len(items) > 1:
            names = " and ".join(str(i.path) for i in items)
            found.skipped.extend(
                Skipped(
                    str(i.path),
                    f"{learner} has two submissions for {task_id} ({names}): keep one",
                    learner,
                    task_id,
                )
                for i in items
            )
            continue
        item = items[0]
        if item.unreadable:
            found.skipped.append(Skipped(str(item.path), item.unreadable, learner, task_id))
            continue
        found.submissions.append(
            Submission(
                learner,
                task_id,
                str(item.path),
                item.source,
                item.submitted,
                item.refused,
                item.file,
            )
        )


def _hidden(name: str) -> bool:
    return name.startswith(".") or name == "__pycache__"
