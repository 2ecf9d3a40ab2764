"""One submission loaded in one worker: load it, call it, read its probe; failures of
the worker become verdicts a learner understands."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .sandbox import Limits as SandboxLimits
from .sandbox import Worker, WorkerFailure
from .worker import wire
from .verdicts import Verdict

FAILURE_VERDICTS = {"timeout": Verdict.TIME_LIMIT_EXCEEDED, "memory": Verdict.MEMORY_LIMIT_EXCEEDED,
                    "crashed": Verdict.RUNTIME_ERROR, "exited": Verdict.RUNTIME_ERROR,
                    "protocol": Verdict.RUNTIME_ERROR}
ERROR_VERDICTS = {"exception": Verdict.RUNTIME_ERROR, "exit": Verdict.RUNTIME_ERROR,
                  "memory": Verdict.MEMORY_LIMIT_EXCEEDED, "invalid_submission": Verdict.INVALID_SUBMISSION,
                  "timeout": Verdict.TIME_LIMIT_EXCEEDED, "judge": Verdict.JUDGE_ERROR,
                  "unmeasurable": Verdict.JUDGE_ERROR, "wrong": Verdict.WRONG_ANSWER}


TRUSTED_LIFETIME_S = 6 * 3600.0


@dataclass
class CallOutcome:
    ok: bool
    value: Any = None
    elapsed_s: float = 0.0
    traces: list = field(default_factory=list)
    syncs: list = field(default_factory=list)
    measured: dict = field(default_factory=dict)   # a check kind's instrument's figures
    kept: bool = False           # the instrument kept a value (``value``) to be compared
    verdict: str | None = None
    message: str = ""
    traceback: str = ""
    fatal: bool = False          # the worker is gone


class Session:
    def __init__(self, source: Path, display_name: str, entrypoint: str, limits,
                 *, trusted: bool = False, hidden_paths: list[str] = (),
                 instruments: list[dict] = (), devices: int | None = None):
        self.source, self.display_name, self.entrypoint = Path(source), display_name, entrypoint
        # The reference's (trusted) worker serves every grading that shares it, a whole
        # validation or batch: only each of its calls is limited, not its lifetime.
        self.limits = SandboxLimits(call_timeout_s=limits.call_timeout_s,
                                    run_timeout_s=max(limits.run_timeout_s, TRUSTED_LIFETIME_S)
                                    if trusted else limits.run_timeout_s,
                                    memory_mb=limits.memory_mb,
                                    output_bytes=limits.output_kb * 1024)
        self.trusted, self.hidden_paths = trusted, list(hidden_paths)
        self.instruments = list(instruments)    # check kinds' worker-side halves
        self.devices = devices                  # a task's `devices: N`
        self.worker: Worker | None = None
        self.params: list[str] = []
        self.jitted: list[str] = []
        self._outputs: list[dict] = []
        self.deadline: float | None = None      # monotonic; the whole grading's limit
        self.dropped: list[str] = []            # a notebook's IPython-only lines, left out

    # -------------------------------------------------------------- lifecycle
    def start(self) -> None:
        self.worker = Worker(self.limits, trusted=self.trusted, hidden_paths=self.hidden_paths,
                             devices=self.devices)
        self.worker.start()

    @property
    def alive(self) -> bool:
        return self.worker is not None and not self.worker.closed

    @property
    def isolation(self) -> str:
        return self.worker.isolation if self.worker else "process"

    @property
    def device_info(self) -> dict | None:
        """{"count": n, "platform": name} of the worker's jax, once it started."""
        info = self.worker.ready_info.get("devices") if self.worker else None
        if isinstance(info, dict) and isinstance(info.get("count"), int) \
                and isinstance(info.get("platform"), str):
            return {"count": info["count"], "platform": info["platform"][:32]}
        return None

    def load(self) -> CallOutcome:
        from .notebooks import NotebookError, read_submission

        target = Path(self.worker.scratch) / "submission.py"
        try:
            if self.source.suffix == ".ipynb":        # a notebook's code cells
                notebook = read_submission(self.source)
                self.dropped = notebook.dropped
                target.write_text(notebook.text, encoding="utf-8")
            else:   # the bytes as they are: Python decodes them (a coding cookie, a BOM)
                target.write_bytes(self.source.read_bytes())
        except NotebookError as exc:
            return CallOutcome(False, verdict=Verdict.INVALID_SUBMISSION, message=str(exc))
        except OSError as exc:
            return CallOutcome(False, verdict=Verdict.INVALID_SUBMISSION,
                               message=f"{self.display_name} cannot be read: {exc}")
        out = self._request({"op": "load", "path": str(target), "display_name": self.display_name,
                             "entrypoint": self.entrypoint, "probe": True,
                             "instruments": self.instruments}, load=True)
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
        return {"stdout": "".join(p.get("stdout", "") for p in parts),
                "stderr": "".join(p.get("stderr", "") for p in parts),
                "truncated": any(p.get("truncated") for p in parts)}

    # -------------------------------------------------------------- calls
    def call(self, args: dict[str, Any], label: str) -> CallOutcome:
        blobs: list[bytes] = []
        return self._request(_call_header(args, label, blobs), blobs)

    def call_many(self, calls: list[dict[str, Any]], label: str) -> list[CallOutcome]:
        """Several calls in one round trip, for trusted code only: the time limit is
        the batch's (the sum of the calls'), not each call's."""
        blobs: list[bytes] = []
        header = {"op": "calls", "calls": [_call_header(args, label, blobs, probe=False)
                                           for args in calls]}
        out = self._request(header, blobs, timeout=self._timeout() * len(calls))
        if not out.ok:
            return [out] * len(calls)
        replies = out.value.get("replies")
        if not isinstance(replies, list) or len(replies) != len(calls):
            return [CallOutcome(False, verdict=Verdict.RUNTIME_ERROR, message="malformed reply",
                                fatal=True)] * len(calls)
        return [self._outcome(r, out.value["blobs"], "call") for r in replies]

    def measure(self, kind: str, args: dict[str, Any], options: dict, label: str) -> CallOutcome:
        """A check kind's instrument at ``args``: ``measured`` holds its figures, and
        ``value`` the value it kept (None when it kept none)."""
        blobs: list[bytes] = []
        header = dict(_call_header(args, label, blobs), op="measure", instrument=kind,
                      options=options)
        return self._request(header, blobs)

    def report(self, label: str) -> dict:
        out = self._request({"op": "report", "label": label})
        return out.value.get("report", {}) if out.ok else {}

    def _timeout(self) -> float:
        limit = self.limits.call_timeout_s
        if self.deadline is not None:
            limit = min(limit, max(0.05, self.deadline - time.monotonic()))
        return limit

    def _request(self, header: dict, blobs=(), load: bool = False,
                 timeout: float | None = None) -> CallOutcome:
        try:
            reply, rblobs = self.worker.request(header, list(blobs),
                                                timeout=timeout or self._timeout())
        except WorkerFailure as failure:
            self.close()         # gone for good: the next call starts a fresh worker
            # before any learner code ran, the failure is the judge's (a slow machine, ...)
            verdict = Verdict.JUDGE_ERROR if failure.where == "start" else \
                FAILURE_VERDICTS.get(failure.kind, Verdict.RUNTIME_ERROR)
            return CallOutcome(False, verdict=verdict, message=str(failure.message), fatal=True)
        if header["op"] == "calls" and isinstance(reply, dict) and reply.get("ok"):
            return CallOutcome(True, value={"replies": reply.get("replies"), "blobs": rblobs})
        return self._outcome(reply, rblobs, header["op"], load)

    def _outcome(self, reply, rblobs: list[bytes], op: str, load: bool = False) -> CallOutcome:
        if not isinstance(reply, dict):
            return CallOutcome(False, verdict=Verdict.RUNTIME_ERROR, message="malformed reply", fatal=True)
        if not reply.get("ok"):
            err = reply.get("error") if isinstance(reply.get("error"), dict) else {}
            category = str(err.get("category", "exception"))
            verdict = ERROR_VERDICTS.get(category, Verdict.RUNTIME_ERROR)
            if load and category == "exception":
                verdict = Verdict.INVALID_SUBMISSION
            return CallOutcome(False, verdict=verdict, message=_error_text(err),
                               traceback=str(err.get("traceback", ""))[:4000])
        if op not in ("call", "measure"):
            return CallOutcome(True, value=reply)
        measured = reply.get("measured") if isinstance(reply.get("measured"), dict) else {}
        try:
            value = wire.decode(reply.get("result"), rblobs) \
                if op == "call" or "result" in reply else None
        except wire.WireError as exc:
            return CallOutcome(False, verdict=Verdict.RUNTIME_ERROR,
                               message=f"the worker sent a malformed result ({exc})")
        return CallOutcome(True, value=value, elapsed_s=_num(reply.get("elapsed_s")),
                           traces=_list(reply.get("traces")), syncs=_list(reply.get("syncs")),
                           measured=measured, kept=op == "measure" and "result" in reply)


def _call_header(args: dict[str, Any], label: str, blobs: list[bytes], probe: bool = True) -> dict:
    return {"op": "call", "args": [wire.encode(v, blobs) for v in args.values()], "kwargs": {},
            "label": label, "probe": probe}


def _error_text(err: dict) -> str:
    message = str(err.get("message", "")).strip()
    etype = str(err.get("type", "")).strip()
    line = err.get("line")
    own = etype in ("", "InvalidSubmission", "WrongResult", "Unmeasurable")   # the worker's own words
    text = message or etype if own or etype in message else f"{etype}: {message}"
    if isinstance(line, int) and "line" not in text:
        text += f" (line {line})"
    return text[:2000] or "the code failed"


def _num(v) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


def _list(v) -> list:
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []
