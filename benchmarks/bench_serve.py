"""judge serve: how soon a verdict comes back, and how many gradings a minute it holds.

Latency (side by side in one run, rounds alternating which goes first):
  serve  POST a correct cache_independent_count submission, then GET ?wait= until its
         report is there: from the POST to the report, on a warm service (its learner
         pool full and the task's reference warm; between rounds it is let refill, as
         between two learners' clicks)
  cold   `judge run cache_independent_count SAME_FILE --format json`, wall time, with
         JUDGE_MEMO=off: nothing warm, the reference's worker started and every answer
         computed (a task's first run on a machine)
  memo   the same `judge run` answered from the reference's memo (every later run)
  Each submission is the same code under a new comment (the service answers a repeat
  from its store at no cost: that would not be a grading).  p50 and p95 of each.
  Target (issue 15): serve p50 <= 0.5 x cold p50.
  Then the same number of submissions back to back (the next POST as soon as the last
  report is in, so the pool refills while it grades): what a queue of one learner sees.

Throughput: SUBMISSIONS submissions (right, wrong, looping, crashing) over five tasks,
  each a distinct file, sent by CLIENTS concurrent clients on loopback (a 503 is retried
  after its Retry-After); every verdict is compared with `judge run`'s on the same code
  and with `judge batch`'s on the same files, none may be lost; the service's memory
  (its process and every worker under it, PSS) is sampled throughout; gradings a
  minute are compared with `judge batch --workers 2` on the same files, and with the
  service sending its gradings to a local Dask cluster of two worker processes.  The service
  is warm before the rush (that is its point); the batch starts cold (that is its way).

    python benchmarks/bench_serve.py [--rounds 30] [--submissions 200] [--clients 20]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
JUDGE = str(Path(sys.executable).parent / "judge")
TASK = "cache_independent_count"
RIGHT = (ROOT / "examples" / f"{TASK}.py").read_text()
TASKS = {  # task -> two known wrong answers
    "cache_independent_count": ["abs_sum.py", "hard_coded.py"],
    "bucketed_mean": ["divide_by_bucket.py", "edge_padding.py"],
    "masked_row_sums": ["off_by_one.py", "cumsum_minus_one.py"],
    "scale_preserve_dtype": ["atleast_1d.py", "strong_factor.py"],
    "canonical_pair_sum": ["first_twice.py", "rows_loop.py"],
}
# of every 20 submissions of a task: 13 right, 4 wrong, 1 looping, 2 crashing
MIX = [
    "right",
    "wrong",
    "right",
    "crashing",
    "right",
    "right",
    "wrong",
    "right",
    "looping",
    "right",
    "right",
    "wrong",
    "right",
    "crashing",
    "right",
    "right",
    "wrong",
    "right",
    "right",
    "right",
]
LISTENING = re.compile(r"listening on (http://\S+)")


# ---------------------------------------------------------------- the service
class Service:
    def __init__(self, state: Path, *args: str):
        self.proc = subprocess.Popen(
            [JUDGE, "serve", "--port", "0", "--state", str(state), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.url = None
        for line in self.proc.stdout:
            found = LISTENING.search(line)
            if found:
                self.url = found.group(1)
                break
        if self.url is None:
            raise SystemExit("judge serve did not start")
        threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()
        self.http = httpx.Client(base_url=self.url, timeout=120)

    def health(self) -> dict:
        return self.http.get("/healthz").json()

    def wait_warm(self, timeout_s: float = 600) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            h = self.health()
            if (
                h["oracles_warm"] >= h["oracles_warm_target"]
                and h["workers_warm"] >= h["workers_warm_target"]
                and not h["running"]
            ):
                return
            time.sleep(0.1)
        raise SystemExit(f"the service did not warm up: {h}")

    def grade(self, http: httpx.Client, task: str, source: str) -> dict:
        while True:
            answer = http.post("/v1/submissions", json={"task": task, "source": source})
            if answer.status_code == 503:
                time.sleep(int(answer.headers.get("Retry-After", "1")))
                continue
            answer.raise_for_status()
            break
        sub_id = answer.json()["id"]
        while True:
            got = http.get(f"/v1/submissions/{sub_id}", params={"wait": 60})
            if got.status_code == 200:
                return got.json()

    def close(self) -> None:
        self.http.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def tree(pid: int) -> list[int]:
    found, todo = [pid], [pid]
    while todo:
        p = todo.pop()
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                kids = [int(k) for k in Path(f"/proc/{p}/task/{tid}/children").read_text().split()]
            except OSError:
                continue
            found += kids
            todo += kids
    return found


def own_cpu_s(pid: int) -> float:
    """User + system CPU of one process so far (its own threads, not its children)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(x) for x in fields[11:13]) / os.sysconf("SC_CLK_TCK")


def machine_cpu_s() -> float:
    """Busy CPU of the whole machine so far (every core, from /proc/stat).  Not the
    process tree's own: a worker's time, reaped through bwrap and its namespace's init,
    reaches no rusage the benchmark can read (the trees' sums said 80 s where process
    accounting counted 450), and the benchmark runs the two side by side alone."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, idle, iowait, irq, softirq = fields[:7]  # not steal: another VM's
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK")


def cores_busy(cpu_s: float, wall_s: float) -> float:
    """The share of every core that ``cpu_s`` of the machine's CPU kept busy for ``wall_s``."""
    return cpu_s / wall_s / (os.cpu_count() or 1)


def kb(path: str, field: str) -> int:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class MemoryWatch:
    """Peak PSS of the service's whole process tree, and RSS of its own process."""

    def __init__(self, pid: int):
        self.pid, self.peak_tree_kb, self.peak_front_kb = pid, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            pss = sum(kb(f"/proc/{p}/smaps_rollup", "Pss:") for p in tree(self.pid))
            self.peak_tree_kb = max(self.peak_tree_kb, pss)
            self.peak_front_kb = max(self.peak_front_kb, kb(f"/proc/{self.pid}/status", "VmRSS:"))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def batch_watched(work: Path, *extra: str, out: str = "batch-out") -> tuple[float, MemoryWatch]:
    """``judge batch --workers 2`` on ``work``/class, under the same MemoryWatch as the
    service's rush: the watch reads every process's smaps_rollup twice a second, about a
    tenth of a core on two cores (measured: 9 s of system CPU in a 90 s rush), so a
    throughput ratio with only the service watched charges it for the benchmark's own
    sampling.  Its results are in ``work``/``out``; the seconds it took, and the watch.
    ``extra``: more of the batch's options (``--isolation forked``)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [JUDGE, "batch", str(work / "class"), "--out", str(work / out), "--workers", "2", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watch = MemoryWatch(proc.pid)
    _, err = proc.communicate()
    elapsed = time.perf_counter() - t0
    watch.stop()
    if proc.returncode not in (0, 3):
        raise SystemExit(f"judge batch failed ({proc.returncode}):\n{err[-3000:]}")
    return elapsed, watch


# ---------------------------------------------------------------- latency
def judge_run(path: Path, memo: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    res = subprocess.run(
        [JUDGE, "run", TASK, str(path), "--format", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, "JUDGE_MEMO": memo},
    )
    return time.perf_counter() - t0, json.loads(res.stdout)["verdict"]


def latency(work: Path, rounds: int) -> None:
    service = Service(work / "latency.sqlite")
    try:
        service.wait_warm()
        http = service.http
        times: dict[str, list[float]] = {"serve": [], "cold": [], "memo": []}
        memo = work / "memo"
        memo.mkdir(mode=0o700, exist_ok=True)
        for r in range(rounds + 1):  # round 0 warms the disk cache
            source = RIGHT + f"\n# round {r}\n"
            path = work / f"round{r}.py"
            path.write_text(source)
            sides = ("serve", "cold", "memo")
            for side in sides[r % 3 :] + sides[: r % 3]:
                service.wait_warm()  # neither side pays the other's refill
                if side == "serve":
                    t0 = time.perf_counter()
                    verdict = service.grade(http, TASK, source)["verdict"]
                    elapsed = time.perf_counter() - t0
                else:
                    elapsed, verdict = judge_run(path, "off" if side == "cold" else str(memo))
                assert verdict == "accepted", (side, verdict)
                if r:
                    times[side].append(elapsed)
        serve_s, cold_s, memo_s = times["serve"], times["cold"], times["memo"]
        back_s = []
        service.wait_warm()
        for r in range(rounds):
            t0 = time.perf_counter()
            verdict = service.grade(http, TASK, RIGHT + f"\n# back to back {r}\n")["verdict"]
            back_s.append(time.perf_counter() - t0)
            assert verdict == "accepted"
    finally:
        service.close()
    p = lambda xs, q: sorted(xs)[min(len(xs) - 1, math.ceil(q * len(xs)) - 1)]
    print(f"latency, {rounds} sequential correct {TASK} submissions:")
    print(f"  serve (POST -> report)   p50 {p(serve_s, 0.5):.3f} s   p95 {p(serve_s, 0.95):.3f} s")
    print(f"  cold judge run           p50 {p(cold_s, 0.5):.3f} s   p95 {p(cold_s, 0.95):.3f} s")
    print(f"  judge run from its memo  p50 {p(memo_s, 0.5):.3f} s   p95 {p(memo_s, 0.95):.3f} s")
    print(f"  serve back to back       p50 {p(back_s, 0.5):.3f} s   p95 {p(back_s, 0.95):.3f} s")
    print(f"serve p50 / cold p50: {p(serve_s, 0.5) / p(cold_s, 0.5):.2f}x  (target <= 0.5)")
    print(f"serve p50 / memo p50: {p(serve_s, 0.5) / p(memo_s, 0.5):.2f}x")


# ---------------------------------------------------------------- throughput
def entrypoint(task: str) -> str:
    import yaml

    data = yaml.safe_load((ROOT / "tasks.yaml").read_text())
    return next(t.get("entrypoint", t["id"]) for t in data["tasks"] if t["id"] == task)


def kinds_of(task: str) -> dict[str, str]:
    entry = entrypoint(task)
    known = ROOT / "tasks" / task / "known"
    return {
        "right": (ROOT / "reference" / f"{task}.py").read_text(),
        "wrong0": (known / TASKS[task][0]).read_text(),
        "wrong1": (known / TASKS[task][1]).read_text(),
        "looping": f"def {entry}(*args, **kwargs):\n    while True:\n        pass\n",
        "crashing": f"import os\n\n\ndef {entry}(*args, **kwargs):\n    os.abort()\n",
    }


def make_class(dst: Path, n: int) -> list[dict]:
    subs = []
    kinds = {task: kinds_of(task) for task in TASKS}
    for i in range(n):
        task = list(TASKS)[i % len(TASKS)]
        kind = MIX[(i // len(TASKS)) % len(MIX)]
        if kind == "wrong":
            kind = f"wrong{(i // len(TASKS) // len(MIX) + i) % 2}"
        learner = f"learner{i:03d}"
        source = kinds[task][kind] + f"\n# {learner}\n"
        path = dst / learner / f"{task}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source)
        subs.append({"learner": learner, "task": task, "kind": kind, "source": source})
    return subs


def judge_run_verdicts(work: Path, subs: list[dict]) -> dict[tuple[str, str], str]:
    """`judge run` on one file of each task and kind (the others differ by a comment)."""
    found: dict[tuple[str, str], str] = {}
    for sub in subs:
        key = (sub["task"], sub["kind"])
        if key not in found:
            path = work / "runs" / f"{sub['task']}-{sub['kind']}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(sub["source"])
            res = subprocess.run(
                [JUDGE, "run", sub["task"], str(path), "--format", "json"],
                capture_output=True,
                text=True,
            )
            found[key] = json.loads(res.stdout)["verdict"]
    return found


def rush(service: Service, subs: list[dict], clients: int) -> dict:
    """Every submission from ``clients`` concurrent clients; the verdicts in order."""
    service.wait_warm()
    watch = MemoryWatch(service.proc.pid)
    front0, machine0 = own_cpu_s(service.proc.pid), machine_cpu_s()
    local = threading.local()

    def one(sub):
        if not hasattr(local, "http"):
            local.http = httpx.Client(base_url=service.url, timeout=120)
        return service.grade(local.http, sub["task"], sub["source"])["verdict"]

    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        verdicts = list(pool.map(one, subs))
    elapsed = time.perf_counter() - t0
    watch.stop()
    return {
        "verdicts": verdicts,
        "s": elapsed,
        "watch": watch,
        "front_cpu": own_cpu_s(service.proc.pid) - front0,
        "cpu": machine_cpu_s() - machine0,
        "graded": service.health()["graded"],
        "isolation": service.health().get("isolation", "?"),
    }


def on_dask(work: Path, subs: list[dict], clients: int) -> dict:
    """The same rush with the gradings on a local Dask cluster of two worker processes."""
    import distributed

    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        local_directory=str(work / "dask"),
    ) as cluster:
        service = Service(
            work / "dask.sqlite", "--scheduler", cluster.scheduler_address, "--workers", "2"
        )
        try:
            return rush(service, subs, clients)
        finally:
            service.close()


def throughput(work: Path, n: int, clients: int, dask: bool) -> None:
    subs = make_class(work / "class", n)
    expected = judge_run_verdicts(work, subs)
    load = os.getloadavg()[0]

    service = Service(work / "throughput.sqlite", "--workers", "2")
    try:
        local = rush(service, subs, clients)
    finally:
        service.close()
    served, serve_s, watch, graded = local["verdicts"], local["s"], local["watch"], local["graded"]
    front_cpu, serve_cpu = local["front_cpu"], local["cpu"]

    machine0 = machine_cpu_s()
    batch_s, batch_watch = batch_watched(work)
    batch_cpu = machine_cpu_s() - machine0
    batch = {
        (r["learner"], r["task"]): r["verdict"]
        for r in map(json.loads, (work / "batch-out" / "results.jsonl").read_text().splitlines())
    }

    wrong_run = [
        (s["learner"], s["task"], s["kind"], v, expected[(s["task"], s["kind"])])
        for s, v in zip(subs, served)
        if v != expected[(s["task"], s["kind"])]
    ]
    wrong_batch = [
        (s["learner"], s["task"], v, batch.get((s["learner"], s["task"])))
        for s, v in zip(subs, served)
        if v != batch.get((s["learner"], s["task"]))
    ]
    counts: dict[str, int] = {}
    for v in served:
        counts[v] = counts.get(v, 0) + 1
    print(
        f"throughput, {n} submissions over {len(TASKS)} tasks from {clients} clients "
        f"(load average {load:.1f} before):"
    )
    print(f"  verdicts: {', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}")
    print(
        f"  serve --workers 2        {serve_s:7.1f} s  {n / serve_s * 60:6.1f} gradings/min  "
        f"({graded} graded, {n - len(served)} lost)"
    )
    print(f"  judge batch --workers 2  {batch_s:7.1f} s  {n / batch_s * 60:6.1f} gradings/min")
    print(f"  serve vs batch: {batch_s / serve_s:.2f}x the gradings a minute")
    print(
        f"  CPU of the whole machine: serve {serve_cpu:.0f} s (the service's own process "
        f"{front_cpu:.0f} s), batch {batch_cpu:.0f} s; busy {cores_busy(serve_cpu, serve_s):.0%} "
        f"and {cores_busy(batch_cpu, batch_s):.0%} of the cores"
    )
    if dask:
        remote = on_dask(work, subs, clients)
        same = sum(v == expected[(s["task"], s["kind"])] for s, v in zip(subs, remote["verdicts"]))
        print(
            f"  serve on Dask (2 workers)  {remote['s']:5.1f} s  "
            f"{n / remote['s'] * 60:6.1f} gradings/min  ({remote['graded']} graded; verdicts "
            f"equal to judge run's: {same} of {n})"
        )
    print(
        f"  peak memory: {watch.peak_tree_kb / 1024:.0f} MiB PSS for the service and every "
        f"worker under it; {watch.peak_front_kb / 1024:.0f} MiB RSS for the service's own process; "
        f"batch {batch_watch.peak_tree_kb / 1024:.0f} MiB PSS (both watched alike)"
    )
    print(
        f"  verdicts equal to judge run's: {n - len(wrong_run)} of {n}"
        + (f"; differ: {wrong_run[:5]}" if wrong_run else "")
    )
    print(
        f"  verdicts equal to judge batch's: {n - len(wrong_batch)} of {n}"
        + (f"; differ: {wrong_batch[:5]}" if wrong_batch else "")
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--submissions", type=int, default=200)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--only", choices=["latency", "throughput"])
    ap.add_argument(
        "--no-dask",
        action="store_true",
        help="skip the throughput run on a local Dask cluster of two workers",
    )
    opts = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="judge-bench-serve-"))
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")
    try:
        if opts.only in (None, "latency"):
            latency(work, opts.rounds)
        if opts.only in (None, "throughput"):
            throughput(work, opts.submissions, opts.clients, not opts.no_dask)
    finally:
        print(f"load average {os.getloadavg()[0]:.2f} at end")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
