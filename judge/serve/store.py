"""The service's state: one SQLite file, the only source of truth across restarts.

A submission is committed (``synchronous=FULL``) before its ``202`` is sent.  Its life is
``queued -> running -> done``; a grading's report is written in the same transaction
that marks it done, so a report is recorded once or not at all.  A service killed while
grading leaves rows ``running``: opening the store puts them back in the queue (their
grading never reached the file), and ``attempts`` counts how often one was started.

The same task, source, seed and options answer from the store (``key``), unless the
stored report is a ``judge_error``: that is the judge's fault, never the learner's, so it
stands only until the next submission of the same content is graded again.

Callbacks have their own rows, so a report owed to a site is still owed after a restart.

A submission may name its ``learner`` (the course site's opaque id): the learner's
history, the class view and the gradebook are queries over these rows, so they survive
a restart (and SIGKILL) as the reports do.  A state file from before the column is
given it when opened (its submissions have no learner).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..verdicts import Verdict

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,   -- queue order
    id TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL,                       -- content key: task, source, seed, options
    task TEXT NOT NULL,
    seed INTEGER NOT NULL,
    strict INTEGER NOT NULL,
    filename TEXT NOT NULL,                  -- submission.py or submission.ipynb
    source BLOB NOT NULL,
    client TEXT NOT NULL,                    -- the token's name, or 'loopback'
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    created_at REAL NOT NULL,
    started_at REAL,
    finished_at REAL,
    attempts INTEGER NOT NULL DEFAULT 0,
    verdict TEXT,
    report TEXT,
    learner TEXT                             -- the course site's id, or NULL
);
CREATE INDEX IF NOT EXISTS submissions_by_key ON submissions (key);
CREATE INDEX IF NOT EXISTS submissions_by_state ON submissions (state, seq);
CREATE TABLE IF NOT EXISTS callbacks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    submission TEXT NOT NULL REFERENCES submissions (id),
    url TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at REAL NOT NULL DEFAULT 0,
    last_error TEXT
);
CREATE INDEX IF NOT EXISTS callbacks_due ON callbacks (state, next_at);
"""


class StoreError(Exception):
    """The state file cannot be used (not SQLite, another version, unwritable)."""


@dataclass(frozen=True)
class Job:
    """What a grading needs of one submission."""

    id: str
    task: str
    seed: int
    strict: bool
    filename: str
    source: bytes
    attempts: int


@dataclass(frozen=True)
class Added:
    id: str
    state: str
    deduplicated: bool


@dataclass(frozen=True)
class Callback:
    id: int
    submission: str
    url: str
    attempts: int


class Store:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        # None only before open() and after close(), where using it fails as it always has
        self._db: sqlite3.Connection = None  # type: ignore[assignment]
        self.requeued = 0  # rows found running on open: a grading cut off by a crash

    def open(self) -> "Store":
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=30
            )
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")  # committed means on disk
            db.executescript(SCHEMA)
            columns = {r[1] for r in db.execute("PRAGMA table_info(submissions)")}
            if "learner" not in columns:  # a state file written before learners
                db.execute("ALTER TABLE submissions ADD COLUMN learner TEXT")
            db.execute(
                "CREATE INDEX IF NOT EXISTS submissions_by_learner ON submissions (learner, seq)"
            )
            with _transaction(db):
                self.requeued = db.execute(
                    "UPDATE submissions SET state='queued', started_at=NULL WHERE state='running'"
                ).rowcount
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(
                f"{self.path}: cannot be used as the service's state file: {exc}"
            ) from None
        self._db = db
        return self

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None  # type: ignore[assignment]  # closed: see __init__

    # ------------------------------------------------------------ submissions
    def add(
        self,
        *,
        key: str,
        task: str,
        seed: int,
        strict: bool,
        filename: str,
        source: bytes,
        client: str,
        callback_url: str | None,
        learner: str | None = None,
        create: bool = True,
    ) -> Added | None:
        """The stored submission with the same key, or a new one (None if ``create`` is
        false); either way its callback (if any) is owed from now on.  Durable when this
        returns."""
        now = time.time()
        with self._lock, _transaction(self._db) as db:
            row = db.execute(
                "SELECT id, state FROM submissions WHERE key=? AND "
                "(state != 'done' OR verdict != ?) ORDER BY seq DESC LIMIT 1",
                (key, Verdict.JUDGE_ERROR.value),
            ).fetchone()
            if row is not None:
                added = Added(row[0], row[1], True)
            elif not create:
                return None
            else:
                added = Added(uuid.uuid4().hex, "queued", False)
                db.execute(
                    "INSERT INTO submissions (id, key, task, seed, strict, filename, source, "
                    "client, state, created_at, learner) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)",
                    (
                        added.id,
                        key,
                        task,
                        seed,
                        int(strict),
                        filename,
                        source,
                        client,
                        now,
                        learner,
                    ),
                )
            if callback_url:
                db.execute(
                    "INSERT INTO callbacks (submission, url, state, next_at) "
                    "VALUES (?, ?, 'pending', ?)",
                    (added.id, callback_url, now),
                )
        return added

    def queued_ids(self) -> list[str]:
        with self._lock:
            return [
                r[0]
                for r in self._db.execute(
                    "SELECT id FROM submissions WHERE state='queued' ORDER BY seq"
                )
            ]

    def queued(self) -> list[tuple[str, str]]:
        """(id, client) of every waiting submission, in the order they came."""
        with self._lock:
            return [
                (r[0], r[1])
                for r in self._db.execute(
                    "SELECT id, client FROM submissions WHERE state='queued' ORDER BY seq"
                )
            ]

    def start(self, sub_id: str) -> Job | None:
        """queued -> running; None when it is not queued (already graded)."""
        with self._lock, _transaction(self._db) as db:
            row = db.execute(
                "SELECT id, task, seed, strict, filename, source, attempts "
                "FROM submissions WHERE id=? AND state='queued'",
                (sub_id,),
            ).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE submissions SET state='running', started_at=?, "
                "attempts=attempts+1 WHERE id=?",
                (time.time(), sub_id),
            )
        return Job(row[0], row[1], row[2], bool(row[3]), row[4], bytes(row[5]), row[6] + 1)

    def finish(self, sub_id: str, report: dict) -> None:
        """running -> done, with its report: written once."""
        text = json.dumps(report, ensure_ascii=False, allow_nan=False)
        with self._lock, _transaction(self._db) as db:
            db.execute(
                "UPDATE submissions SET state='done', finished_at=?, verdict=?, report=? "
                "WHERE id=? AND state='running'",
                (time.time(), report["verdict"], text, sub_id),
            )

    def get(self, sub_id: str) -> dict | None:
        """id, task, state, created_at and, when done, the report (its JSON text)."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, task, state, created_at, started_at, finished_at, report, seq "
                "FROM submissions WHERE id=?",
                (sub_id,),
            ).fetchone()
        if row is None:
            return None
        return dict(
            zip(
                ("id", "task", "state", "created_at", "started_at", "finished_at", "report", "seq"),
                row,
            )
        )

    def counts(self) -> dict[str, int]:
        with self._lock:
            rows = self._db.execute("SELECT state, COUNT(*) FROM submissions GROUP BY state")
            found = dict(rows.fetchall())
        return {s: found.get(s, 0) for s in ("queued", "running", "done")}

    # ------------------------------------------------------------ learners
    def history(self, learner: str, limit: int) -> list[dict]:
        """The learner's submissions, newest first (the report's JSON text when done)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, task, state, created_at, finished_at, verdict, report "
                "FROM submissions WHERE learner=? ORDER BY seq DESC LIMIT ?",
                (learner, limit),
            ).fetchall()
        return [
            dict(zip(("id", "task", "state", "created_at", "finished_at", "verdict", "report"), r))
            for r in rows
        ]

    def class_rows(self) -> list[dict]:
        """Every submission that names a learner, oldest first: what the class view and
        the gradebook are built from (the source for its sha256 and code fingerprint)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, learner, task, state, created_at, filename, source, report "
                "FROM submissions WHERE learner IS NOT NULL ORDER BY seq"
            ).fetchall()
        return [
            dict(
                zip(
                    (
                        "id",
                        "learner",
                        "task",
                        "state",
                        "created_at",
                        "filename",
                        "source",
                        "report",
                    ),
                    r,
                )
            )
            for r in rows
        ]

    # ------------------------------------------------------------ callbacks
    def callbacks_due(self, now: float, exclude: set[int], limit: int = 32) -> list[Callback]:
        """Pending callbacks of finished submissions whose next try is due."""
        with self._lock:
            rows = self._db.execute(
                "SELECT c.id, c.submission, c.url, c.attempts FROM callbacks c "
                "JOIN submissions s ON s.id = c.submission "
                "WHERE c.state='pending' AND c.next_at <= ? AND s.state='done' "
                "ORDER BY c.next_at LIMIT ?",
                (now, limit + len(exclude)),
            ).fetchall()
        return [Callback(*r) for r in rows if r[0] not in exclude][:limit]

    def next_callback_at(self) -> float | None:
        with self._lock:
            row = self._db.execute(
                "SELECT MIN(c.next_at) FROM callbacks c JOIN submissions s "
                "ON s.id = c.submission WHERE c.state='pending' AND s.state='done'"
            ).fetchone()
        return row[0]

    def callback_tried(
        self, cb_id: int, *, delivered: bool, error: str = "", retry_at: float | None = None
    ) -> None:
        """One try done: delivered, retried at ``retry_at``, or given up (neither)."""
        state = "delivered" if delivered else ("pending" if retry_at is not None else "failed")
        with self._lock, _transaction(self._db) as db:
            db.execute(
                "UPDATE callbacks SET state=?, attempts=attempts+1, next_at=?, "
                "last_error=? WHERE id=?",
                (state, retry_at or 0, error[:500] or None, cb_id),
            )

    def callback_states(self, sub_id: str) -> list[dict]:
        with self._lock:
            rows = self._db.execute(
                "SELECT url, state, attempts, last_error FROM callbacks "
                "WHERE submission=? ORDER BY id",
                (sub_id,),
            ).fetchall()
        return [dict(zip(("url", "state", "attempts", "last_error"), r)) for r in rows]


class _transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an exception."""

    def __init__(self, db: sqlite3.Connection):
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, exc_type, exc, tb) -> None:
        self.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
