"""What the recorder of executed programs (judge/worker/executions.py) costs per dispatch.

Each mode runs in a fresh process: ``plain`` is jax as it comes (its C++ fast path on),
``recorder`` with the recorder installed (fast path off) but not recording, ``recording``
inside ``recording()`` with the call's summary made, as a learner's call in the worker.

    .venv/bin/python benchmarks/bench_executions.py
"""

from __future__ import annotations

import subprocess
import sys

N = 3000

CHILD = r"""
import sys, time
N = int(sys.argv[2])
import jax, jax.numpy as jnp
mode = sys.argv[1]
ex = None
if mode != "plain":
    from judge.worker.executions import Executions
    ex = Executions()
f = jax.jit(lambda x: x * 2 + 1)
x = jnp.ones(8)
cases = {"jit call": lambda: f(x), "eager add": lambda: x + 1}
for name, fn in cases.items():
    fn(); fn()
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        if mode == "recording":
            with ex.recording() as ran:
                for _ in range(N):
                    fn()
            ex.summary(ran)
        else:
            for _ in range(N):
                fn()
        best = min(best, (time.perf_counter() - t) / N * 1e6)
    print(f"{mode:10s} {name:10s} {best:7.1f} us per dispatch")
"""


def main() -> None:
    for mode in ("plain", "recorder", "recording"):
        subprocess.run([sys.executable, "-c", CHILD, mode, str(N)], check=True)


if __name__ == "__main__":
    main()
