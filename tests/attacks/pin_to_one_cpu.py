"""Slow the judge's clock: pin the worker and a busy child of its own to one CPU, so
that the worker's thread waits for that CPU half of the time, which a clock that
forgave all waiting would not charge; then compute for 11 s a call against an 8 s
limit, again and again, to keep the judge busy far past the run limit."""
import os
import subprocess
import time

try:
    _cpu = sorted(os.sched_getaffinity(0))[0]
    os.sched_setaffinity(0, {_cpu})
    _hog = subprocess.Popen(["/usr/bin/timeout", "120", "/bin/sh", "-c", "while :; do :; done"],
                            preexec_fn=lambda: os.sched_setaffinity(0, {_cpu}))
except OSError:
    pass


def double(x):
    t = time.monotonic()
    while time.monotonic() - t < 11.0:
        pass
    return x * 2
