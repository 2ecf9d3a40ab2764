"""A real `judge serve` process on a free loopback port, for the service's tests: a small
bank of its own (so a task being written elsewhere cannot break them), its own state
file, and the client a course site would use (httpx)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import yaml

ROOT = Path(__file__).resolve().parents[2]
JUDGE = str(Path(sys.executable).parent / "judge")
TASK = "cache_independent_count"
RIGHT = (ROOT / "examples" / f"{TASK}.py").read_text()
WRONG = (ROOT / "tasks" / TASK / "known" / "abs_sum.py").read_text()
LOOP = "def cache_independent_count(x_a, x_b):\n    while True:\n        pass\n"
CRASH = "import os\n\n\ndef cache_independent_count(x_a, x_b):\n    os.abort()\n"
LISTENING = re.compile(r"listening on (http://\S+)")


def make_bank(dst: Path, tasks=(TASK,)) -> Path:
    """These tasks of the shipped bank, as they are, in a bank folder of their own."""
    data = yaml.safe_load((ROOT / "tasks.yaml").read_text())
    data["tasks"] = [t for t in data["tasks"] if t["id"] in tasks]
    (dst / "reference").mkdir(parents=True)
    for task_id in tasks:
        shutil.copytree(ROOT / "tasks" / task_id, dst / "tasks" / task_id)
        shutil.copy(ROOT / "reference" / f"{task_id}.py", dst / "reference" / f"{task_id}.py")
    (dst / "tasks.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return dst


def unique(source: str, tag) -> str:
    """The same code under another content key (the service answers a repeat from its
    store)."""
    return f"{source}\n# {tag}\n"


class Server:
    def __init__(
        self,
        bank: Path,
        state: Path,
        *args: str,
        start_timeout_s: float = 120,
        env: dict | None = None,
    ):
        self.bank, self.state, self.args = bank, state, list(args)
        self.lines: list[str] = []
        cmd = [
            JUDGE,
            "--bank",
            str(bank),
            "serve",
            "--port",
            "0",
            "--state",
            str(state),
            *self.args,
        ]
        self.proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=bank,
            start_new_session=True,
            env=None if env is None else {**os.environ, **env},
        )
        self._listening = threading.Event()
        self.url = ""
        threading.Thread(target=self._read, daemon=True).start()
        if not self._listening.wait(start_timeout_s) or not self.url:
            self.kill()
            raise RuntimeError("judge serve did not start:\n" + self.log)
        self.http = httpx.Client(base_url=self.url, timeout=120)

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)
            found = LISTENING.search(line)
            if found:
                self.url = found.group(1)
                self._listening.set()
        self._listening.set()

    @property
    def log(self) -> str:
        return "".join(self.lines)

    # ------------------------------------------------------------ as a site calls it
    def submit(self, source: str, task: str = TASK, **fields) -> dict:
        answer = self.http.post("/v1/submissions", json={"task": task, "source": source, **fields})
        assert answer.status_code == 202, answer.text
        return answer.json()

    def result(self, sub_id: str, timeout_s: float = 240) -> dict:
        """The report, waiting for it with ?wait= as a site would."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            answer = self.http.get(f"/v1/submissions/{sub_id}", params={"wait": 30})
            if answer.status_code == 200:
                return answer.json()
            assert answer.status_code == 202, answer.text
        raise AssertionError(f"{sub_id} not graded within {timeout_s} s:\n{self.log}")

    def state_of(self, sub_id: str) -> str:
        return self.http.get(f"/v1/submissions/{sub_id}").headers["Judge-State"]

    def health(self) -> dict:
        return self.http.get("/healthz").json()

    def metric(self, name: str, **labels) -> float:
        from prometheus_client.parser import text_string_to_metric_families

        text = self.http.get("/metrics").text
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == name and all(
                    sample.labels.get(k) == v for k, v in labels.items()
                ):
                    return sample.value
        return 0.0

    def wait_warm(self, timeout_s: float = 180) -> dict:
        """Until every task's reference is warm and the learner pool is full."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            h = self.health()
            if (
                h["oracles_warm"] >= h["oracles_warm_target"]
                and h["workers_warm"] >= h["workers_warm_target"]
            ):
                return h
            time.sleep(0.2)
        raise AssertionError(f"the service did not warm up within {timeout_s} s: {h}")

    def worker_pids(self) -> list[int]:
        """Every process under the service (its workers and theirs)."""
        found, todo = [], [self.proc.pid]
        while todo:
            pid = todo.pop()
            for tid in _listdir(f"/proc/{pid}/task"):
                try:
                    kids = [
                        int(k) for k in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()
                    ]
                except OSError:
                    continue
                found += kids
                todo += kids
        return found

    # ------------------------------------------------------------ stopping
    def kill(self) -> None:
        """SIGKILL, as the machine's OOM killer or a crash would."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self, how: int = signal.SIGTERM) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(how)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode

    def close(self) -> None:
        self.stop()
        if hasattr(self, "http"):
            self.http.close()


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def alive(pids: list[int]) -> list[int]:
    """Those of these processes that still run (not gone, not zombies)."""
    out = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            out.append(pid)
    return out


def judge_run_json(
    bank: Path, task: str, source: str, tmp: Path, name="submission.py", isolation=None
) -> dict:
    """`judge run --format json` of the same source: what the service must agree with
    (``isolation``: the service's, read from its /healthz; None: $JUDGE_ISOLATION)."""
    path = tmp / name
    path.write_text(source)
    mode = ["--isolation", isolation] if isolation else []
    res = subprocess.run(
        [JUDGE, "--bank", str(bank), "run", task, str(path), "--format", "json", *mode],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return json.loads(res.stdout)
