"""The service as one object: the store, the queue, the backend, the callbacks, the
metrics and who may call, started and stopped together.  The HTTP layer (``app``) only
translates requests into calls of this object and its answers into responses."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from .. import __version__
from ..bank import Bank, UnknownTask
from .access import Access, Client, RateLimiter
from .callbacks import Callbacks
from .doors import Doors, Refusal, parse_json
from .learners import BadLearner, learner_id
from .metrics import Metrics
from .queue import GradingQueue
from .store import Added, Store

MAX_SOURCE_BYTES = 512 * 1024
SEED_RANGE = (0, 2**32 - 1)
MAX_TASK_ID_CHARS = 200


class Refused(Exception):
    """A request that cannot be served, with its HTTP status and the words for it."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        retry_after: int | None = None,
        extra: dict | None = None,
    ):
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after
        self.extra = extra or {}


@dataclass(frozen=True)
class Submission:
    """A POST body, checked."""

    task: str
    filename: str
    source: bytes
    seed: int
    strict: bool
    callback_url: str | None
    learner: str | None = None


NOTEBOOK_MODULES = ("nbformat", "IPython.core.inputtransformer2")


def notebook_support() -> str | None:
    """Why this service cannot grade a notebook (a module the serve extra installs is
    missing), or None.  Imported, not only looked up: a module that is there but broken
    cannot grade either."""
    import importlib

    for name in NOTEBOOK_MODULES:
        try:
            importlib.import_module(name)
        except Exception as exc:  # ImportError, or a broken install raising anything
            return (
                f"{name.split('.')[0]} cannot be imported ({type(exc).__name__}: "
                f"{str(exc)[:200]}); pip install 'jax-judge[serve]' installs it"
            )
    return None


class Service:
    def __init__(
        self,
        bank: Bank,
        backend,
        *,
        state: str | Path,
        workers: int,
        queue_limit: int,
        access: Access,
        doors: Doors | None = None,
        attempt: str = "best",
        notebooks_missing: str | None = None,
    ):
        self.bank, self.backend, self.access = bank, backend, access
        self.attempt = attempt  # the gradebook's cell: best or last attempt
        self.notebooks_missing = notebooks_missing  # why notebooks are refused, or None
        self.doors = doors or Doors()
        self.store = Store(state)
        self.limiter = RateLimiter()
        self.queue = GradingQueue(
            self.store,
            backend,
            workers=workers,
            limit=queue_limit,
            callers=len(access.tokens or ()) or 1,
            on_change=self._changed,
        )
        self.metrics = Metrics(self.queue, backend)
        self.callbacks = Callbacks(
            self.store,
            on_result=lambda ok: self.metrics.callbacks.labels(
                "delivered" if ok else "failed"
            ).inc(),
            targets=self.doors.callbacks,
        )
        self.listeners: list = []  # called (id, state) from the grading threads
        self._fingerprints = {t: _fingerprint(bank, t) for t in bank.tasks}

    def start(self) -> None:
        from ..checks import warm_up_for_threads

        warm_up_for_threads()  # in the calling (main) thread, before any grading thread
        self.store.open()
        self.backend.start()
        self.queue.start()
        self.callbacks.start()

    def close(self) -> None:
        from ..checks.property import remove_hypothesis_home

        self.queue.close()
        self.callbacks.close()
        self.backend.close()
        self.store.close()
        remove_hypothesis_home()  # a stop by signal never reaches atexit

    # ------------------------------------------------------------ submissions
    def parse(self, body) -> Submission:
        if not isinstance(body, dict):
            raise Refused(400, 'the body must be a JSON object: {"task": ..., "source": ...}')
        unknown = sorted(
            set(body) - {"task", "source", "notebook", "seed", "strict", "callback_url", "learner"}
        )
        if unknown:
            named = ", ".join(str(k)[:40] for k in unknown[:5]) + (", ..." if unknown[5:] else "")
            raise Refused(
                422,
                f"unknown field {named} (known: task, source, "
                "notebook, seed, strict, callback_url, learner)",
            )
        task_id = body.get("task")
        if not isinstance(task_id, str) or len(task_id) > MAX_TASK_ID_CHARS:
            raise Refused(422, "'task' must be a task id (GET /v1/tasks lists them)")
        task = self.task(task_id, status=422)
        if ("source" in body) == ("notebook" in body):
            raise Refused(
                422,
                "give exactly one of 'source' (the .py file's text) and "
                "'notebook' (the .ipynb document)",
            )
        if "source" in body:
            if not isinstance(body["source"], str):
                raise Refused(422, "'source' must be the Python file's text, as a string")
            filename, source = "submission.py", body["source"].encode("utf-8", "surrogatepass")
        else:
            if self.notebooks_missing:
                raise Refused(
                    422,
                    "this service cannot grade notebooks: "
                    f"{self.notebooks_missing}; hand in the .py file as "
                    "'source' instead",
                )
            filename, source = "submission.ipynb", _notebook_bytes(body["notebook"])
        if len(source) > MAX_SOURCE_BYTES:
            raise Refused(
                413,
                f"the submission is {len(source)} bytes; at most {MAX_SOURCE_BYTES} are accepted",
            )
        seed = body.get("seed", task.seed)
        if seed is None:
            seed = task.seed
        if (
            isinstance(seed, bool)
            or not isinstance(seed, int)
            or not SEED_RANGE[0] <= seed <= SEED_RANGE[1]
        ):
            raise Refused(
                422, f"'seed' must be a whole number from {SEED_RANGE[0]} to {SEED_RANGE[1]}"
            )
        strict = body.get("strict", False)
        if not isinstance(strict, bool):
            raise Refused(422, "'strict' must be true or false")
        url = body.get("callback_url")
        if url is not None and not _http_url(url):
            raise Refused(422, "'callback_url' must be an http:// or https:// URL")
        refusal = url and self.doors.callbacks.refusal(url)
        if refusal:
            raise Refused(
                422,
                f"'callback_url' may not point at this machine or its network: "
                f"{refusal} (judge serve --allow-callback-host allows it)",
            )
        learner = body.get("learner")
        if learner is not None:
            try:
                learner = learner_id(learner)
            except BadLearner as exc:
                raise Refused(422, str(exc)) from None
        return Submission(task.id, filename, source, seed, strict, url, learner)

    def task(self, task_id: str, status: int = 404):
        """The bank's task, or the refusal naming the closest ids (404 for a task asked for
        by URL, 422 for one named in a submission's body)."""
        try:
            return self.bank.get(task_id)
        except UnknownTask as exc:
            raise Refused(status, str(exc), extra={"closest": exc.closest}) from None

    def submit(self, client: Client, body) -> dict:
        """Store a submission and queue it (or find it stored already); the answer of a
        ``202``.  Raises Refused for bad input, a full queue or a client over its rate."""
        try:
            sub = self.parse(body)
        except Refused:
            self.metrics.submissions.labels("refused").inc()
            raise
        allowed, wait = self.limiter.allow(client)
        if not allowed:
            self.metrics.submissions.labels("rate_limited").inc()
            raise Refused(
                429,
                f"'{client.name}' may send {client.per_minute} submissions a "
                f"minute; try again in {wait} s",
                retry_after=wait,
            )
        fields: dict[str, Any] = dict(
            key=self.key(sub),
            task=sub.task,
            seed=sub.seed,
            strict=sub.strict,
            filename=sub.filename,
            source=sub.source,
            client=client.name,
            callback_url=sub.callback_url,
            learner=sub.learner,
        )
        added = self.store.add(**fields, create=False)  # a repeat needs no place
        if added is None:
            if not self.queue.reserve(client.name):
                self.metrics.submissions.labels("queue_full").inc()
                wait = self.queue.retry_after_s()
                whose = (
                    ""
                    if self.queue.share >= self.queue.limit
                    else (
                        f" for '{client.name}' (each of the {self.queue.callers} callers may "
                        f"hold {self.queue.share} of its {self.queue.limit} places)"
                    )
                )
                raise Refused(
                    503, f"the queue is full{whose}; try again in {wait} s", retry_after=wait
                )
            try:
                # a repeat again if one came meanwhile (with create, always one)
                added = cast(Added, self.store.add(**fields))
            except BaseException:
                self.queue.put(None, client.name)
                raise
            self.queue.put(None if added.deduplicated else added.id, client.name)
        self.metrics.submissions.labels("deduplicated" if added.deduplicated else "queued").inc()
        if added.deduplicated and added.state == "done" and sub.callback_url:
            self.callbacks.wake()
        return {"id": added.id, "state": added.state, "deduplicated": added.deduplicated}

    def key(self, sub: Submission) -> str:
        """The content key: the same task (as the bank defines it now), source, seed and
        options give the same report."""
        named = [
            __version__,
            self._fingerprints[sub.task],
            sub.task,
            sub.seed,
            sub.strict,
            sub.filename,
        ]
        if sub.learner is not None:  # each learner's attempt is in their own history
            named.append(sub.learner)
        h = hashlib.sha256(json.dumps(named).encode())
        h.update(sub.source)
        return h.hexdigest()

    def status(self, sub_id: str) -> dict | None:
        """The stored row (``report`` is the JSON text when done), plus the queue position."""
        row = self.store.get(sub_id)
        if row is not None and row["state"] == "queued":
            row["ahead"] = self.queue.position(sub_id)
        return row

    def _changed(self, sub_id: str, state: str, report: dict | None) -> None:
        if report is not None:
            self.metrics.gradings.labels(report["verdict"]).inc()
            row = self.store.get(sub_id)
            if row and row["finished_at"]:
                self.metrics.latency.observe(row["finished_at"] - row["created_at"])
            self.callbacks.wake()
        for listener in list(self.listeners):
            listener(sub_id, state)

    def health(self) -> dict:
        counts = self.store.counts()
        return {
            "status": "ok",
            "judge_version": __version__,
            "access": "loopback" if self.access.loopback_only else "token",
            "tasks": len(self.bank.tasks),
            "queue": self.queue.depth,
            "queue_limit": self.queue.limit,
            "running": self.queue.running,
            "grading_slots": self.queue.workers,
            "graded": counts["done"],
            "notebooks": "refused" if self.notebooks_missing else "accepted",
            **self.backend.status(),
        }


def _fingerprint(bank: Bank, task_id: str) -> str:
    """What the task's grading depends on in the bank: tasks.yaml and its reference."""
    h = hashlib.sha256(bank.file.read_bytes())
    ref = bank.get(task_id).reference_path
    h.update(ref.read_bytes() if ref.is_file() else b"")
    return h.hexdigest()


def _notebook_bytes(notebook) -> bytes:
    """The .ipynb file's bytes: the document's own text where it came as text (checked,
    and handed on as sent, not parsed and written out again), else the object written
    once.  A lone surrogate (JSON allows "\\ud800") stays in the bytes for the notebook
    reader to refuse as the learner's, as the source branch does, never a 500 here."""
    text = None
    if isinstance(notebook, str):
        text = notebook
        try:
            notebook = parse_json(text, "'notebook'")
        except Refusal as exc:
            raise Refused(
                413 if exc.status == 413 else 422, f"{exc.message}: give the .ipynb document"
            ) from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise Refused(422, "'notebook' must be a Jupyter notebook (a JSON object with 'cells')")
    if text is None:
        text = json.dumps(notebook, ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass")


def _http_url(url) -> bool:
    """An http(s) URL with a host, as both the door's check (urllib) and the sender (httpx)
    read it: one either cannot parse ('http://[::1/', a port of 99999, a NUL or an IDNA
    name it refuses) is refused now, never accepted and then retried for ever."""
    import urllib.parse

    import httpx

    if not isinstance(url, str) or len(url) > 2000:
        return False
    try:
        parts = urllib.parse.urlsplit(url)
        _ = parts.port  # raises on a port out of range
        sent = httpx.URL(url)
    except (ValueError, httpx.InvalidURL):
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and bool(sent.host)
