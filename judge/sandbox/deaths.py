"""How a worker ended, in the words a learner reads: a pure function of the wait
status, the reason the judge killed it (if it did) and what was measured.  No
processes here, so every message is unit-tested as it is (tests/unit/test_deaths.py)."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field


class WorkerFailure(Exception):
    """The worker did not answer.  ``message`` is written for the learner; ``where`` is
    the op that was running ("start" means before any learner code ran: the judge's
    fault); ``kind`` decides the verdict (see KINDS)."""

    KINDS = {
        "timeout": "the code ran out of time",
        "memory": "the code ran out of memory",
        "crashed": "the process died of a signal",
        "exited": "the process ended",
        "protocol": "the channel to the judge broke",
        "processes": "the code started too many processes or threads",
        "disk": "the code wrote more than its scratch space holds",
        "too_large": "the code returned far more data than the expected result",
        "overloaded": "the machine was too busy to judge the code (the judge's fault)",
        "lost": "the warm sandbox the worker was forked in ended under it (the judge's fault)",
    }

    def __init__(
        self, kind: str, message: str, *, where: str | None = None, detail: dict | None = None
    ):
        if kind not in self.KINDS:
            raise ValueError(f"unknown failure kind {kind!r}")
        super().__init__(message)
        self.kind, self.message, self.where, self.detail = kind, message, where, detail or {}


@dataclass
class Facts:
    """What the message may quote: the limits, and what the judge measured."""

    memory_mb: int = 2048
    scratch_mb: int = 64
    processes: int = 256
    run_timeout_s: float = 60.0
    cores: int = 1
    limit_s: float | None = None  # the time limit that was hit
    scope: str = "call"  # which one: "call", "load" or "run"
    charged_s: float = 0.0  # of it, what the code was charged
    cpu_s: float = 0.0  # CPU time of the code's threads in that scope
    wall_s: float = 0.0  # on the clock
    peak_mb: int = 0
    wrapped: bool = False  # bubblewrap reports its child's signal n as exit 128+n
    lost_exit: int = 71  # the worker's exit code for "the learner broke the channel"
    stderr: str = ""  # the worker's last words (for a failed start)
    extra: dict = field(default_factory=dict)


def seconds(x: float) -> str:
    return f"{x:g}"


def signal_words(sig: int) -> str:
    try:
        name = signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
    desc = signal.strsignal(sig) or ""
    return f"{name} ({desc[:1].lower() + desc[1:]})" if desc else name


def signal_and_code(status: int, wrapped: bool) -> tuple[int | None, int | None]:
    if os.WIFSIGNALED(status):
        return os.WTERMSIG(status), None
    code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    if wrapped and code is not None and code > 128:
        return code - 128, None
    return None, code


def _busy(f: Facts) -> str:
    """A note when the clock ran much longer than what was charged."""
    if f.wall_s > 1.5 * max(f.charged_s, 0.1) and f.wall_s - f.charged_s > 1:
        return (
            f" (the machine was busy: that took {f.wall_s:.1f} s on the clock, of which "
            f"{f.charged_s:.1f} s count)"
        )
    return ""


def _time_words(f: Facts) -> str:
    limit = seconds(f.limit_s if f.limit_s is not None else 0)
    if f.scope == "load":
        return f"importing your file took longer than the {limit} s limit" + _busy(f)
    if f.scope == "run":
        return f"your code ran longer than the {limit} s limit for the whole run" + _busy(f)
    return f"your code ran longer than the {limit} s limit for one call" + _busy(f)


def _cpu_words(f: Facts) -> str:
    limit = f.limit_s if f.limit_s is not None else 0
    what = {"load": "importing your file", "run": "the whole run"}.get(f.scope, "one call")
    return (
        f"your code used {f.cpu_s:.1f} s of CPU time (all its threads together), more than "
        f"{seconds(limit * f.cores)} s: the {seconds(limit)} s limit for {what} on each of "
        f"{f.cores} core{'s' if f.cores != 1 else ''}"
    )


def explain(where: str, status: int | None, reason: str | None, f: Facts) -> WorkerFailure:
    """The failure for a worker that ended (``status``, None if it could not be reaped)
    or that the judge killed (``reason``)."""
    detail: dict[str, object] = {"limit_s": f.limit_s} if f.limit_s is not None else {}
    if reason == "memory":
        return WorkerFailure(
            "memory",
            f"your code used more than the {f.memory_mb} MB memory limit",
            where=where,
            detail={"peak_mb": f.peak_mb},
        )
    if reason == "time":
        return WorkerFailure(
            "timeout",
            _time_words(f),
            where=where,
            detail=dict(detail, charged_s=round(f.charged_s, 3), wall_s=round(f.wall_s, 3)),
        )
    if reason == "cpu":
        return WorkerFailure(
            "timeout", _cpu_words(f), where=where, detail=dict(detail, cpu_s=round(f.cpu_s, 3))
        )
    if reason == "wall":
        return WorkerFailure(
            "overloaded",
            f"the machine was too busy to finish: in {f.wall_s:.0f} s on the clock "
            f"the code was charged only {f.charged_s:.1f} s of its {seconds(f.limit_s or 0)} s "
            "(not your fault: grade it again on a quieter machine)",
            where=where,
            detail=dict(detail, charged_s=round(f.charged_s, 3), wall_s=round(f.wall_s, 3)),
        )
    if reason == "sandbox":
        return WorkerFailure(
            "lost",
            "the worker was lost with the warm sandbox it was forked in (the judge's "
            "trouble, not your code's: it is graded again)",
            where=where,
        )
    if reason == "processes":
        return WorkerFailure(
            "processes",
            f"your code had more than {f.processes} processes and threads at once (a fork bomb?)",
            where=where,
        )
    if reason == "disk":
        return WorkerFailure(
            "disk",
            f"your code wrote more than the {f.scratch_mb} MB its scratch "
            "space (the working folder and /tmp) may hold",
            where=where,
        )
    sig, code = signal_and_code(status or 0, f.wrapped)
    detail = {"signal": sig, "exit_code": code, **f.extra}
    if where == "start":  # no learner code has run: this is for the judge's log
        how = f"signal {signal_words(sig)}" if sig else f"exit code {code}"
        return WorkerFailure(
            "exited",
            f"the worker failed to start ({how})",
            where=where,
            detail=dict(detail, stderr=f.stderr[-2000:]),
        )
    if code == f.lost_exit:
        return WorkerFailure(
            "protocol",
            "your code broke the worker's channel to the judge (did "
            "it close or use file descriptors it does not own?)",
            where=where,
            detail=detail,
        )
    if sig == signal.SIGXCPU:
        return WorkerFailure(
            "timeout",
            "your code used more than the CPU time allowed for the "
            f"whole run ({seconds(f.run_timeout_s)} s on each of {f.cores} cores)",
            where=where,
            detail=detail,
        )
    if sig:
        return WorkerFailure(
            "crashed",
            f"your code crashed the process with {signal_words(sig)}",
            where=where,
            detail=detail,
        )
    return WorkerFailure(
        "exited",
        f"your code ended the process with exit code {code} (as os._exit({code}) does)",
        where=where,
        detail=detail,
    )
