"""results.jsonl: the batch's only source of truth, append-only and crash-safe.

One line per grading: the ``judge run --format json`` object plus ``learner``,
``sha256`` (of the graded file's bytes), ``examples`` (the --examples override, or
null) and ``submitted`` (the manifest's time, or null).  A result is identified by its
key (learner, task, sha256, seed, strict, examples), so an edited file or changed
options mean "not graded yet", and a rerun grades exactly what has no line, or only a
``judge_error`` one: that verdict is the judge's fault (a reference that broke, a
machine out of memory), never the learner's, so it stands only until a later line for
the same key replaces it.  ``--force`` grades a key again on purpose; its new line
replaces the old one the same way.  So for each key the last line stands, and nothing
is ever counted twice; closing the store rewrites the file without the lines that were
replaced (a new file renamed over the old one, so a crash meanwhile leaves the old file,
whose last lines still stand).

Why it survives SIGKILL: each line is written by a single ``write`` of the whole line
ending in ``\\n`` (only ever by one thread) and fsynced before the next one, so at most
the last line can be torn, and a torn line is the only one without its ``\\n``.  Opening
the store cuts such a tail off; a line that does not parse is ignored.  A lock file
keeps two batches from writing the same folder at once.  The views beside it
(gradebook, summary, pages) are replaced whole with ``write_atomic``.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

from ..verdicts import Verdict

FILE = "results.jsonl"


class StoreBusy(Exception):
    """Another ``judge batch`` holds this output folder."""


def key_of(record: dict) -> tuple:
    return (
        record["learner"],
        record["task"],
        record["sha256"],
        record["seed"],
        bool(record.get("strict", False)),
        record.get("examples"),
    )


class ResultStore:
    def __init__(self, out: str | Path):
        self.folder = Path(out)
        self.path = self.folder / FILE
        self.results: dict[tuple, dict] = {}
        self.repaired_bytes = 0  # a torn last line cut off on open
        self.ignored_lines = 0  # lines that did not parse
        self.superseded = 0  # lines replaced by a later one for the same key
        self._replaced = 0  # lines on disk that a later line for their key replaced
        # None until open() and after close(); only written to while open
        self._fd: int = None  # type: ignore[assignment]
        self._lock: int | None = None

    def open(self) -> "ResultStore":
        self.folder.mkdir(parents=True, exist_ok=True)
        self._lock = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock)
            self._lock = None
            raise StoreBusy(f"{self.folder}: another judge batch is writing here") from None
        created = not self.path.exists()
        self._fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        if created:
            _fsync_dir(self.folder)  # the file's name is durable too
        self._load()
        return self

    def _load(self) -> None:
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):
            os.ftruncate(self._fd, end)
            os.fsync(self._fd)
            self.repaired_bytes = len(data) - end
        for line in data[:end].splitlines():
            try:
                record = json.loads(line)
                key = key_of(record)
            except (ValueError, KeyError, TypeError):
                self.ignored_lines += 1
                continue
            if key in self.results:
                self.superseded += 1
            self.results[key] = record
        self._replaced = self.superseded

    def settled(self, key: tuple) -> bool:
        """Graded for good: a result that is not a judge error."""
        record = self.results.get(key)
        return record is not None and record.get("verdict") != Verdict.JUDGE_ERROR

    def add(self, record: dict, force: bool = False) -> None:
        """Append one result durably; a key graded for good is written again only when
        ``force``d (and then the new line is the one that stands)."""
        key = key_of(record)
        if self.settled(key) and not force:
            return
        line = (json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n").encode()
        view = memoryview(line)
        while view:  # a short write is rare, but must not lose the rest
            view = view[os.write(self._fd, view) :]
        os.fsync(self._fd)
        if key in self.results:
            self._replaced += 1
        self.results[key] = record

    def close(self) -> None:
        if self._fd is not None and self._replaced:
            self._compact()
        for fd in (self._fd, self._lock):
            if fd is not None:
                os.close(fd)
        self._fd = self._lock = None  # type: ignore[assignment]  # closed: see __init__

    def _compact(self) -> None:
        """One line per key, the one that stands; fsynced before it replaces the file."""
        tmp = self.path.with_name(f".{FILE}.compact")
        text = "".join(
            json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in self.results.values()
        )
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            view = memoryview(text.encode())
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self.path)
        _fsync_dir(self.folder)
        self._replaced = 0


def write_atomic(path: Path, text: str) -> None:
    """Readers (a spreadsheet, a web page) never see half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
