"""The worker and its channel: values in and out, learner errors, limits, environment,
output capture, forged or oversized frames, timeouts and a clean close."""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from judge.sandbox import Limits, RunClock, Worker, WorkerFailure, scratch_root
from judge.worker import wire

from helpers import ROOT
from helpers.isolation_modes import BWRAP, MODES, needs_bwrap  # noqa: F401

REPO = ROOT
LIMITS = Limits(call_timeout_s=3, run_timeout_s=30, memory_mb=1024, output_bytes=4096)
X = np.arange(4, dtype=np.float32)


@pytest.fixture
def make_worker():
    """Start workers on demand; close them all at the end of the test."""
    workers = []

    def make(limits=LIMITS, **kw) -> Worker:
        w = Worker(limits, **kw)
        w.start()
        workers.append(w)
        return w

    yield make
    for w in workers:
        w.close()


def load(worker: Worker, source: str, entrypoint: str = "solve") -> dict:
    path = Path(worker.scratch) / "learner.py"
    path.write_text(textwrap.dedent(source))
    reply, _ = worker.request(
        {
            "op": "load",
            "path": str(path),
            "display_name": "learner.py",
            "entrypoint": entrypoint,
            "probe": False,
        }
    )
    return reply


def call(worker: Worker, *args, timeout=None, clock=None, **kwargs):
    """Call the loaded entrypoint; (reply header, decoded result or None)."""
    blobs: list[bytes] = []
    header = {
        "op": "call",
        "args": [wire.encode(a, blobs) for a in args],
        "kwargs": {k: wire.encode(v, blobs) for k, v in kwargs.items()},
        "label": "example",
        "probe": False,
    }
    reply, rblobs = worker.request(header, blobs, timeout=timeout, clock=clock)
    return reply, (wire.decode(reply["result"], rblobs) if reply.get("ok") else None)


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _my_children() -> list[int]:
    me = str(os.getpid())
    out = []
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                out.append(int(p))
        except OSError:
            pass
    return out


# ---------------------------------------------------------------- values and errors


def test_values_cross_both_ways(make_worker):
    w = make_worker()
    reply = load(
        w,
        """
        import jax, jax.numpy as jnp, numpy as np
        helper = jax.jit(lambda v: v * 2)

        def solve(x, s, n, tree, *, scale=1):
            kinds = [isinstance(x, jax.Array), bool(s.weak_type), type(n).__name__,
                     type(tree["a"]).__name__]
            return {"double": helper(x) * scale, "kinds": kinds,
                    "pair": (tree["a"] + 1, [tree["b"][0] + 1]), "none": None, "text": "hé"}
    """,
    )
    assert reply["ok"], reply
    assert reply["params"] == ["x", "s", "n", "tree", "scale"]
    assert reply["jitted"] == ["helper"]
    x = wire.Leaf(np.arange(6, dtype=np.float32).reshape(2, 3), "jax")
    s = wire.Leaf(np.array(2.0, np.float32), "jax", weak=True)
    tree = {"a": np.arange(3, dtype=np.int32), "b": (1.5,)}
    reply, value = call(w, x, s, np.float32(3), tree, scale=2)
    assert reply["ok"] and reply["elapsed_s"] > 0
    assert value["double"].kind == "jax"
    np.testing.assert_array_equal(value["double"].array, x.array * 4)
    assert value["kinds"] == [True, True, "float32", "ndarray"]
    a, (b,) = value["pair"]
    np.testing.assert_array_equal(a.array, [1, 2, 3])
    assert a.kind == "numpy" and b == 2.5
    assert value["none"] is None and value["text"] == "hé"


def test_probe_data_comes_with_calls_and_reports(make_worker):
    """Whatever the probe records, its data crosses as JSON next to the result."""
    w = make_worker()
    path = Path(w.scratch) / "learner.py"
    path.write_text("import jax\n\n@jax.jit\ndef solve(x):\n    return x * 2\n")
    reply, _ = w.request(
        {
            "op": "load",
            "path": str(path),
            "display_name": "learner.py",
            "entrypoint": "solve",
            "probe": True,
        }
    )
    assert reply["ok"] and reply["jitted"] == ["solve"]
    blobs: list[bytes] = []
    reply, rblobs = w.request(
        {
            "op": "call",
            "args": [wire.encode(X, blobs)],
            "kwargs": {},
            "label": "example",
            "probe": True,
        },
        blobs,
    )
    assert reply["ok"] and isinstance(reply["traces"], list) and isinstance(reply["syncs"], list)
    np.testing.assert_array_equal(wire.decode(reply["result"], rblobs).array, X * 2)
    reply, _ = w.request({"op": "report", "label": "example"})
    assert reply["ok"] and isinstance(reply["report"], dict)
    reply, _ = w.request({"op": "exit"})
    assert reply == {"ok": True, "blobs": 0}


def test_learner_errors_show_only_learner_frames_and_the_loop_survives(make_worker):
    w = make_worker()
    assert load(
        w,
        """
        import sys

        def helper(x):
            raise ValueError("bad input " + str(x.shape))

        def solve(x, how):
            if how == "raise":
                return helper(x)
            if how == "exit":
                sys.exit(2)
            if how == "interrupt":
                raise KeyboardInterrupt
            return x + 1
    """,
    )["ok"]
    reply, _ = call(w, X, "raise")
    err = reply["error"]
    assert not reply["ok"] and err["category"] == "exception" and err["type"] == "ValueError"
    assert err["line"] == 5 and "bad input (4,)" in err["message"]
    assert 'File "learner.py", line 9, in solve' in err["traceback"]
    assert 'File "learner.py", line 5, in helper' in err["traceback"]
    assert w.scratch not in err["traceback"] and "main.py" not in err["traceback"]
    reply, _ = call(w, X, "exit")
    assert (
        reply["error"]["category"] == "exit" and reply["error"]["message"] == "called sys.exit(2)"
    )
    reply, _ = call(w, X, "interrupt")
    assert reply["error"]["category"] == "exception"
    assert reply["error"]["type"] == "KeyboardInterrupt"
    reply, value = call(w, X, "fine")
    np.testing.assert_array_equal(value.array, X + 1)


@pytest.mark.parametrize(
    "source, words, line",
    [
        ("x = 1\ndef solve(x):\n    return x +\n", "SyntaxError", 3),
        (
            "import os\nimport not_a_module_anywhere\ndef solve(x):\n    return x\n",
            "No module named 'not_a_module_anywhere'",
            2,
        ),
        ("def other(x):\n    return x\n", "learner.py defines no function named 'solve'", None),
        ("solve = 3\n", "'solve' in learner.py is a int, not a function", None),
        ("raise RuntimeError('no')\n", "RuntimeError: no", 1),
    ],
)
def test_invalid_submissions(make_worker, source, words, line):
    reply = load(make_worker(), source)
    assert not reply["ok"]
    assert reply["error"]["category"] == "invalid_submission"
    assert words in reply["error"]["message"]
    assert reply["error"]["line"] == line


# ---------------------------------------------------------------- the channel


def test_frames_need_the_token_and_the_sequence():
    token = os.urandom(wire.TOKEN_LEN)
    r, w = os.pipe()
    try:
        os.write(w, wire.pack(token, 1, {"ok": True}))
        assert wire.read_frame(r, token, 1)[0]["ok"] is True
        os.write(w, wire.pack(bytes(wire.TOKEN_LEN), 2, {"ok": True}))
        with pytest.raises(wire.WireError, match="token"):
            wire.read_frame(r, token, 2)
    finally:
        os.close(r)
        os.close(w)
    r, w = os.pipe()
    try:
        os.write(w, wire.pack(token, 7, {"ok": True}))
        with pytest.raises(wire.WireError, match="sequence"):
            wire.read_frame(r, token, 2)
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.parametrize("claim", ["header", "blob"])
def test_oversized_frames_are_refused_from_their_length_field(claim):
    """The reading end is non-blocking: any attempt to read the claimed bytes would raise
    BlockingIOError instead of WireError."""
    token = os.urandom(wire.TOKEN_LEN)
    r, w = os.pipe()
    os.set_blocking(r, False)
    try:
        if claim == "header":
            os.write(w, wire.MAGIC + token + struct.pack("<II", 0, 0xFFFFFFF0))
        else:
            body = json.dumps({"blobs": 1}).encode()
            os.write(
                w,
                wire.MAGIC
                + token
                + struct.pack("<II", 0, len(body))
                + body
                + struct.pack("<Q", 1 << 40),
            )
        with pytest.raises(wire.WireError, match="too large"):
            wire.read_frame(r, token, 0)
    finally:
        os.close(r)
        os.close(w)


# The learner can find the worker's loop (and its token) in its own process: it can
# forge nothing a return value could not say, but it can break the channel.
_FORGER = """
    import gc, os, struct, time

    def solve(x, token):
        loop = next(o for o in gc.get_objects() if type(o).__name__ == "Loop" and hasattr(o, "token"))
        tok = loop.token if token == "real" else bytes(16)
        os.write(loop.reply_fd, b"JJW1" + tok + struct.pack("<II", 2, 0xFFFFFFF0))
        time.sleep(30)
"""


@pytest.mark.parametrize("token", ["real", "zero"])
def test_forged_frame_on_the_channel_is_a_protocol_failure(make_worker, token):
    w = make_worker()
    assert load(w, _FORGER)["ok"]
    t = time.monotonic()
    with pytest.raises(WorkerFailure) as info:
        call(w, X, token)
    assert info.value.kind == "protocol" and info.value.where == "call"
    assert "corrupted channel" in info.value.message
    assert time.monotonic() - t < LIMITS.call_timeout_s - 1  # refused, not waited for


# ---------------------------------------------------------------- the worker's world


def test_judge_and_reference_cannot_be_imported(make_worker, tmp_path):
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "answer.py").write_text("X = 1\n")
    w = make_worker(hidden_paths=[str(tmp_path / "reference")])
    assert load(
        w,
        """
        import sys

        def solve(x, roots):
            sys.path[:0] = roots
            out = {}
            for name in ("judge", "judge.sandbox", "reference", "reference.answer", "json"):
                try:
                    __import__(name)
                    out[name] = "imported"
                except ImportError:
                    out[name] = "ImportError"
            return out
    """,
    )["ok"]
    _, found = call(w, X, [str(REPO), str(tmp_path)])
    assert found == {
        "judge": "ImportError",
        "judge.sandbox": "ImportError",
        "reference": "ImportError",
        "reference.answer": "ImportError",
        "json": "imported",
    }


@pytest.mark.parametrize("mode", MODES)
def test_environment_is_scrubbed(make_worker, monkeypatch, mode):
    monkeypatch.setenv("JJ_SECRET", "leaked")
    w = make_worker(isolation=mode)
    assert load(
        w,
        """
        import os, sys

        def solve(x):
            # The environment as exec'd (jax adds variables to os.environ on import).
            with open("/proc/self/environ", "rb") as f:
                env = dict(kv.decode().split("=", 1) for kv in f.read().split(b"\\0") if kv)
            return {"env": env, "cwd": os.getcwd(), "stdin": sys.stdin.read(),
                    "hash_randomization": sys.flags.hash_randomization, "path": sys.path}
    """,
    )["ok"]
    _, got = call(w, X)
    scratch = os.path.realpath(w.scratch)
    bwrap_adds = {"PWD"} if w.isolation == "bubblewrap" else set()  # from its --chdir
    assert (
        set(got["env"])
        == {
            "PATH",
            "HOME",
            "TMPDIR",
            "LANG",
            "MALLOC_ARENA_MAX",
            "JAX_PLATFORMS",
            "PYTHONHASHSEED",
            "PYTHONDONTWRITEBYTECODE",
            "OPENBLAS_NUM_THREADS",
        }
        | bwrap_adds
    )
    assert got["env"]["HOME"] == got["env"]["TMPDIR"] == w.home
    assert w.home == ("/tmp" if mode == "bubblewrap" else os.path.join(scratch, "tmp"))
    assert os.path.realpath(got["cwd"]) == os.path.realpath(w.home)  # writable, private
    assert got["env"]["JAX_PLATFORMS"] == "cpu" and got["env"]["MALLOC_ARENA_MAX"] == "2"
    assert got["stdin"] == "" and got["hash_randomization"] == 0
    assert str(REPO) not in got["path"] and "" not in got["path"]


@pytest.mark.parametrize("mode", MODES)
def test_limits_and_channel_fds_in_the_worker(make_worker, mode):
    limits = Limits(call_timeout_s=3, run_timeout_s=7, memory_mb=700, file_size_bytes=1 << 20)
    w = make_worker(limits, isolation=mode)
    assert load(
        w,
        """
        import ctypes, gc, json, os, resource, sys

        def solve(x):
            pdeathsig = ctypes.c_int()
            ctypes.CDLL(None).prctl(2, ctypes.byref(pdeathsig), 0, 0, 0)  # PR_GET_PDEATHSIG
            loop = next(o for o in gc.get_objects() if type(o).__name__ == "Loop" and hasattr(o, "token"))
            cfg = json.loads(sys.argv[-1])

            def same_pipe(a, b):
                try:
                    return os.fstat(a).st_ino == os.fstat(b).st_ino
                except OSError:
                    return False
            return {"as": resource.getrlimit(resource.RLIMIT_AS),
                    "cpu": resource.getrlimit(resource.RLIMIT_CPU),
                    "fsize": resource.getrlimit(resource.RLIMIT_FSIZE),
                    "nofile": resource.getrlimit(resource.RLIMIT_NOFILE),
                    "core": resource.getrlimit(resource.RLIMIT_CORE),
                    "pdeathsig": pdeathsig.value,
                    "fds": [loop.cmd_fd, loop.reply_fd],
                    "originals_still_open": [same_pipe(cfg["cmd_fd"], loop.cmd_fd),
                                             same_pipe(cfg["reply_fd"], loop.reply_fd)]}
    """,
    )["ok"]
    _, got = call(w, X)
    cores = len(os.sched_getaffinity(0))
    assert got["as"][0] == got["as"][1] and (700 << 20) < got["as"][0] < (700 + 4096 << 20)
    # the kernel's backstop behind the judge's clock: the run's CPU on every core, and a
    # minute for the start
    assert got["cpu"][0] == math.ceil(cores * 7 + 60) < got["cpu"][1]
    assert got["fsize"] == (1 << 20, 1 << 20)
    assert got["nofile"] == (256, 256) and got["core"] == (0, 0)
    assert got["pdeathsig"] == 9
    assert min(got["fds"]) >= 200 and got["originals_still_open"] == [False, False]


@pytest.mark.parametrize("size, truncated", [(100, False), (10_000, True)])
def test_output_is_captured_and_capped(make_worker, size, truncated):
    w = make_worker()
    assert load(
        w,
        """
        import sys
        print("imported")

        def solve(x, n):
            sys.stdout.write("o" * n)
            sys.stderr.write("e" * 10)
            return x
    """,
    )["ok"]
    reply, _ = call(w, X, size)
    assert reply["ok"]
    w.close()
    out = w.output()
    expected = ("imported\n" + "o" * size)[: LIMITS.output_bytes]
    assert out == {"stdout": expected, "stderr": "e" * 10, "truncated": truncated}


# ---------------------------------------------------------------- ending


def test_close_is_idempotent_and_leaves_no_process(make_worker, monkeypatch):
    # a worker refuses to start processes (judge/worker/confine.py); this tests the
    # backstop behind that refusal, so it runs with it lifted
    monkeypatch.setenv("JUDGE_WORKER_PROCESSES", "allowed")
    before = set(_my_children())  # other tests' helpers (a dask cluster, ...) may live on
    w = make_worker()
    assert load(
        w,
        """
        import os, time

        def solve(x):
            pid = os.fork()
            if pid == 0:
                time.sleep(1000)
                os._exit(0)
            return pid
    """,
    )["ok"]
    _, child = call(w, X)
    root = w.pid
    assert _alive(root) and _alive(child) if w.isolation == "process" else _alive(root)
    scratch = w.scratch
    w.close()
    w.close()
    assert w.closed and not _alive(root) and not os.path.exists(scratch)
    if w.isolation == "process":
        assert not _alive(child)
    assert set(_my_children()) - before == set()
    with pytest.raises(RuntimeError):
        call(w, X)


def test_a_failed_worker_fails_every_later_request_at_once(make_worker):
    w = make_worker()
    assert load(w, "import time\ndef solve(x):\n    time.sleep(100)\n")["ok"]
    t = time.monotonic()
    with pytest.raises(WorkerFailure) as first:
        call(w, X, timeout=0.5)
    assert first.value.kind == "timeout" and 0.5 <= time.monotonic() - t < 2.5
    assert "0.5 s limit for one call" in first.value.message
    t = time.monotonic()
    with pytest.raises(WorkerFailure) as again:
        call(w, X)
    assert again.value is first.value and time.monotonic() - t < 0.1


def test_the_run_limit_bounds_a_call(make_worker):
    """The run's clock, not the call's limit, ends this call: it starts with the first
    request charged to it (here the call), not when the worker was spawned."""
    limits = Limits(call_timeout_s=20, run_timeout_s=6)
    w = make_worker(limits)
    assert load(w, "import time\ndef solve(x):\n    time.sleep(100)\n")["ok"]
    clock = RunClock(limits.run_timeout_s)
    t = time.monotonic()
    with pytest.raises(WorkerFailure) as info:
        call(w, X, clock=clock)
    assert info.value.kind == "timeout" and "6 s limit for the whole run" in info.value.message
    assert 6 - 0.1 < time.monotonic() - t < 6 + 1.5  # sleeping is charged in full
    assert clock.left_s() == 0


def test_a_worker_that_cannot_start_says_so_as_the_judges_fault(make_worker, monkeypatch):
    import judge.sandbox.policy

    monkeypatch.setattr(judge.sandbox.policy, "WORKER_DIR", "/nonexistent/worker")
    w = make_worker()
    with pytest.raises(WorkerFailure) as info:
        load(w, "def solve(x):\n    return x\n")
    assert (info.value.kind, info.value.where) == ("exited", "start")
    assert info.value.message == "the worker failed to start (exit code 1)"
    assert "/nonexistent/worker" in info.value.detail["stderr"]


def test_a_slow_start_is_a_start_timeout(make_worker):
    w = make_worker(Limits(start_timeout_s=0.01))
    with pytest.raises(WorkerFailure) as info:
        load(w, "def solve(x):\n    return x\n")
    assert (info.value.kind, info.value.where) == ("timeout", "start")


def test_death_by_sigxcpu_is_a_timeout(make_worker):
    w = make_worker()
    assert load(w, "import os, signal\ndef solve(x):\n    os.kill(os.getpid(), signal.SIGXCPU)\n")[
        "ok"
    ]
    with pytest.raises(WorkerFailure) as info:
        call(w, X)
    assert info.value.kind == "timeout" and "CPU time" in info.value.message


def test_the_judge_side_never_imports_jax():
    code = "import sys, judge.sandbox; print('jax' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert out.stdout.strip() == "False"


# ---------------------------------------------------------------- bubblewrap


def test_auto_isolation_uses_bubblewrap_exactly_when_it_works():
    assert Worker(LIMITS).isolation == ("bubblewrap" if BWRAP else "process")
    assert Worker(LIMITS, isolation="process").isolation == "process"


@pytest.mark.parametrize("mode", MODES)
def test_the_network_is_cut(make_worker, mode):
    """bubblewrap: a network namespace of its own; process mode: Landlock denies TCP
    (kernel 6.7 and later; UDP stays open there, see README)."""
    from judge.sandbox.policy import landlock_abi

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)

    def accept_once():
        try:
            server.accept()
        except OSError:
            pass  # closed by the test before anything connected

    threading.Thread(target=accept_once, daemon=True).start()
    try:
        w = make_worker(isolation=mode)
        assert load(
            w,
            """
            import socket

            def solve(x, port):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=2).close()
                    return "connected"
                except OSError as exc:
                    return type(exc).__name__
        """,
        )["ok"]
        _, got = call(w, X, server.getsockname()[1])
    finally:
        server.close()
    cut = mode == "bubblewrap" or landlock_abi() >= 4
    assert (got != "connected") == cut, got


@needs_bwrap
def test_a_trusted_worker_hides_nothing(make_worker, tmp_path):
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "answer.py").write_text("X = 1\n")
    hidden = [str(tmp_path / "reference")]
    results = {}
    for trusted in (False, True):
        w = make_worker(trusted=trusted, hidden_paths=hidden, isolation="bubblewrap")
        assert load(
            w,
            """
            import os

            def solve(x, path):
                try:
                    return os.listdir(path)
                except OSError as exc:
                    return type(exc).__name__
        """,
        )["ok"]
        results[trusted] = call(w, X, hidden[0])[1]
    assert results[True] == ["answer.py"] and results[False] != ["answer.py"]


# ---------------------------------------------------------------- lifetimes


@pytest.mark.parametrize("mode", MODES)
def test_a_worker_outlives_the_thread_that_started_it(mode):
    """PR_SET_PDEATHSIG fires when the forking *thread* ends: workers must be forked from
    a thread that lives as long as the judge."""
    box = {}

    def starter():
        box["worker"] = Worker(LIMITS, isolation=mode)
        box["worker"].start()
        assert load(box["worker"], "def solve(x):\n    return x\n")["ok"]  # PDEATHSIG armed

    thread = threading.Thread(target=starter)
    thread.start()
    thread.join()
    w = box["worker"]
    try:
        time.sleep(0.3)
        reply, value = call(w, X)
        np.testing.assert_array_equal(value.array, X)
    finally:
        w.close()


_JUDGE = """
import sys, time
sys.path.insert(0, {repo!r})
from judge.sandbox import Limits, Worker
w = Worker(Limits(), isolation={mode!r})
w.start()
open(w.scratch + "/f.py", "w").write("def solve(x):\\n    return x\\n")
assert w.request({{"op": "load", "path": w.scratch + "/f.py", "display_name": "f.py",
                  "entrypoint": "solve", "probe": False}})[0]["ok"]
print(w.pid, w.scratch, flush=True)
time.sleep(100)
"""


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for tid in os.listdir(f"/proc/{p}/task") if os.path.isdir(f"/proc/{p}/task") else []:
            try:
                todo += [int(c) for c in Path(f"/proc/{p}/task/{tid}/children").read_text().split()]
            except OSError:
                pass
    return out


@pytest.mark.parametrize("mode", MODES)
def test_the_worker_dies_with_the_judge(mode, tmp_path):
    # a temp folder of its own: a judge started meanwhile by a test in another process
    # would otherwise remove the stale scratch before this test looks for it
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    judge = subprocess.Popen(
        [sys.executable, "-c", _JUDGE.format(repo=str(REPO), mode=mode)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    tree: list[int] = []
    scratch = None
    try:
        pid, scratch = judge.stdout.readline().split()
        tree = _tree(int(pid))
        assert len(tree) >= (3 if mode == "bubblewrap" else 1)
        judge.kill()
        judge.wait()
        deadline = time.monotonic() + 3
        while any(map(_alive, tree)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(map(_alive, tree))
        # a judge killed outright leaves its scratch behind: the next judge removes it
        root = os.path.dirname(scratch)
        assert os.path.isdir(root)
        assert os.path.dirname(root) == str(tmp_path)
        subprocess.run(
            [sys.executable, "-c", "from judge.sandbox import scratch_root; scratch_root()"],
            check=True,
            cwd=REPO,
            env=env,
        )
        assert not os.path.exists(root)
    finally:
        judge.kill()
        judge.wait()
        for p in tree:  # re-parented to this process if it is a subreaper: reap them
            try:
                os.waitpid(p, os.WNOHANG)
            except ChildProcessError:
                pass
        if scratch:
            shutil.rmtree(os.path.dirname(scratch), ignore_errors=True)


def test_an_installed_judge_keeps_site_packages_on_the_worker_path(tmp_path):
    # a pip-installed judge lives in site-packages beside numpy and jax: dropping that
    # folder from the worker's sys.path would stop the worker from starting at all
    import site

    from judge.sandbox.handle import scrub_paths

    bank = site.getsitepackages()[0] + "/judge/_bank"
    scrubbed = scrub_paths([bank + "/reference", bank + "/tasks"])
    assert site.getsitepackages()[0] not in scrubbed
    assert bank in scrubbed


# ---------------------------------------------------------------- the worker's view


@pytest.mark.parametrize("mode", MODES)
def test_the_worker_sees_only_what_it_needs(make_worker, mode, tmp_path):
    """No bank (the repository's, the copy installed under site-packages, reached through
    lib or lib64), no .git, no other worker's scratch; site-packages holds only what the
    worker imports."""
    import site

    from judge.sandbox.policy import landlock_abi

    sites = site.getsitepackages()
    sibling = tempfile.mkdtemp(dir=scratch_root())
    Path(sibling, "secret.py").write_text("ANSWER = 42\n")
    secrets = [str(REPO / "tasks.yaml"), str(REPO / "reference"), str(REPO / ".git"), sibling]
    for sp in sites:
        secrets.append(os.path.join(sp, "judge", "_bank", "tasks.yaml"))
        secrets.append(os.path.join(sp.replace("/lib/", "/lib64/"), "judge", "_bank", "tasks.yaml"))
    try:
        w = make_worker(isolation=mode)
        assert load(
            w,
            """
            import os

            def solve(x, paths, sites):
                out = {}
                for p in paths:
                    try:
                        os.listdir(p) if os.path.isdir(p) else open(p).read(1)
                        out[p] = "read"
                    except OSError as exc:
                        out[p] = type(exc).__name__
                listed = {}
                for s in sites:
                    try:
                        listed[s] = sorted(os.listdir(s))
                    except OSError as exc:
                        listed[s] = type(exc).__name__
                return {"secrets": out, "sites": listed}
        """,
        )["ok"]
        _, got = call(w, X, secrets, sites)
    finally:
        shutil.rmtree(sibling)
    assert "read" not in got["secrets"].values(), got["secrets"]
    for listing in got["sites"].values():
        if mode == "bubblewrap":
            assert "judge" not in listing and "numpy" in listing and "jax" in listing, listing
            assert not any(name.endswith(".pth") for name in listing)
        elif landlock_abi():
            assert listing == "PermissionError"


@needs_bwrap
def test_bubblewrap_keeps_no_capability_and_cannot_remount(make_worker):
    w = make_worker(isolation="bubblewrap")
    assert load(
        w,
        """
        import ctypes, os

        def solve(x):
            libc = ctypes.CDLL(None, use_errno=True)
            status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
            mounts = [line.split()[1] for line in open("/proc/self/mounts")]
            tried = {}
            for target in mounts:
                tried["umount " + target] = libc.umount2(target.encode(), 2) == 0
            tried["remount /"] = libc.mount(None, b"/", None, 32, None) == 0
            tried["new user ns"] = libc.unshare(0x10000000) == 0
            return {"uid": os.getuid(), "caps": status["CapEff"].strip(),
                    "bounding": status["CapBnd"].strip(), "tried": tried}
    """,
    )["ok"]
    _, got = call(w, X)
    assert got["caps"] == "0000000000000000" and got["bounding"] == "0000000000000000"
    if os.geteuid() == 0:
        assert got["uid"] == 65534
    assert not any(got["tried"].values()), got["tried"]


def test_process_mode_refuses_sockets_and_ipc(make_worker):
    """What Landlock does not cover, seccomp does: UDP, a named Unix socket (the judge's
    host may have /var/run/docker.sock), System V shared memory."""
    from judge.worker.confine import seccomp_available

    if not seccomp_available():
        pytest.skip("no seccomp filter for this architecture")
    path = os.path.join(tempfile.mkdtemp(), "judge.sock")
    server = socket.socket(socket.AF_UNIX)
    server.bind(path)
    server.listen(1)
    try:
        w = make_worker(isolation="process")
        assert load(
            w,
            """
            import ctypes, socket

            def solve(x, path):
                out = {}
                for name, make in [("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)),
                                   ("unix", lambda: socket.socket(socket.AF_UNIX).connect(path))]:
                    try:
                        make()
                        out[name] = "made"
                    except OSError as exc:
                        out[name] = exc.errno
                shm = ctypes.CDLL(None, use_errno=True).shmget(0, 4096, 0o1600)
                out["shmget"] = shm if shm >= 0 else -ctypes.get_errno()
                return out
        """,
        )["ok"]
        _, got = call(w, X, path)
    finally:
        server.close()
        shutil.rmtree(os.path.dirname(path))
    assert got == {"udp": 1, "unix": 1, "shmget": -1}, got  # EPERM each
    assert "seccomp: no sockets, no System V IPC" in w.layers


def test_process_mode_refuses_to_change_a_host_files_metadata(make_worker, tmp_path):
    """Landlock leaves a file's mode, owner, times and extended attributes open; as uid 0
    without capabilities the worker owns every root-owned file: seccomp refuses them."""
    from judge.worker.confine import seccomp_available

    if not seccomp_available():
        pytest.skip("no seccomp filter for this architecture")
    target = tmp_path / "host.txt"
    target.write_text("x")
    target.chmod(0o644)
    os.utime(target, (1_000_000_000, 1_000_000_000))
    before = target.stat()
    w = make_worker(isolation="process")
    assert load(
        w,
        """
        import os

        def solve(x, path):
            out = {}
            for name, change in [("chmod", lambda: os.chmod(path, 0o600)),
                                 ("utime", lambda: os.utime(path, (0, 0))),
                                 ("chown", lambda: os.chown(path, os.getuid(), os.getgid())),
                                 ("setxattr", lambda: os.setxattr(path, "user.x", b"y"))]:
                try:
                    change()
                    out[name] = "changed"
                except OSError as exc:
                    out[name] = exc.errno
            return out
    """,
    )["ok"]
    _, got = call(w, X, str(target))
    assert set(got.values()) <= {1, 13}, got  # EPERM (seccomp), EACCES (Landlock, uid)
    after = target.stat()
    assert (after.st_mode, after.st_mtime, after.st_uid) == (
        before.st_mode,
        before.st_mtime,
        before.st_uid,
    )
    assert os.listxattr(target) == []


def test_removing_a_scratch_dir_changes_nothing_outside_it(tmp_path):
    """A learner's unwritable folders inside are removed; the folder above keeps its
    mode even when the removal fails at the top (it is /tmp for a scratch root)."""
    from judge.sandbox.procs import rmtree

    parent = tmp_path / "shared"
    parent.mkdir()
    parent.chmod(0o1777)
    scratch = parent / "worker"
    (scratch / "locked" / "deep").mkdir(parents=True)
    (scratch / "locked" / "deep" / "f").write_text("x")
    (scratch / "locked").chmod(0o500)
    rmtree(str(scratch))
    assert not scratch.exists()
    rmtree(str(parent / "already-gone"))
    assert parent.stat().st_mode & 0o7777 == 0o1777


def test_a_tree_deeper_than_python_recurses_is_removed_and_nothing_outside(tmp_path):
    """A learner's 1500 nested folders (shutil.rmtree recurses once per level): gone,
    with the link at the bottom removed, not followed."""
    from judge.sandbox.procs import rmtree

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("x")
    scratch = tmp_path / "worker"
    scratch.mkdir()
    fd = os.open(scratch, os.O_RDONLY)
    for _ in range(1500):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.symlink(outside, "link", dir_fd=fd)
    os.close(fd)
    rmtree(str(scratch))
    assert not scratch.exists()
    assert (outside / "keep").read_text() == "x"


def test_judges_in_pid_namespaces_of_their_own_give_their_workers_different_uids(monkeypatch):
    """Judges in containers are often all pid 1: a worker's uid (process mode as root)
    must not come from the judge's pid, or workers of two judges could signal each other
    and share one process limit."""
    from judge.sandbox import policy

    monkeypatch.setattr(os, "getpid", lambda: 1)
    drawn = set()
    for _ in range(8):  # eight judges, each with its first worker
        monkeypatch.setattr(policy, "_uids_in_use", set())
        drawn.add(policy.take_uid())
    assert len(drawn) == 8
    assert all(policy.UID_BASE <= uid < policy.UID_BASE + policy.UID_SPAN for uid in drawn)
    in_one_judge = {policy.take_uid() for _ in range(64)}  # and never twice in one judge
    assert len(in_one_judge) == 64


def test_a_python_installed_under_tmp_is_seen_through_bubblewraps_private_tmp(monkeypatch):
    """A clone under /tmp with its venv there (the README's Quickstart in /tmp): the
    private /tmp is mounted first and the view on top, or the worker's own python is
    gone (bwrap: execvp .../python3: No such file or directory)."""
    from judge.sandbox import policy

    monkeypatch.setattr(policy, "view", lambda: policy.View(read=("/usr", "/tmp/clone/.venv")))
    monkeypatch.setattr(
        policy, "bubblewrap", lambda: policy.Bwrap(True, "", "/usr/bin/bwrap", False)
    )
    argv = policy.bwrap_argv("/tmp/scratch", [], 1 << 20, ["/tmp/clone/.venv/bin/python3"])
    tmpfs = next(i for i in range(len(argv) - 1) if argv[i : i + 2] == ["--tmpfs", "/tmp"])
    venv = next(
        i
        for i in range(len(argv) - 2)
        if argv[i : i + 3] == ["--ro-bind", "/tmp/clone/.venv", "/tmp/clone/.venv"]
    )
    assert tmpfs < venv
