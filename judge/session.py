"""One submission loaded in one worker: load it, call it, read its probe; failures of
the worker become verdicts a learner understands."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from .limits import Limits
from .records import SCRIPT_REPORT, SYNC, TRACE_EVENT, conforms
from .sandbox import RunClock, WorkerFailure, WorkerHandle
from .sources import SubmissionRefused, python_text, read_submission
from .verdicts import Verdict
from .worker import wire

FAILURE_VERDICTS = {
    "timeout": Verdict.TIME_LIMIT_EXCEEDED,
    "memory": Verdict.MEMORY_LIMIT_EXCEEDED,
    "crashed": Verdict.RUNTIME_ERROR,
    "exited": Verdict.RUNTIME_ERROR,
    "protocol": Verdict.RUNTIME_ERROR,
    "processes": Verdict.RUNTIME_ERROR,
    "disk": Verdict.RUNTIME_ERROR,
    "too_large": Verdict.WRONG_ANSWER,
    "overloaded": Verdict.JUDGE_ERROR,
    "lost": Verdict.JUDGE_ERROR,
}
# "judge": the worker's own failure before any learner code ran; "broken": after
ERROR_VERDICTS = {
    "exception": Verdict.RUNTIME_ERROR,
    "exit": Verdict.RUNTIME_ERROR,
    "memory": Verdict.MEMORY_LIMIT_EXCEEDED,
    "invalid_submission": Verdict.INVALID_SUBMISSION,
    "timeout": Verdict.TIME_LIMIT_EXCEEDED,
    "judge": Verdict.JUDGE_ERROR,
    "unmeasurable": Verdict.JUDGE_ERROR,
    "wrong": Verdict.WRONG_ANSWER,
    "broken": Verdict.RUNTIME_ERROR,
}


@dataclass
class CallOutcome:
    ok: bool
    value: Any = None
    elapsed_s: float = 0.0
    traces: list = field(default_factory=list)
    syncs: list = field(default_factory=list)
    measured: dict = field(default_factory=dict)  # a check kind's instrument's figures
    kept: bool = False  # the instrument kept a value (``value``) to be compared
    verdict: Verdict | None = None
    message: str = ""
    traceback: str = ""
    fatal: bool = False  # the worker is gone
    tampered: list = field(default_factory=list)  # what the code changed of the judge's instruments
    compiles_seen: int | None = None  # compiles the worker's probe has seen so far
    compiles_reported: int = 0  # compile events in this reply's records
    # set by the grading: this request's share of the run's time (load out), and whether
    # it was stopped because the whole run's time ran out rather than its own limit
    charged_s: float = 0.0
    run_out: bool = False
    # "the judge's fault", said by a worker that ran the learner's code of an instrument:
    # it may have forged the reply, so the grading confirms it in the reference's worker
    claimed_judge_error: bool = False


@dataclass
class ScriptRun:
    calls: list[dict[str, Any]]
    outcomes: list[CallOutcome] = field(default_factory=list)
    report: dict = field(default_factory=dict)
    loaded: list = field(default_factory=list)  # trace events of the file's load (import time)

    @property
    def failure(self) -> CallOutcome | None:
        return next((o for o in self.outcomes if not o.ok), None)

    def syncs(self) -> list[dict]:
        return [dict(s, call=i + 1) for i, o in enumerate(self.outcomes) for s in o.syncs]


class Session:
    """A trusted session (the reference) has no run clock: it may serve many gradings.
    A learner's has one clock for the whole grading, across restarts of its worker."""

    def __init__(
        self,
        source: Path,
        display_name: str,
        entrypoint: str,
        limits: Limits,
        *,
        trusted: bool = False,
        hidden_paths: Sequence[str] = (),
        instruments: Sequence[dict] = (),
        devices: int | None = None,
        isolation: str | None = None,
        x64: bool = False,
        source_bytes: bytes | None = None,
    ):
        self.source, self.display_name, self.entrypoint = Path(source), display_name, entrypoint
        # the submission's bytes where the caller has read them already (``judge run``
        # reads them to refuse an unreadable file early): read once, graded as read
        self.source_bytes = source_bytes
        self.limits = limits
        self.trusted, self.hidden_paths = trusted, list(hidden_paths)
        self.isolation_asked = isolation
        self.instruments = list(instruments)  # check kinds' worker-side halves
        self.devices = devices  # a task's `devices: N`
        self.x64 = x64  # jax with 64-bit types (trusted code only)
        # None until start(), which every other use follows
        self.worker: WorkerHandle = None  # type: ignore[assignment]
        self.params: list[str] = []
        self.jitted: list[str] = []
        self._outputs: list[dict] = []
        # The reference's (trusted) worker serves every grading that shares it, a whole
        # validation or batch, or a service for hours: only each of its requests is
        # limited, never its lifetime, so it has no run clock.
        self.clock: RunClock | None = None if trusted else RunClock(limits.run_timeout_s)
        self.dropped: list[str] = []  # a notebook's IPython-only lines, left out
        self.python_text: str | None = None  # the Python loaded, as read before it ran

    # -------------------------------------------------------------- lifecycle
    def start(self, worker: WorkerHandle | None = None) -> None:
        """Start a worker now, or take one already started (a pool's, warm): from here
        on the session owns it, and ``close`` ends it."""
        if worker is None:
            worker = WorkerHandle(
                self.limits,
                trusted=self.trusted,
                hidden_paths=self.hidden_paths,
                isolation=self.isolation_asked,
                devices=self.devices,
            )
            worker.start()
        self.worker = worker

    @property
    def alive(self) -> bool:
        return self.worker is not None and not self.worker.closed

    @property
    def isolation(self) -> str:
        return self.worker.isolation if self.worker else "process"

    @property
    def isolation_layers(self) -> list[str]:
        return list(self.worker.layers) if self.worker else []

    @property
    def device_info(self) -> dict | None:
        """{"count": n, "platform": name} of the worker's jax, once it started."""
        info = self.worker.ready_info.get("devices") if self.worker else None
        if (
            isinstance(info, dict)
            and isinstance(info.get("count"), int)
            and isinstance(info.get("platform"), str)
        ):
            return {"count": info["count"], "platform": info["platform"][:32]}
        return None

    def load(self) -> CallOutcome:
        from .notebooks import NotebookError, notebook_from_bytes

        target = Path(self.worker.scratch) / "submission.py"  # type: ignore[arg-type]  # started: it has one
        try:
            source = (
                self.source_bytes
                if self.source_bytes is not None
                else read_submission(self.source, shown=self.display_name)
            )
            if self.source.suffix == ".ipynb":  # a notebook's code cells, of these bytes
                notebook = notebook_from_bytes(source, self.display_name)
                self.dropped = notebook.dropped
                self.python_text = notebook.text
                target.write_text(notebook.text, encoding="utf-8")
            else:  # the bytes as they are: Python decodes them (a coding cookie, a BOM)
                self.python_text = python_text(source)
                target.write_bytes(source)
            target.chmod(0o644)
        except (NotebookError, SubmissionRefused) as exc:
            return CallOutcome(False, verdict=Verdict.INVALID_SUBMISSION, message=str(exc))
        except OSError as exc:
            return CallOutcome(
                False,
                verdict=Verdict.INVALID_SUBMISSION,
                message=f"{self.display_name} cannot be read: {exc}",
            )
        out = self._request(
            {
                "op": "load",
                "path": str(target),
                "display_name": self.display_name,
                "entrypoint": self.entrypoint,
                "probe": True,
                "instruments": self.instruments,
                "x64": self.x64,
            },
            load=True,
        )
        if out.ok:
            self.params = list(out.value.get("params", []))
            self.jitted = list(out.value.get("jitted", []))
        return out

    def restart(self) -> CallOutcome:
        self.close()
        self.start()
        return self.load()

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()

    def close(self) -> None:
        if self.worker is not None and not self.worker.closed:
            self.worker.close()
            self._outputs.append(self.worker.output())

    def output(self) -> dict:
        parts = list(self._outputs)
        if self.worker is not None and not self.worker.closed:
            parts.append(self.worker.output())
        stderr = "".join(p.get("stderr", "") for p in parts)
        return {
            "stdout": "".join(p.get("stdout", "") for p in parts),
            "stderr": _XLA_DUMP_NOISE.sub("", stderr),
            "truncated": any(p.get("truncated") for p in parts),
        }

    # -------------------------------------------------------------- calls
    def call(self, args: dict[str, Any], label: str, reply_limit=None) -> CallOutcome:
        """``reply_limit``: see WorkerHandle.request (the expected result's size bounds the reply)."""
        misplaced = self._unplaceable(args)
        if misplaced is not None:
            return misplaced
        blobs: list[bytes] = []
        return self._request(_call_header(args, label, blobs), blobs, reply_limit=reply_limit)

    def _unplaceable(self, args: dict[str, Any]) -> CallOutcome | None:
        """Arguments placed on a mesh, for a worker started without devices: the judge's
        mistake, said here (a learner's worker cannot be believed when it says that a
        failure is the judge's: its code may have written the reply)."""
        from .values import leaves

        if self.devices is None and any(
            getattr(leaf, "sharding", None) is not None for leaf in leaves(args)
        ):
            return CallOutcome(
                False,
                verdict=Verdict.JUDGE_ERROR,
                message="an argument placed "
                "on a mesh, for a worker started without devices (the task needs "
                "`devices: N`)",
            )
        return None

    def call_many(
        self, calls: list[dict[str, Any]], label: str, probe: bool = False
    ) -> list[CallOutcome]:
        """Several calls in one round trip, for trusted code only: the time limit is
        the batch's (the sum of the calls'), not each call's.  ``probe``: each call's
        traces and syncs come back too."""
        blobs: list[bytes] = []
        header = {
            "op": "calls",
            "calls": [_call_header(args, label, blobs, probe=probe) for args in calls],
        }
        out = self._request(header, blobs, timeout=self._timeout() * len(calls))
        if not out.ok:
            return [out] * len(calls)
        replies = out.value.get("replies")
        if not isinstance(replies, list) or len(replies) != len(calls):
            return [
                CallOutcome(
                    False, verdict=Verdict.RUNTIME_ERROR, message="malformed reply", fatal=True
                )
            ] * len(calls)
        return [self._outcome(r, out.value["blobs"], "call") for r in replies]

    def measure(self, kind: str, args: dict[str, Any], options: dict, label: str) -> CallOutcome:
        """A check kind's instrument at ``args``: ``measured`` holds its figures, and
        ``value`` the value it kept (None when it kept none)."""
        misplaced = self._unplaceable(args)
        if misplaced is not None:
            return misplaced
        blobs: list[bytes] = []
        header = dict(
            _call_header(args, label, blobs), op="measure", instrument=kind, options=options
        )
        return self._request(header, blobs)

    def report(self, label: str) -> CallOutcome:
        """The probe's report on the calls made under ``label``: its value a dict (empty
        when there is none, or when the reply did not have the report's shape)."""
        out = self._request({"op": "report", "label": label})
        if out.ok:
            report = out.value.get("report", {})
            if not conforms(report, (SCRIPT_REPORT, {})):
                out.tampered.append("the probe's report on your calls was rewritten in the worker")
                report = {}
            out.value = report
        return out

    def _timeout(self) -> float:
        return self.limits.call_timeout_s

    def time_left(self) -> float:
        """Seconds of the learner's own time left in the run (the clock's, load out)."""
        return self.clock.left_s() if self.clock is not None else float("inf")

    def _request(
        self,
        header: dict,
        blobs=(),
        load: bool = False,
        timeout: float | None = None,
        reply_limit=None,
    ) -> CallOutcome:
        try:
            reply, rblobs = self.worker.request(
                header,
                list(blobs),
                timeout=timeout or self._timeout(),
                clock=self.clock,
                reply_limit=reply_limit,
            )
        except WorkerFailure as failure:
            self.close()  # gone for good: the next call starts a fresh worker
            # before any learner code ran, the failure is the judge's (a slow machine, ...)
            verdict = (
                Verdict.JUDGE_ERROR
                if failure.where == "start" or self.trusted
                else FAILURE_VERDICTS.get(failure.kind, Verdict.RUNTIME_ERROR)
            )
            return CallOutcome(False, verdict=verdict, message=str(failure.message), fatal=True)
        if header["op"] == "calls" and isinstance(reply, dict) and reply.get("ok"):
            return CallOutcome(True, value={"replies": reply.get("replies"), "blobs": rblobs})
        return self._outcome(reply, rblobs, header["op"], load)

    def _outcome(self, reply, rblobs: list[bytes], op: str, load: bool = False) -> CallOutcome:
        if not isinstance(reply, dict):
            return CallOutcome(
                False, verdict=Verdict.RUNTIME_ERROR, message="malformed reply", fatal=True
            )
        out = self._outcome_of(reply, rblobs, op, load)
        out.tampered = [str(t)[:300] for t in _list_of(reply.get("tampered"))][:10]
        read = {}
        for record, shape, what in (
            ("traces", TRACE_EVENT, "traces and compiles"),
            ("syncs", SYNC, "host syncs"),
        ):
            read[record] = reply.get(record, [])
            if not conforms(read[record], [shape]):
                out.tampered.append(
                    f"the probe's record of your call's {what} was rewritten in the worker"
                )
                read[record] = []
                setattr(out, record, [])
        # failed calls too: what XLA compiled in them is matched against these (not a
        # load's: XLA's count during calls starts after it)
        out.compiles_reported = 0 if load else sum(e["stage"] == "compile" for e in read["traces"])
        seen = reply.get("compiles_seen")
        out.compiles_seen = seen if isinstance(seen, int) and not isinstance(seen, bool) else None
        return out

    def _outcome_of(self, reply: dict, rblobs: list[bytes], op: str, load: bool) -> CallOutcome:
        if not reply.get("ok"):
            err = cast(dict, reply.get("error")) if isinstance(reply.get("error"), dict) else {}
            category = str(err.get("category", "exception"))
            verdict = ERROR_VERDICTS.get(category, Verdict.RUNTIME_ERROR)
            message = _error_text(err)
            if verdict == Verdict.JUDGE_ERROR and not self.trusted and op != "measure":
                # a learner's worker says "the judge's fault" only after its code ran: it
                # may have broken the worker, or forged the reply (it can).  A check
                # kind's instrument failing is the judge's (the check contract) once the
                # grading has seen it fail in the reference's worker too.
                verdict = Verdict.RUNTIME_ERROR
                message = f"the worker failed after your code ran: {message}"
            if load and category == "exception":
                verdict = Verdict.INVALID_SUBMISSION
            return CallOutcome(
                False,
                verdict=verdict,
                message=message,
                traceback=str(err.get("traceback", ""))[:4000],
                claimed_judge_error=verdict == Verdict.JUDGE_ERROR and not self.trusted,
            )
        if op == "load":  # what the file traced and compiled while it loaded
            return CallOutcome(True, value=reply, traces=_list(reply.get("traces")))
        if op not in ("call", "measure"):
            return CallOutcome(True, value=reply)
        measured = (
            cast(dict, reply.get("measured")) if isinstance(reply.get("measured"), dict) else {}
        )
        try:
            value = (
                wire.decode(reply.get("result"), rblobs)
                if op == "call" or "result" in reply
                else None
            )
        except wire.WireError as exc:
            return CallOutcome(
                False,
                verdict=Verdict.RUNTIME_ERROR,
                message=f"the worker sent a malformed result ({exc})",
            )
        return CallOutcome(
            True,
            value=value,
            elapsed_s=_num(reply.get("elapsed_s")),
            traces=_list(reply.get("traces")),
            syncs=_list(reply.get("syncs")),
            measured=measured,
            kept=op == "measure" and "result" in reply,
        )


# XLA failing to write one of the dumps the judge counts compiles with (a large program's
# IR over the worker's file-size limit): the judge's instrument, not the learner's output
_XLA_DUMP_NOISE = re.compile(
    r"^E\d{4} [\d:.]+ +\d+ dump\.cc:\d+\] Could not write XLA debug "
    r"data to \S*\.jj-xla/.*(?:\n|$)",
    re.M,
)


def _call_header(args: dict[str, Any], label: str, blobs: list[bytes], probe: bool = True) -> dict:
    return {
        "op": "call",
        "args": [wire.encode(v, blobs) for v in args.values()],
        "kwargs": {},
        "label": label,
        "probe": probe,
    }


def _error_text(err: dict) -> str:
    message = str(err.get("message", "")).strip()
    etype = str(err.get("type", "")).strip()
    line = err.get("line")
    own = etype in (
        "",
        "InvalidSubmission",
        "WrongResult",
        "Unmeasurable",
    )  # the worker's own words
    text = message or etype if own or etype in message else f"{etype}: {message}"
    if isinstance(line, int) and "line" not in text:
        text += f" (line {line})"
    return text[:2000] or "the code failed"


def _num(v) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


def _list(v) -> list:
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def _list_of(v) -> list:
    return [x for x in v if isinstance(x, str)] if isinstance(v, list) else []


def start_learner_worker(
    limits: Limits,
    *,
    hidden_paths: Sequence[str] = (),
    devices: int | None = None,
    isolation: str | None = None,
) -> WorkerHandle:
    """A learner's worker started ahead of its submission (``judge run`` while the task is
    parsed, the service's warm pool), built as a learner's ``Session`` builds one, so a
    grading can take it as its own (``Grading(worker=...)``).  Raises what starting
    raised, with nothing left running."""
    worker = WorkerHandle(
        limits, hidden_paths=list(hidden_paths), isolation=isolation, devices=devices
    )
    try:
        worker.start()
    except BaseException:
        worker.close()
        raise
    return worker
