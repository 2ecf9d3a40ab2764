"""Reports POSTed to the ``callback_url`` a site gave with its submission.

Delivery has its own threads and its own rows in the store: a site that is down, slow
or answering errors never holds up a grading, and what is owed survives a restart.  The
body is the report (the ``GET /v1/submissions/{id}`` body when done), with the
submission's id in the ``Judge-Submission`` header.  Any 2xx answer is a delivery;
anything else is tried again after 1, 2, 4, 8 s, ``attempts`` times in all.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from .doors import CallbackTargets, RefusedTarget
from .store import Callback, Store

log = logging.getLogger("judge.serve")

ATTEMPTS = 5
FIRST_BACKOFF_S = 1.0
TIMEOUT_S = 10.0
SENDERS = 4


def backoff_s(attempt: int) -> float:
    """Wait before the next try after ``attempt`` failed ones: 1, 2, 4, 8 s, ..."""
    return FIRST_BACKOFF_S * 2 ** (attempt - 1)


class Callbacks:
    def __init__(
        self,
        store: Store,
        *,
        attempts: int = ATTEMPTS,
        on_result=lambda ok: None,
        targets: CallbackTargets | None = None,
    ):
        self.store, self.attempts, self.on_result = store, attempts, on_result
        self._wake = threading.Event()
        self._closed = False
        self._in_flight: set[int] = set()
        self._lock = threading.Lock()
        self._senders = ThreadPoolExecutor(SENDERS, thread_name_prefix="serve-callback")
        # public addresses only, checked where each connection is made (doors.py)
        self._client = (targets or CallbackTargets()).client(
            timeout=TIMEOUT_S, headers={"User-Agent": "jax-judge-serve"}
        )
        self._thread = threading.Thread(target=self._loop, name="serve-callbacks", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wake(self) -> None:
        """A submission is done: its callbacks, if any, are due now."""
        self._wake.set()

    def _loop(self) -> None:
        while not self._closed:
            with self._lock:
                busy = set(self._in_flight)
            for cb in self.store.callbacks_due(time.time(), busy):
                with self._lock:
                    self._in_flight.add(cb.id)
                self._senders.submit(self._deliver, cb)
            nxt = self.store.next_callback_at()
            wait = 5.0 if nxt is None else min(5.0, max(0.05, nxt - time.time()))
            self._wake.wait(wait)
            self._wake.clear()

    def _deliver(self, cb: Callback) -> None:
        try:
            row = self.store.get(cb.submission)
            error, refused = "", False
            try:
                answer = self._client.post(
                    cb.url,
                    content=row["report"].encode(),  # type: ignore[index]  # an owed callback's row is kept
                    headers={"Content-Type": "application/json", "Judge-Submission": cb.submission},
                )
                ok = 200 <= answer.status_code < 300
                error = "" if ok else f"HTTP {answer.status_code}"
            except RefusedTarget as exc:
                ok, error, refused = False, f"refused: {exc}", True
            except httpx.HTTPError as exc:
                ok, error = False, f"{type(exc).__name__}: {exc}"
            except (httpx.InvalidURL, ValueError, UnicodeError) as exc:
                # a URL only the sender cannot use (one stored before the submit check
                # read URLs as httpx does): given up, never due again at once
                ok, error, refused = False, f"not a URL it can send to: {exc}", True
            tried = cb.attempts + 1
            retry_at = (
                None if ok or refused or tried >= self.attempts else time.time() + backoff_s(tried)
            )
            self.store.callback_tried(cb.id, delivered=ok, error=error, retry_at=retry_at)
            self.on_result(ok)
            if not ok:
                log.info(
                    "callback %s for %s: %s (%s)",
                    cb.url,
                    cb.submission,
                    error,
                    "given up" if retry_at is None else f"try {tried + 1} later",
                )
        except Exception:
            if not self._closed:
                log.exception("callback %s failed", cb.id)
        finally:
            with self._lock:
                self._in_flight.discard(cb.id)
            self._wake.set()

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        self._senders.shutdown(wait=False, cancel_futures=True)
        self._client.close()
