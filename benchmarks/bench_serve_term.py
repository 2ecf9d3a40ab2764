"""judge serve over a term: the four targets of issue 22, side by side in one run, on the
full bank (the checkout's, as `judge serve` serves it by default).

  first verdict   from starting `judge serve` (the process started) to the report of a
                  correct submission POSTed as soon as it listens, for a task nothing was
                  warmed for (references warm when first needed)      target <= 10 s
  idle memory     PSS of the service's whole process tree (its process, every worker
                  under it), idle: just after start, and after that first verdict (one
                  reference warm, the learner pool full)              target <= 1 GiB
  throughput      SUBMISSIONS mixed submissions (right, wrong, looping, crashing) over
                  five tasks from CLIENTS clients, against `judge batch --workers 2` on
                  the same files; both start cold                     target >= 1x
  p50             ROUNDS correct submissions, one at a time, against a cold `judge run`
                  of the same file (JUDGE_MEMO=off), alternating which goes first
                                                                      target <= 0.5x

The targets are for a quiet 2-core machine; the load average is printed at the start and
the end, so a run on a shared machine says how far from quiet it was.

    python benchmarks/bench_serve_term.py [--rounds 10] [--submissions 200] [--clients 20]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_serve import (  # noqa: E402
    RIGHT,
    TASK,
    TASKS,
    Service,
    batch_watched,
    cores_busy,
    judge_run,
    kb,
    machine_cpu_s,
    make_class,
    rush,
    tree,
)

FIRST_TASK = "bucketed_mean"  # not the bank's first task: nothing is warmed in order


def pss_mib(pid: int) -> float:
    return sum(kb(f"/proc/{p}/smaps_rollup", "Pss:") for p in tree(pid)) / 1024


def settle(service: Service, timeout_s: float = 300) -> dict:
    """Until nothing runs and the learner pool is full (what idle means)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        h = service.health()
        if (
            not h["running"]
            and not h["queue"]
            and h["workers_warm"] >= h["workers_warm_target"]
            and h["oracles_warm"] >= h["oracles_warm_target"]
        ):
            return h
        time.sleep(0.2)
    return h


def first_verdict_and_memory(work: Path) -> dict:
    from bench_serve import kinds_of

    source = kinds_of(FIRST_TASK)["right"] + "\n# first\n"
    t0 = time.perf_counter()
    service = Service(work / "first.sqlite")
    try:
        listening_s = time.perf_counter() - t0
        verdict = service.grade(service.http, FIRST_TASK, source)["verdict"]
        first_s = time.perf_counter() - t0
        assert verdict == "accepted", verdict
        h = settle(service)
        warm_one = pss_mib(service.proc.pid)
        processes = len(tree(service.proc.pid))
    finally:
        service.close()
    # idle at start: a fresh service, its pool full, nothing graded
    service = Service(work / "idle.sqlite")
    try:
        settle(service)
        time.sleep(2)
        at_start = pss_mib(service.proc.pid)
        start_processes = len(tree(service.proc.pid))
    finally:
        service.close()
    return {
        "listening_s": listening_s,
        "first_s": first_s,
        "idle_start_mib": at_start,
        "idle_start_processes": start_processes,
        "idle_warm_mib": warm_one,
        "idle_warm_processes": processes,
        "health": h,
    }


def latency(work: Path, rounds: int) -> dict:
    service = Service(work / "latency.sqlite")
    serve_s, cold_s = [], []
    try:
        for r in range(rounds + 1):  # round 0 warms the reference, the disk
            source = RIGHT + f"\n# round {r}\n"
            path = work / f"round{r}.py"
            path.write_text(source)
            for side in ("serve", "cold") if r % 2 else ("cold", "serve"):
                settle(service)
                if side == "serve":
                    t0 = time.perf_counter()
                    verdict = service.grade(service.http, TASK, source)["verdict"]
                    elapsed = time.perf_counter() - t0
                else:
                    elapsed, verdict = judge_run(path, "off")
                assert verdict == "accepted", (side, verdict)
                if r:
                    (serve_s if side == "serve" else cold_s).append(elapsed)
    finally:
        service.close()
    p50 = lambda xs: sorted(xs)[max(0, math.ceil(0.5 * len(xs)) - 1)]
    return {"serve_p50": p50(serve_s), "cold_p50": p50(cold_s), "rounds": rounds}


def throughput(work: Path, n: int, clients: int, forked: bool) -> dict:
    subs = make_class(work / "class", n)
    service = Service(work / "throughput.sqlite", "--workers", "2")
    try:
        served = rush(service, subs, clients)
    finally:
        service.close()
    machine0 = machine_cpu_s()
    batch_s, batch_watch = batch_watched(work)
    batch_cpu = machine_cpu_s() - machine0
    batch = {
        (r["learner"], r["task"]): r["verdict"]
        for r in map(json.loads, (work / "batch-out" / "results.jsonl").read_text().splitlines())
    }
    differ = sum(
        v != batch.get((s["learner"], s["task"])) for s, v in zip(subs, served["verdicts"])
    )
    # the batch with the service's forked workers: what the fork server is worth alone
    forked_s = None
    if forked:
        forked_s, _ = batch_watched(work, "--isolation", "forked", out="batch-forked")
    return {
        "forked_batch_s": forked_s,
        "isolation": served["isolation"],
        "serve_s": served["s"],
        "batch_s": batch_s,
        "n": n,
        "differ": differ,
        "peak_mib": served["watch"].peak_tree_kb / 1024,
        "batch_peak_mib": batch_watch.peak_tree_kb / 1024,
        # how busy the machine was: the two can only differ by CPU spent per grading
        # where both keep every core busy
        "serve_busy": cores_busy(served["cpu"], served["s"]),
        "batch_busy": cores_busy(batch_cpu, batch_s),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--submissions", type=int, default=200)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument(
        "--forked-batch",
        action="store_true",
        help="also time `judge batch --workers 2 --isolation forked` on the same files",
    )
    opts = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="judge-bench-term-"))
    load0 = os.getloadavg()[0]
    print(
        f"{os.cpu_count()} cores, load average {load0:.2f} at start; the full bank; "
        f"{opts.submissions} submissions over {len(TASKS)} tasks, {opts.rounds} latency rounds"
    )
    try:
        first = first_verdict_and_memory(work)
        lat = latency(work, opts.rounds)
        tp = throughput(work, opts.submissions, opts.clients, opts.forked_batch)
    finally:
        load1 = os.getloadavg()[0]
        shutil.rmtree(work, ignore_errors=True)
    rows = [
        (
            "first verdict after start",
            f"{first['first_s']:.1f} s",
            f"(listening after {first['listening_s']:.1f} s)",
            "<= 10 s",
            first["first_s"] <= 10,
        ),
        (
            "idle memory, just started",
            f"{first['idle_start_mib']:.0f} MiB PSS",
            f"({first['idle_start_processes']} processes)",
            "<= 1024 MiB",
            first["idle_start_mib"] <= 1024,
        ),
        (
            "idle memory, one task graded",
            f"{first['idle_warm_mib']:.0f} MiB PSS",
            f"({first['idle_warm_processes']} processes)",
            "<= 1024 MiB",
            first["idle_warm_mib"] <= 1024,
        ),
        (
            f"throughput, {tp['n']} mixed",
            f"{tp['batch_s'] / tp['serve_s']:.2f}x batch",
            f"(serve {tp['serve_s']:.0f} s, {tp['isolation']} workers; batch --workers 2 "
            f"{tp['batch_s']:.0f} s"
            + (
                f", batch --isolation forked {tp['forked_batch_s']:.0f} s"
                if tp["forked_batch_s"]
                else ""
            )
            + f"; {tp['differ']} verdicts differ; peak {tp['peak_mib']:.0f} MiB, "
            f"batch {tp['batch_peak_mib']:.0f} MiB; both watched alike; cores busy "
            f"{tp['serve_busy']:.0%} and {tp['batch_busy']:.0%})",
            ">= 1x",
            tp["batch_s"] >= tp["serve_s"],
        ),
        (
            "p50 vs cold judge run",
            f"{lat['serve_p50'] / lat['cold_p50']:.2f}x",
            f"(serve {lat['serve_p50']:.2f} s, cold {lat['cold_p50']:.2f} s, "
            f"{lat['rounds']} rounds)",
            "<= 0.5x",
            lat["serve_p50"] <= 0.5 * lat["cold_p50"],
        ),
    ]
    width = max(len(r[0]) for r in rows)
    print()
    for name, value, detail, target, met in rows:
        print(
            f"  {name:<{width}}  {value:>16}  target {target:<12} "
            f"{'met' if met else 'NOT met'}  {detail}"
        )
    print(
        f"\nload average {load0:.2f} at start, {load1:.2f} at end "
        "(the targets are for a quiet 2-core machine)"
    )


if __name__ == "__main__":
    main()
