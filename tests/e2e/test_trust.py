"""Attacks written as a determined learner (tests/attacks/), graded end to end with the
real `judge run` and `judge batch`, in every isolation mode this machine can run.

What must hold for each: no wrong answer accepted, no secret read, no host file
written, no honest learner's (or the reference's) result changed, exactly one report
within the run limit + 5 s, and nothing left behind: no process, no file in /tmp,
/var/tmp or /dev/shm.  The gradings run a few at once, in one module fixture.
"""

from __future__ import annotations

import concurrent.futures
import glob
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from judge.sandbox import forked_unavailable
from judge.sandbox.clock import WALL_FACTOR

from helpers import TESTS
from helpers.isolation_modes import MODES

pytestmark = pytest.mark.slow  # end to end: a judge process per attack and mode

HERE = TESTS
ATTACKS = HERE / "attacks"
REPO = HERE.parent
SECRET = "jj-trust-secret-4f1c9a"
RUN_LIMIT_S = 30  # the trust bank's run_timeout_s
CANARY_GLOBS = [
    "/tmp/jj_trust_*",
    "/var/tmp/jj_trust_*",
    "/dev/shm/jj_trust_*",
    str(REPO / "judge" / "jj_trust_*"),
]


@dataclass
class Run:
    rc: int
    stdout: str
    stderr: str
    wall_s: float
    peak_rss_mb: float  # the judge process's own, sampled while it ran
    load: float = 0.0  # the machine's load average (1 min) when it ended

    @property
    def report(self) -> dict:
        return json.loads(self.stdout)  # exactly one JSON object, or this fails

    def got(self) -> str:
        """What the attack said it achieved (its 'got:' lines)."""
        out = self.report["output"]["stdout"]
        return "\n".join(line for line in out.splitlines() if line.startswith("got:"))


def _contained() -> list[str]:
    """The judge under test runs in a pid namespace of its own when this machine allows
    it: an attack that got through (kill(-1), SIGSTOP to every process) then reaches
    only that judge and its workers, never the rest of the machine."""
    unshare = shutil.which("unshare")
    if (
        unshare
        and os.geteuid() == 0
        and subprocess.run(
            [unshare, "--pid", "--fork", "--mount-proc", "true"], capture_output=True
        ).returncode
        == 0
    ):
        # sh is the namespace's init: the judge must not be, or the kernel itself would
        # shield it from signals sent inside the namespace
        return [
            unshare,
            "--pid",
            "--fork",
            "--mount-proc",
            "--kill-child",
            "sh",
            "-c",
            '"$@"; exit $?',
            "sh",
        ]
    return []


CONTAINED = _contained()

# As root, process mode gives each worker a uid of its own only when that uid can reach
# the Python installation; a Python under /root (0700) cannot be.  The "process-uid"
# variant grades in a mount namespace where /root is passable (its entries bound onto a
# 0755 tmpfs), so that path is tried too wherever the machine lets the test do that.
_PASSABLE_ROOT = (
    'if [ "$(stat -c %a /root)" = 700 ]; then d=$(mktemp -d) && mount --bind /root "$d" && '
    'mount -t tmpfs -o mode=755 tmpfs /root && for e in "$d"/* "$d"/.[!.]*; do '
    '[ -e "$e" ] || continue; n=/root/$(basename "$e"); '
    'if [ -d "$e" ]; then mkdir "$n"; else touch "$n"; fi; mount --bind "$e" "$n"; done; fi; '
    '"$@"; exit $?'
)
# forked: workers of one warm sandbox, kept apart by their own Landlock domains
FORKED = [] if forked_unavailable() else ["forked"]
VARIANTS = MODES + FORKED + (["process-uid"] if CONTAINED and os.geteuid() == 0 else [])


def judge(
    args: list[str], timeout: float = 120, env: dict | None = None, variant: str | None = None
) -> Run:
    prefix = CONTAINED
    if variant == "process-uid":
        prefix = CONTAINED[:-4] + ["sh", "-c", _PASSABLE_ROOT, "sh"]
    cmd = [*prefix, sys.executable, "-m", "judge", *args]
    env = dict(os.environ, JJ_TRUST_SECRET=SECRET, **(env or {}))
    t = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)
    peak = [0]

    def target() -> int:
        """The judge's own process (under unshare and sh when contained)."""
        todo = [proc.pid]
        while todo:
            pid = todo.pop(0)
            try:
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
                if "python" in os.path.basename(argv[0].decode()) and b"judge" in argv[1:3]:
                    return pid
                todo += [
                    int(k) for k in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
                ]
            except (OSError, ValueError):
                pass
        return proc.pid

    def watch():
        while proc.poll() is None:
            try:
                status = Path(f"/proc/{target()}/status").read_text()
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        peak[0] = max(peak[0], int(line.split()[1]))
            except (OSError, ValueError):
                pass
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    watcher.join()
    return Run(
        proc.returncode,
        out.decode(errors="replace"),
        err.decode(errors="replace"),
        time.monotonic() - t,
        peak[0] / 1024,
        os.getloadavg()[0],
    )


def _canaries() -> list[str]:
    """Files the attacks drop where they must not be able to (tests/attacks/write_host.py)."""
    import numpy

    numpy_dir = os.path.dirname(numpy.__file__)
    globs = CANARY_GLOBS + [
        os.path.join(numpy_dir, "jj_trust_*"),
        os.path.join(os.path.dirname(numpy_dir), "jj_trust_*"),
    ]
    return sorted(p for g in globs for p in glob.glob(g))


def _processes_mentioning(text: str) -> list[int]:
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if text.encode() in cmd and int(name) != os.getpid():
            found.append(int(name))
    return found


@pytest.fixture(scope="module")
def bank(tmp_path_factory) -> Path:
    """A copy of the trust bank at a path of its own: every worker's command line names
    it, so a process left behind is found by it."""
    root = tmp_path_factory.mktemp("trust") / "bank"
    shutil.copytree(HERE / "trust_bank", root)
    return root


ATTACK_NAMES = [
    "own_the_judge",
    "other_workers",
    "find_reference",
    "write_host",
    "hoard_shm",
    "hoard_setsid",
    "fork_bomb",
    "fill_scratch",
    "huge_reply",
    "break_worker",
    "pin_to_one_cpu",
]


FORKING_ATTACKS = {"hoard_setsid", "fork_bomb", "pin_to_one_cpu"}
BACKSTOPS = {"JUDGE_WORKER_PROCESSES": "allowed"}


def _backstop_of_another_mode(name: str, mode: str) -> bool:
    """The forking attacks test the backstops behind the refusal of processes, lifted
    for them; a forked worker has no such backstop to test: it cannot exist without
    the refusal (tests/integration/test_forked.py shows the refusal itself)."""
    return mode == "forked" and name in FORKING_ATTACKS


def _run_of(graded, name: str, mode: str) -> Run:
    if _backstop_of_another_mode(name, mode):
        pytest.skip("forked workers start no process: no backstop behind that to test")
    return graded[0][(name, mode)]


@pytest.fixture(scope="module")
def graded(bank):
    assert _canaries() == [], "canaries exist before the attacks ran"
    jobs = {
        (name, mode): [
            "--bank",
            str(bank),
            "run",
            "double",
            str(ATTACKS / f"{name}.py"),
            "--format",
            "json",
            "--isolation",
            mode.removesuffix("-uid"),
        ]
        + (["--examples", "40"] if name == "huge_reply" else [])
        for name in ATTACK_NAMES
        for mode in VARIANTS
        if not _backstop_of_another_mode(name, mode)
    }
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        # the worker refuses to start processes (judge/worker/confine.py); these attacks
        # test the backstops behind that refusal, so they run with it lifted
        futures = {
            job: pool.submit(
                judge, args, variant=job[1], env=BACKSTOPS if job[0] in FORKING_ATTACKS else None
            )
            for job, args in jobs.items()
        }
        runs = {job: f.result() for job, f in futures.items()}
    time.sleep(0.5)
    after = {"canaries": _canaries(), "processes": _processes_mentioning(str(bank))}
    for path in after["canaries"]:  # do not leave them for the next test run
        os.unlink(path)
    return runs, after


def _one_report_in_time(run: Run) -> dict:
    """One report, within the run limit + 5 s on a quiet machine; on a busy one the
    clock stretches with the load (the limits count the code's own time), never past
    the judge's wall-clock backstop."""
    assert run.rc in (0, 1), (run.rc, run.stderr[-2000:])
    report = run.report
    quiet = run.load <= len(os.sched_getaffinity(0))
    assert run.wall_s <= (RUN_LIMIT_S + 5 if quiet else WALL_FACTOR * RUN_LIMIT_S), (
        run.wall_s,
        run.load,
    )
    return report


# ---------------------------------------------------------------- what held


@pytest.mark.parametrize("mode", VARIANTS)
def test_the_judge_survives_and_is_not_forged(graded, mode):
    """Killing, stopping or writing to the judge; reading its environment and memory."""
    run = graded[0][("own_the_judge", mode)]
    report = _one_report_in_time(run)  # one JSON object: nothing forged beside it
    assert report["verdict"] == "wrong_answer" and run.rc == 1
    assert SECRET not in run.stdout and SECRET not in run.stderr
    if mode.startswith("process"):
        # (under bubblewrap its parent is the sandbox's own init: nothing there to take)
        assert "forged" not in run.got() and "judge mem" not in run.got()


@pytest.mark.parametrize("mode", VARIANTS)
def test_other_workers_are_out_of_reach(graded, mode):
    run = graded[0][("other_workers", mode)]
    report = _one_report_in_time(run)
    assert report["verdict"] == "accepted", report["checks"]  # the reference lived on
    read = {w for w in run.got().split("READ-MEMORY ")[1:]}
    # under bubblewrap the only other process it sees is the sandbox's own init (pid 1);
    # forked, its warm sandbox's server is in sight and out of reach
    assert {r.split()[0] for r in read} <= ({"1"} if mode == "bubblewrap" else set()), run.got()


@pytest.mark.parametrize("mode", VARIANTS)
def test_no_reference_is_found(graded, mode):
    run = graded[0][("find_reference", mode)]
    report = _one_report_in_time(run)
    assert report["verdict"] == "wrong_answer", run.got()
    assert "USING" not in run.got()
    assert "_bank" not in run.got() and ".git" not in run.got(), run.got()


@pytest.mark.parametrize("mode", VARIANTS)
def test_the_host_is_not_written(graded, mode):
    run = graded[0][("write_host", mode)]
    report = _one_report_in_time(run)
    assert report["verdict"] == "accepted", report["checks"]
    got = run.got()
    for forbidden in (
        "umount",
        "remount",
        "bind / over",
        "judge package",
        "site .pth",
        "numpy package",
    ):
        assert forbidden not in got, got
    assert graded[1]["canaries"] == [], "a file outlived the run, or was written on the host"


@pytest.mark.parametrize("mode", VARIANTS)
def test_tmpfs_memory_is_capped_or_denied(graded, mode):
    run = graded[0][("hoard_shm", mode)]
    report = _one_report_in_time(run)
    assert report["verdict"] in ("accepted", "memory_limit_exceeded")
    written = dict(kv.split("=") for kv in run.got().removeprefix("got: ").split())
    for folder, mb in written.items():
        # the private /tmp's and /dev/shm's cap (/var/tmp is /tmp there), or none at all
        assert int(mb.removesuffix("MB")) <= 64, (folder, mb)
    assert graded[1]["canaries"] == []


@pytest.mark.parametrize("mode", VARIANTS)
def test_memory_of_an_escaped_grandchild(graded, mode):
    run = _run_of(graded, "hoard_setsid", mode)
    report = _one_report_in_time(run)
    if mode == "bubblewrap":  # it cannot leave the pid namespace: its memory counts
        assert report["verdict"] == "memory_limit_exceeded", report["checks"]
    else:  # they reach the judge, whose watch kills them at once
        assert set(run.got().split("\n")) <= {"got: 0 grandchildren alive"}, run.got()
        assert report["verdict"] in ("accepted", "memory_limit_exceeded")


@pytest.mark.parametrize("mode", VARIANTS)
def test_pinning_itself_to_one_cpu_does_not_slow_the_clock(graded, mode):
    """Its own child's share of the one CPU it chose is charged: the 8 s call limit ends
    the first call on time (at 16 s on the clock, were the child's share forgiven)."""
    run = _run_of(graded, "pin_to_one_cpu", mode)
    report = _one_report_in_time(run)
    assert report["verdict"] == "time_limit_exceeded", report["checks"]
    assert run.wall_s < 8 + 5 or run.load > len(os.sched_getaffinity(0)), run.wall_s


@pytest.mark.parametrize("mode", VARIANTS)
def test_a_fork_bomb_ends(graded, mode):
    run = _run_of(graded, "fork_bomb", mode)
    report = _one_report_in_time(run)
    assert report["verdict"] == "runtime_error"
    assert "processes and threads" in json.dumps(report["checks"])


@pytest.mark.parametrize("mode", VARIANTS)
def test_scratch_is_capped(graded, mode):
    run = graded[0][("fill_scratch", mode)]
    report = _one_report_in_time(run)
    if report["verdict"] == "accepted":  # the private /tmp filled up: ENOSPC
        assert int(run.got().split()[1]) <= 64
    else:  # the watch saw the folder grow past its cap
        assert report["verdict"] == "runtime_error"
        assert "64 MB its scratch space" in json.dumps(report["checks"])


@pytest.mark.parametrize("mode", VARIANTS)
def test_huge_replies_are_refused_from_their_length(graded, mode):
    run = graded[0][("huge_reply", mode)]
    report = _one_report_in_time(run)
    assert report["verdict"] == "wrong_answer"
    assert "40.0 MB of arrays" in json.dumps(report["checks"])
    assert run.peak_rss_mb < 400, run.peak_rss_mb


@pytest.mark.parametrize("mode", VARIANTS)
def test_a_broken_worker_is_the_learners_runtime_error(graded, mode):
    run = graded[0][("break_worker", mode)]
    report = _one_report_in_time(run)
    assert report["verdict"] == "runtime_error", report["checks"]
    assert "the worker failed after your code ran" in json.dumps(report["checks"])


def test_nothing_is_left_behind(graded):
    assert graded[1]["processes"] == []
    assert graded[1]["canaries"] == []


# ---------------------------------------------------------------- run alone


@pytest.mark.parametrize("mode", MODES + FORKED)
def test_escapes_cannot_paint_the_text_report(bank, mode):
    run = judge(
        [
            "--bank",
            str(bank),
            "run",
            "double",
            str(ATTACKS / "paint_accepted.py"),
            "--isolation",
            mode,
        ]
    )
    assert run.rc == 1
    assert run.stdout.startswith("RUNTIME ERROR") or run.stdout.startswith("WRONG ANSWER")
    for raw in ("\x1b", "\r", "\u202e", "\x9b"):
        assert raw not in run.stdout, repr(raw)
    assert "\\x1b[32mACCEPTED" in run.stdout  # shown, harmless


@pytest.mark.parametrize("mode", MODES + FORKED)
def test_a_batch_keeps_classmates_and_results_apart(bank, tmp_path, mode):
    subs = tmp_path / "class"
    (subs / "alice").mkdir(parents=True)
    (subs / "bob").mkdir()
    (subs / "alice" / "double.py").write_text("def double(x):\n    return x * 2\n")
    shutil.copy(ATTACKS / "copy_classmate.py", subs / "bob" / "double.py")
    out = tmp_path / "out"
    run = judge(
        [
            "--bank",
            str(bank),
            "batch",
            str(subs),
            "--out",
            str(out),
            "--workers",
            "2",
            "--isolation",
            mode,
        ]
    )
    assert run.rc == 0, run.stderr[-2000:]
    lines = (out / "results.jsonl").read_text().splitlines()
    records = {r["learner"]: r for r in map(json.loads, lines)}
    assert len(lines) == 2 and set(records) == {"alice", "bob"}
    assert records["alice"]["verdict"] == "accepted"
    assert records["bob"]["verdict"] == "wrong_answer"
    assert "USING" not in records["bob"]["output"]["stdout"]
    assert "FORGED" not in records["bob"]["output"]["stdout"]
