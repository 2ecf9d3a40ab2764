"""What tasks on several devices cost, and that single-device tasks pay nothing for them.

Measured side by side, in paired rounds (medians of --rounds):
  single  `judge run cache_independent_count SUBMISSION` with this checkout against a
          baseline checkout (--baseline, a git ref, extracted to a temporary folder and
          run with the same Python): a task without `devices` must take as long as before
  start   a worker from spawn to ready (jax imported, its devices made), without
          `devices` and with `devices: 8`
  compile a process's first call of a jitted column sum on each of 8 shapes: one CPU
          device and an unsharded input, against eight forced devices and the rows split
  grade   `judge run col_mean` on its reference, against the same task with
          `devices`, `mesh`, `sharding` and the sharding and collectives checks taken
          out (one device, the same example and property checks)

    python benchmarks/bench_devices.py [--rounds 5] [--baseline REF]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SINGLE = "cache_independent_count"
SHARDED = "col_mean"

COMPILES = """
import sys, time
t0 = time.perf_counter()
import jax
devices = int(sys.argv[1])
if devices > 1:
    jax.config.update("jax_num_cpu_devices", devices)
import jax.numpy as jnp, numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
jax.devices()
boot = time.perf_counter() - t0
f = jax.jit(lambda x: jnp.sum(x, axis=0) / max(x.shape[0], 1))
mesh = jax.make_mesh((devices,), ("data",)) if devices > 1 else None
t1 = time.perf_counter()
for n in (8, 16, 24, 32, 40, 48, 56, 64):
    x = np.ones((n, 4), np.float32)
    x = jax.device_put(x, NamedSharding(mesh, P("data", None))) if mesh else jax.device_put(x)
    f(x).block_until_ready()
print(boot, (time.perf_counter() - t1) / 8)
"""


def timed(cmd: list[str], env: dict, cwd: str | None = None) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(
            f"{cmd[:4]} failed ({proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        )
    return elapsed


def baseline_checkout(ref: str) -> str:
    folder = tempfile.mkdtemp(prefix="judge-baseline-")
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    return folder


def bank_without_devices(folder: Path) -> Path:
    """The bank with col_mean on one device: no devices, mesh, sharding or their checks."""
    data = yaml.safe_load((ROOT / "tasks.yaml").read_text())
    for task in data["tasks"]:
        if task["id"] == SHARDED:
            task.pop("devices"), task.pop("mesh")
            for spec in task["args"].values():
                spec.pop("sharding", None)
            task["checks"] = [
                c for c in task["checks"] if c["kind"] not in ("sharding", "collectives")
            ]
    data["tasks"] = [t for t in data["tasks"] if t["id"] == SHARDED]
    (folder / "tasks" / SHARDED).mkdir(parents=True)
    shutil.copy(ROOT / "tasks" / SHARDED / "statement.md", folder / "tasks" / SHARDED)
    (folder / "reference").mkdir()
    (folder / "reference" / f"{SHARDED}.py").write_text(
        "import jax, jax.numpy as jnp\n\n@jax.jit\ndef col_mean(x):\n"
        "    return jnp.sum(x, axis=0) / max(x.shape[0], 1)\n"
    )
    (folder / "tasks.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


def worker_ready(devices: int | None) -> float:
    from judge.sandbox import Limits, Worker

    worker = Worker(Limits(), devices=devices)
    worker.start()
    try:
        worker.request({"op": "exit"})
        return worker.ready_s
    finally:
        worker.close()


def median(xs) -> float:
    return statistics.median(xs)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--baseline", default="main", help="git ref to compare single-device runs with")
    opts = ap.parse_args()
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    python = sys.executable
    submission = str(ROOT / "examples" / f"{SINGLE}.py")
    base = baseline_checkout(opts.baseline)
    work = Path(tempfile.mkdtemp(prefix="judge-bench-devices-"))
    one_device_bank = bank_without_devices(work / "bank")
    reference = str(ROOT / "reference" / f"{SHARDED}.py")
    runs: dict[str, list[float]] = {
        k: []
        for k in (
            "single_here",
            "single_baseline",
            "start_1",
            "start_8",
            "boot_1",
            "boot_8",
            "compile_1",
            "compile_8",
            "grade_8",
            "grade_1",
        )
    }
    for _ in range(opts.rounds):
        runs["single_here"].append(
            timed(
                [python, "-m", "judge", "run", SINGLE, submission, "--format", "json"],
                env,
                str(ROOT),
            )
        )
        runs["single_baseline"].append(
            timed(
                [python, "-m", "judge", "run", SINGLE, submission, "--format", "json"],
                dict(env, PYTHONPATH=base),
                base,
            )
        )
        runs["start_1"].append(worker_ready(None))
        runs["start_8"].append(worker_ready(8))
        for n in (1, 8):
            out = subprocess.run(
                [python, "-c", COMPILES, str(n)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            runs[f"boot_{n}"].append(float(out[0]))
            runs[f"compile_{n}"].append(float(out[1]))
        runs["grade_8"].append(
            timed(
                [python, "-m", "judge", "run", SHARDED, reference, "--format", "json"],
                env,
                str(ROOT),
            )
        )
        runs["grade_1"].append(
            timed(
                [
                    python,
                    "-m",
                    "judge",
                    "--bank",
                    str(one_device_bank),
                    "run",
                    SHARDED,
                    reference,
                    "--format",
                    "json",
                ],
                env,
                str(ROOT),
            )
        )
    med = {k: median(v) for k, v in runs.items()}

    def ratio(a, b):
        return median(x / y for x, y in zip(runs[a], runs[b]))

    print(f"rounds: {opts.rounds}; baseline: {opts.baseline}")
    print(
        f"single-device judge run ({SINGLE}): here {med['single_here']:.2f} s, baseline "
        f"{med['single_baseline']:.2f} s, here / baseline {ratio('single_here', 'single_baseline'):.2f}"
    )
    print(
        f"worker spawn to ready: 1 device {med['start_1']:.2f} s, 8 devices {med['start_8']:.2f} s "
        f"(x{ratio('start_8', 'start_1'):.2f}); jax import + devices in a bare process: "
        f"{med['boot_1']:.2f} s vs {med['boot_8']:.2f} s"
    )
    print(
        f"first call of a jitted column sum, per shape: 1 device {1000 * med['compile_1']:.0f} ms, "
        f"8 devices and rows split {1000 * med['compile_8']:.0f} ms (x{ratio('compile_8', 'compile_1'):.2f})"
    )
    print(
        f"judge run {SHARDED} (reference): 8 devices with sharding + collectives checks "
        f"{med['grade_8']:.2f} s, one device with examples + property only {med['grade_1']:.2f} s "
        f"(x{ratio('grade_8', 'grade_1'):.2f})"
    )
    print(json.dumps({k: round(v, 3) for k, v in med.items()}))
    shutil.rmtree(base, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
