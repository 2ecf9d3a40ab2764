"""``output``: what the learner's function prints on each call of a script.

A value check (failing it is ``wrong_answer``): a task whose function must print a line
on every call (a log line, a progress report) states a pattern and how many matching
lines each call prints.  The instrument runs each scripted call with the worker's
standard output (fd 1) captured, and waits for JAX's asynchronous effects
(``jax.debug.print``) before it stops capturing; the judge counts the lines.  The point
of such a task is usually the trace-time trap: a Python ``print`` inside a jitted
function runs only while JAX traces it, so a call that reuses a cached trace prints
nothing.  The check therefore clears JAX's caches before its first call, so that it sees
the same thing whatever ran before it (a fresh process would).  The reference's worker
runs the same calls beside, for the values they are compared with.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, cast

from ..verdicts import Status, Verdict
from .base import ScriptMeasureCheck, check_kind, instrument

if TYPE_CHECKING:
    from ..bank import FieldReader, Task
    from ..report import CheckResult
    from .base import GradingView, Measured

CAPTURE_LIMIT = 64 * 1024  # bytes kept per call; more than that is a failure in itself
SHOWN_LINES = 20  # lines of one call sent back and shown


def bind_capture():  # type: ignore[no-untyped-def]  # shipped
    """Runs in the worker before the learner's file (the judge's process never imports
    jax): what the capture uses, whatever the learner's code replaces later."""
    import os
    import sys
    import tempfile

    import jax

    return {
        "sys": sys,
        "dup": os.dup,
        "dup2": os.dup2,
        "close": os.close,
        "write": os.write,
        "read": os.read,
        "lseek": os.lseek,
        "open": os.open,
        "devnull": os.devnull,
        "write_only": os.O_WRONLY,
        "temporary_file": tempfile.TemporaryFile,
        "block_until_ready": jax.block_until_ready,
        "effects_barrier": jax.effects_barrier,
        "clear_caches": jax.clear_caches,
    }


def capture_output(ctx, args, kwargs, options):  # type: ignore[no-untyped-def]  # shipped
    """In the worker: call the function with fd 1 captured; return what it printed.
    Everything it uses was bound by ``bind_capture`` before the learner's file ran: a
    learner who patches os or jax later changes nothing in it."""
    bound = ctx.bound
    sys, dup, dup2, close = bound["sys"], bound["dup"], bound["dup2"], bound["close"]
    write, read, lseek = bound["write"], bound["read"], bound["lseek"]
    open_fd, devnull, write_only = bound["open"], bound["devnull"], bound["write_only"]
    temporary_file = bound["temporary_file"]
    block_until_ready, effects_barrier = bound["block_until_ready"], bound["effects_barrier"]
    clear_caches = bound["clear_caches"]
    limit = int(options.get("limit", 65536))

    def flush():  # type: ignore[no-untyped-def]  # shipped
        for stream in (sys.stdout, sys.__stdout__):
            try:
                stream.flush()
            except BaseException:
                pass

    if options.get("fresh"):
        clear_caches()
    flush()  # type: ignore[no-untyped-call]  # what was printed before belongs to no call
    try:
        saved = dup(1)
    except OSError:  # the learner closed fd 1: it is closed again after
        saved = None
        null = open_fd(devnull, write_only)
        if null != 1:  # (it took the lowest free descriptor)
            dup2(null, 1)
            close(null)
    # a file in the worker's own /tmp, counted as its memory or scratch (the seccomp
    # filter refuses memfd_create: memory no watch would count)
    keep = temporary_file()
    sink = dup(keep.fileno())
    chunks, size = [], 0
    try:
        dup2(sink, 1)
        try:
            value = ctx.function(*args, **kwargs)
            try:
                block_until_ready(value)
            except BaseException:
                pass  # not arrays: nothing to wait for
            effects_barrier()  # jax.debug.print runs asynchronously
        finally:
            flush()  # type: ignore[no-untyped-call]
            if saved is None:
                close(1)
            else:
                dup2(saved, 1)
                close(saved)
            size = lseek(sink, 0, 2)
            lseek(sink, 0, 0)
            got = 0
            while got < limit:
                chunk = read(sink, min(limit - got, 1 << 16))
                if not chunk:
                    break
                chunks.append(chunk)
                got += len(chunk)
    finally:
        close(sink)
        keep.close()
    data = b"".join(chunks)
    view = memoryview(data if saved is not None else b"")
    while view:  # the learner's output still reaches the report
        try:
            view = view[write(1, view) :]
        except OSError:
            break
    ctx.keep(value)
    return {"stdout": data.decode("utf-8", "replace"), "bytes": size}


@check_kind("output")
class OutputCheck(ScriptMeasureCheck):
    """Each call of ``script`` prints exactly ``count`` lines that match ``pattern``."""

    failure_verdict = Verdict.WRONG_ANSWER  # printing the wrong thing is a wrong answer
    FIELDS = ScriptMeasureCheck.FIELDS + ("pattern", "count")
    INSTRUMENT = instrument(capture_output, setup=bind_capture)
    doing = "capturing what it prints"

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.pattern_text = r.get("pattern", str)
        try:
            self.pattern = re.compile(self.pattern_text)
        except re.error as exc:
            r.fail(f"not a regular expression: {exc}", "pattern")
        self.count = int(r.number("count", 1, low=0))

    def options(self, task: Task) -> dict[str, Any]:
        return {"limit": CAPTURE_LIMIT + 1}

    def call_options(self, options: dict[str, Any], index: int) -> dict[str, Any]:
        return dict(options, fresh=index == 1)

    def judge(self, grading: GradingView, calls: list[Measured]) -> CheckResult:
        n = len(calls)
        printed = [_Printed.of(c.mine, self.pattern) for c in calls]
        labels = [c.label for c in calls]
        details = {
            "pattern": self.pattern_text,
            "count": self.count,
            "calls": labels,
            "matching": [p.matching for p in printed],
            "lines": [p.lines[:SHOWN_LINES] for p in printed],
        }
        wrong = [i for i, p in enumerate(printed) if p.matching != self.count or p.too_much]
        what = f"{_lines(self.count)} matching `{self.pattern_text}`"
        if not wrong:
            return self.result(
                Status.PASSED, f"each of the {n} scripted calls printed {what}", details=details
            )
        first = wrong[0]
        p = printed[first]
        got = (
            f"more than {CAPTURE_LIMIT // 1024} KiB"
            if p.too_much
            else _lines(p.matching) + (" matching" if p.matching else "")
        )
        message = [
            f"scripted call {first + 1} of {n} ({labels[first]}) printed {got}; "
            f"every call must print {what}"
        ]
        message.append(
            "  lines matching, call by call: "
            + " ".join(f"{i}:{q.matching}" for i, q in enumerate(printed, 1))
        )
        message += self.explain(printed, labels)
        if self.cause:
            message.append(f"  {self.cause}")
        return self.failed("\n".join(message), details=details)

    def explain(self, printed: list[_Printed], labels: list[str]) -> list[str]:
        """The usual reason for what was seen, in a learner's words."""
        counts = [p.matching for p in printed]
        seen: dict[str, int] = {}
        silent_repeat = None
        for i, (label, c) in enumerate(zip(labels, counts)):
            if label in seen and c < self.count <= counts[seen[label]]:
                silent_repeat = (seen[label], i)
                break
            seen.setdefault(label, i)
        if silent_repeat:
            a, b = silent_repeat
            return [
                f"  call {a + 1} printed and call {b + 1}, with the same shapes and dtypes, "
                f"did not: a Python print inside a jitted function runs only while JAX "
                f"traces it, and call {b + 1} reused that trace. jax.debug.print runs on "
                f"every call; so does a print outside the jitted function"
            ]
        over = [i for i, c in enumerate(counts) if c > self.count]
        if over:
            firsts = set(seen.values())
            if set(over) <= firsts and len(over) < len(counts):
                return [
                    "  too many lines only on calls with new shapes: a print that runs "
                    "while tracing and one that runs on every call (jax.debug.print, or a "
                    "print outside jit) both fire on a call that traces"
                ]
            return [
                "  too many lines: the line is printed more than once per call (by two "
                "prints, say one inside the jitted function and one outside it)"
            ]
        if not any(counts):
            others = next((p.lines[0] for p in printed if p.lines), None)
            if others is None:
                return [
                    "  nothing reached standard output: a Python print inside a jitted "
                    "function runs only while JAX traces it (this check starts from empty "
                    "caches, so at least the first call should have printed if the print "
                    "is there); print to standard output, not to stderr or a logger"
                ]
            return [
                f"  no line matches (the first line printed was {others[:80]!r}): "
                f"the line must match `{self.pattern_text}`"
            ]
        return []


class _Printed:
    """One call's captured output: its lines and how many match."""

    def __init__(self, lines: list[str], matching: int, too_much: bool):
        self.lines, self.matching, self.too_much = lines, matching, too_much

    @classmethod
    def of(cls, measured: dict[str, Any], pattern: re.Pattern[str]) -> "_Printed":
        text = cast(str, measured.get("stdout")) if isinstance(measured.get("stdout"), str) else ""
        size = cast(int, measured.get("bytes")) if isinstance(measured.get("bytes"), int) else 0
        lines = text.splitlines()
        return cls(lines, sum(1 for line in lines if pattern.search(line)), size > CAPTURE_LIMIT)


def _lines(n: int) -> str:
    return {0: "no line", 1: "one line"}.get(n, f"{n} lines")
