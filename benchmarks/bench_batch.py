"""judge batch: --workers 2 against --workers 1, and against a pytest + hypothesis check
run per submission, one after another (what an instructor would script without it).

The script makes a bank of several tasks (clones of cache_independent_count under other
ids and seeds, so each has its own reference worker) and a class of submissions spread
over them: right, wrong, crashing, not loading, and an infinite loop.  Then, side by side
in one run (after one warm-up of each, so no side pays for a cold disk cache):

  workers=1  `judge --bank B batch CLASS --out O1 --workers 1`
  workers=2  `judge --bank B batch CLASS --out O2 --workers 2`
  pytest     per submission `timeout 20 pytest test_one.py`: hypothesis, 100 examples,
             lengths 0 to 64, compared with the reference (20 s: Exercism's window, so
             an infinite loop costs pytest no more than a careful instructor allows)

Each judge line also gives the machine's average busy cores during the run (Linux
/proc/stat): one grading keeps more than one core busy (its learner worker, the
reference worker alongside, XLA's threads), so on a small machine --workers 2 meets a
CPU ceiling before 2x.  With --rounds R the two judge runs alternate (1 2, 2 1, 1 2,
...) so that a change in the machine's load falls on both, and the medians are
compared; pytest runs once.

Targets (issue 5): workers=2 >= 1.7x faster than workers=1, >= 3x faster than pytest.

    python benchmarks/bench_batch.py [--submissions 40] [--tasks 3] [--examples N] [--rounds R]
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
TASK = "cache_independent_count"
KNOWN = ROOT / "tasks" / TASK / "known"

# The class's mix, cycled over learners and tasks: mostly real mistakes, some hostile.
KINDS = [
    ("right", (ROOT / "examples" / f"{TASK}.py").read_text()),
    ("abs_sum", (KNOWN / "abs_sum.py").read_text()),
    ("float64", (KNOWN / "float64_numpy.py").read_text()),
    ("first_plus_rest", (KNOWN / "first_plus_rest.py").read_text()),
    ("fresh_lambda", (KNOWN / "fresh_lambda.py").read_text()),
    ("hard_coded", (KNOWN / "hard_coded.py").read_text()),
    ("syntax_error", (KNOWN / "syntax_error.py").read_text()),
    ("infinite_loop", "def cache_independent_count(x_a, x_b):\n    while True:\n        pass\n"),
    ("mean_times_length", (KNOWN / "mean_times_length.py").read_text()),
    ("crash", "import os\n\n\ndef cache_independent_count(x_a, x_b):\n    os.abort()\n"),
    ("python_loop", (KNOWN / "python_loop.py").read_text()),
    ("wrong_name", (KNOWN / "wrong_name.py").read_text()),
    ("half_precision", (KNOWN / "half_precision.py").read_text()),
]

# the same hand-written check bench_run.py measures, per submission
from bench_run import PYTEST  # noqa: E402  (a sibling script)

PYTEST_TIMEOUT_S = 20


def make_bank(dst: Path, n_tasks: int) -> tuple[Path, list[str]]:
    """TASK and clones of it under new ids and seeds, each with its own reference."""
    data = yaml.safe_load((ROOT / "tasks.yaml").read_text())
    base = next(t for t in data["tasks"] if t["id"] == TASK)
    ids = [TASK] + [f"{TASK}_{i}" for i in range(2, n_tasks + 1)]
    data["tasks"] = [dict(base, id=task_id, seed=base["seed"] + i) for i, task_id in enumerate(ids)]
    (dst / "reference").mkdir(parents=True)
    for task_id in ids:
        shutil.copytree(ROOT / "tasks" / TASK, dst / "tasks" / task_id)
        shutil.copy(ROOT / "reference" / f"{TASK}.py", dst / "reference" / f"{task_id}.py")
    (dst / "tasks.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return dst, ids


def make_class(dst: Path, task_ids: list[str], n: int) -> list[tuple[str, Path]]:
    """``n`` submissions, learner-major: (task id, path) of each."""
    made = []
    for i in range(n):
        learner, task_id = divmod(i, len(task_ids))
        _, source = KINDS[i % len(KINDS)]
        path = dst / f"learner{learner:02d}" / f"{task_ids[task_id]}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        made.append((task_ids[task_id], path))
    return made


def busy_ticks() -> int:
    """CPU time spent by the whole machine so far (Linux), in clock ticks."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return sum(fields) - fields[3] - fields[4]  # all but idle and iowait


def judge_batch(
    bank: Path, cls: Path, out: Path, workers: int, examples: int | None, busy: list[float]
) -> float:
    """Wall time of one batch; appends the average number of busy cores during it to
    ``busy``: once that nears the core count, more workers cannot help."""
    cmd = [
        str(Path(sys.executable).parent / "judge"),
        "--bank",
        str(bank),
        "batch",
        str(cls),
        "--out",
        str(out),
        "--workers",
        str(workers),
    ]
    if examples:
        cmd += ["--examples", str(examples)]
    ticks, t0 = busy_ticks(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    busy.append((busy_ticks() - ticks) / os.sysconf("SC_CLK_TCK") / elapsed)
    if proc.returncode != 0:
        raise SystemExit(f"judge batch failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return elapsed


def pytest_serial(bank: Path, subs: list[tuple[str, Path]], work: Path) -> float:
    t0 = time.perf_counter()
    for i, (task_id, path) in enumerate(subs):
        test = work / f"test_sub{i:03d}.py"
        test.write_text(
            textwrap.dedent(
                PYTEST.format(
                    entry=TASK, sub=str(path), ref=str(bank / "reference" / f"{task_id}.py")
                )
            )
        )
        try:  # failures and crashes are the point; only a hang is cut short
            subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                cwd=work,
                capture_output=True,
                timeout=PYTEST_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            pass
    return time.perf_counter() - t0


def gradebook(out: Path) -> list[list[str]]:
    return list(csv.reader((out / "gradebook.csv").read_text().splitlines()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--submissions", type=int, default=40)
    ap.add_argument("--tasks", type=int, default=3)
    ap.add_argument(
        "--examples",
        type=int,
        default=None,
        help="--examples for the judge (default: the task's 100, as pytest runs)",
    )
    ap.add_argument("--rounds", type=int, default=1)
    opts = ap.parse_args()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    load_at_start = os.getloadavg()[0]  # other work on the machine skews every ratio
    work = Path(tempfile.mkdtemp(prefix="judge-bench-batch-"))
    bank, ids = make_bank(work / "bank", opts.tasks)
    subs = make_class(work / "class", ids, opts.submissions)
    warm = make_class(work / "warm", ids[:1], 1)
    judge_batch(bank, work / "warm", work / "out-warm", 1, opts.examples, [])
    pytest_serial(bank, warm, work)

    times: dict[int, list[float]] = {1: [], 2: []}
    busy: dict[int, list[float]] = {1: [], 2: []}
    books = []
    for r in range(opts.rounds):
        for workers in (1, 2) if r % 2 == 0 else (2, 1):
            out = work / f"out-w{workers}-r{r}"  # a fresh folder: nothing to resume
            times[workers].append(
                judge_batch(bank, work / "class", out, workers, opts.examples, busy[workers])
            )
            books.append(gradebook(out))
    tp = pytest_serial(bank, subs, work)
    t1, t2 = statistics.median(times[1]), statistics.median(times[2])
    same = all(b == books[0] for b in books)
    runs = lambda w: (
        ", ".join(f"{t:.1f}" for t in times[w])
        + f"; busy cores {statistics.median(busy[w]):.2f} of {os.cpu_count()}"
    )
    print(
        f"{len(subs)} submissions over {len(ids)} tasks, {os.cpu_count()} cores, "
        f"load average {load_at_start:.1f} at start, {os.getloadavg()[0]:.1f} at end; judge examples: "
        f"{opts.examples or 'task default (100)'}; rounds: {opts.rounds}"
    )
    print(f"  judge batch --workers 1   {t1:7.1f} s  (median of {runs(1)})")
    print(f"  judge batch --workers 2   {t2:7.1f} s  (median of {runs(2)})")
    print(f"  pytest per submission     {tp:7.1f} s  (serial, {PYTEST_TIMEOUT_S} s timeout each)")
    print(f"workers=2 vs workers=1: {t1 / t2:.2f}x faster  (target >= 1.7)")
    print(f"workers=2 vs pytest:    {tp / t2:.2f}x faster  (target >= 3)")
    print(f"gradebooks of all judge runs {'agree' if same else 'DIFFER'}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
