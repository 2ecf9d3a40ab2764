"""The limits of one grading: one type, read from a task's ``limits`` in tasks.yaml and
obeyed by the sandbox.

Time limits are for the learner's code, not for the machine: a call's time is its wall
time less the time it spent waiting for a CPU that other processes held (see
judge/sandbox/clock.py), so a busy machine never turns a correct submission into
``time_limit_exceeded``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    call_timeout_s: float = 10.0  # one call (or the import of the file)
    run_timeout_s: float = 60.0  # every call of one grading together
    memory_mb: int = 2048  # the worker's processes and its private /tmp, /dev/shm
    output_bytes: int = 64 * 1024  # kept of the learner's stdout, and of its stderr
    file_size_bytes: int = 4 << 20  # the largest file the learner's code may write
    scratch_mb: int = 64  # its private /tmp (and /dev/shm) together
    start_timeout_s: float = 60.0  # spawn to ready (numpy and jax imported); no learner code yet
    processes: int = 256  # the worker's processes and threads at once

    # tasks.yaml's names for the limits a task may set
    FIELDS = ("call_timeout_s", "run_timeout_s", "memory_mb", "output_kb")

    @property
    def output_kb(self) -> int:
        return self.output_bytes // 1024

    @classmethod
    def parse(cls, r) -> "Limits":
        """From a task's ``limits`` mapping (a bank FieldReader), or the defaults for None."""
        if r is None:
            return cls()
        r.only(cls.FIELDS)
        d = cls()
        return cls(
            call_timeout_s=float(r.number("call_timeout_s", d.call_timeout_s, low=0.1, high=3600)),
            run_timeout_s=float(r.number("run_timeout_s", d.run_timeout_s, low=1, high=86400)),
            memory_mb=int(r.number("memory_mb", d.memory_mb, low=768, high=1 << 20)),
            output_bytes=int(r.number("output_kb", d.output_kb, low=1, high=1 << 16)) * 1024,
        )
