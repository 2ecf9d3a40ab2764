"""Slow the judge's clock: pin the worker and a busy child of its own to one CPU, so
that the worker's thread waits for that CPU half of the time, which a clock that
forgave all waiting would not charge; then compute for 11 s of its own CPU time a call
against an 8 s limit (half speed: 22 s on the clock, charged 11 s by that clock)."""
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
    t = time.process_time()
    while time.process_time() - t < 11.0:
        pass
    return x * 2
