"""judge run against the floor and against what an instructor would write without it.

Measured side by side, in paired rounds (median of --rounds):
  judge   `judge run cache_independent_count SUBMISSION --format json`, as every run
          after a task's first on a machine: the reference's answers come from its memo
          (judge.memo; filled by one untimed run before the rounds)
  cold    the same with JUDGE_MEMO=off: a task's first run, the reference's worker
          started and every answer computed
  floor   a script that imports jax and the submission and calls it once on each
          distinct input shape the judge feeds it (nothing can be faster and still run
          the learner's code on those shapes); it gets the judge's own tricks: arrays
          made with device_put (jnp.asarray compiles a conversion per shape) and
          OpenBLAS on one thread (its thread pool costs CPU at import)
  pytest  pytest + hypothesis comparing the submission with the reference on 100
          examples, lengths 0 to 64 (the usual hand-written check, one process)
Targets (issue 2): judge <= 0.4 x pytest, judge <= 1.5 x floor; cold is printed beside.
With --isolation-cost, also `judge run --isolation process` in every round: what the
default isolation (bubblewrap where it works) costs beside process isolation.

    python benchmarks/bench_run.py [--rounds 5] [--isolation-cost] [SUBMISSION]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TASK = "cache_independent_count"


def distinct_shapes(task) -> list[tuple[int, int]]:
    """Every (len(x_a), len(x_b)) the judge feeds a submission: script, examples, pool."""
    from judge.runner import script_calls
    from judge.specs import Inputs

    shapes = set()
    for name in task.scripts:
        for args in script_calls(task, name, task.seed):
            shapes.add((args["x_a"].array.shape[0], args["x_b"].array.shape[0]))
    for ex in task.examples:
        shapes.add((ex.args["x_a"].array.shape[0], ex.args["x_b"].array.shape[0]))
    for assign in Inputs(task.args, task.dims).pool(task.seed, task.checks[1].max_shapes):
        shapes.add((assign["n"], assign["m"]))
    return sorted(shapes)


FLOOR = """
import importlib.util, sys
import jax, numpy as np
spec = importlib.util.spec_from_file_location("submission", sys.argv[1])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
f = mod.{entry}
rng = np.random.default_rng(0)
for n, m in {shapes}:
    a = jax.device_put(rng.uniform(-100, 100, n).astype(np.float32))
    b = jax.device_put(rng.uniform(-100, 100, m).astype(np.float32))
    float(f(a, b))
"""

PYTEST = """
import importlib.util
import jax.numpy as jnp
import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

def load(path):
    spec = importlib.util.spec_from_file_location(path.replace("/", "_"), path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod.{entry}

sub, ref = load({sub!r}), load({ref!r})
vec = arrays(np.float32, st.integers(0, 64),
             elements=st.floats(-100, 100, width=32, allow_subnormal=False))

@settings(max_examples=100, deadline=None, database=None)
@given(vec, vec)
def test_matches_reference(a, b):
    got = float(sub(jnp.asarray(a), jnp.asarray(b)))
    want = float(ref(jnp.asarray(a), jnp.asarray(b)))
    scale = float(np.abs(a).sum() + np.abs(b).sum())
    assert abs(got - want) <= 1e-5 * scale + 1e-6
"""


def timed(cmd: list[str], cwd: str, env: dict) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode not in (0,):
        raise SystemExit(
            f"{cmd[:3]} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("submission", nargs="?", default=str(ROOT / "examples" / f"{TASK}.py"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--isolation-cost",
        action="store_true",
        help="also time `judge run --isolation process` in each round",
    )
    opts = ap.parse_args()
    from judge.bank import load_bank

    task = load_bank().get(TASK)
    shapes = distinct_shapes(task)
    sub = str(Path(opts.submission).resolve())
    work = tempfile.mkdtemp(prefix="judge-bench-")
    floor = Path(work, "floor.py")
    floor.write_text(FLOOR.format(entry=task.entrypoint, shapes=shapes))
    test = Path(work, "test_bench.py")
    test.write_text(
        textwrap.dedent(PYTEST.format(entry=task.entrypoint, sub=sub, ref=str(task.reference_path)))
    )
    memo = Path(work, "memo")
    memo.mkdir(mode=0o700)
    env = dict(os.environ, JAX_PLATFORMS="cpu", JUDGE_MEMO=str(memo))
    judge = [str(Path(sys.executable).parent / "judge"), "run", TASK, sub, "--format", "json"]
    timed(judge, work, env)  # the task's first run: fills the memo
    runs = {"judge": [], "cold": [], "floor": [], "pytest": []}
    if opts.isolation_cost:
        runs["process"] = []
    for _ in range(opts.rounds):
        runs["judge"].append(timed(judge, work, env))
        runs["cold"].append(timed(judge, work, dict(env, JUDGE_MEMO="off")))
        if opts.isolation_cost:
            runs["process"].append(timed(judge + ["--isolation", "process"], work, env))
        runs["floor"].append(
            timed([sys.executable, str(floor), sub], work, dict(env, OPENBLAS_NUM_THREADS="1"))
        )
        runs["pytest"].append(
            timed(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                work,
                env,
            )
        )
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(f"distinct shapes fed by the judge: {len(shapes)}; rounds: {opts.rounds}")
    for k in runs:
        print(f"  {k:<7} median {med[k]:.2f} s  (runs: {', '.join(f'{x:.2f}' for x in runs[k])})")
    # each round's ratio too: the machine's load drifts, and a round's runs share it
    for run in ("judge", "cold"):
        paired = {
            b: statistics.median(j / x for j, x in zip(runs[run], runs[b]))
            for b in ("pytest", "floor")
        }
        print(
            f"{run:<5} / pytest = {med[run] / med['pytest']:.2f}  (median of rounds' ratios "
            f"{paired['pytest']:.2f}; target <= 0.40)"
        )
        print(
            f"{run:<5} / floor  = {med[run] / med['floor']:.2f}  (median of rounds' ratios "
            f"{paired['floor']:.2f}; target <= 1.50)"
        )
    if opts.isolation_cost:
        ratio = statistics.median(j / p for j, p in zip(runs["judge"], runs["process"]))
        print(
            f"judge (default isolation) / judge --isolation process = "
            f"{med['judge'] / med['process']:.2f}  (median of rounds' ratios {ratio:.2f})"
        )
    print(json.dumps({k: round(v, 3) for k, v in med.items()}))


if __name__ == "__main__":
    main()
