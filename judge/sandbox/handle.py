"""``WorkerHandle``: the judge's handle on one worker process (the code of
``judge/worker/``, running in its sandbox): start it, send it requests, watch it, end it.

One worker per submission (a reference's worker serves many).  The channel is two
dedicated pipes, the worker's fd 1/2 are drained by judge threads into capped
buffers, and every wait is bounded: a request returns a reply or raises
WorkerFailure, and the worker is dead after any failure.

Its life, for a batch or a long-lived service:

    w = WorkerHandle(limits, hidden_paths=bank.hidden_paths())   # isolation resolved here
    w.start()            # spawns now; it imports numpy and jax while nobody waits
    ...                  # later, maybe much later: the submission arrives
    clock = RunClock(limits.run_timeout_s)   # one grading's time, across restarts
    w.request({"op": "load", ...}, clock=clock)
    w.request({"op": "call", ...}, blobs, clock=clock, reply_limit=...)
    w.close()

A request without a clock (a trusted worker's, the reference serving many gradings)
has only its own time limit; nothing about a worker expires while it waits.
"""

from __future__ import annotations

import json
import math
import os
import queue
import secrets
import select
import subprocess
import sys
import tempfile
import threading
import time
from typing import TYPE_CHECKING, NoReturn

from ..compile_log import CompileLog
from ..limits import Limits
from ..worker import wire
from . import beneath, policy, procs
from . import zygote as zygote_mod
from .clock import WALL_FACTOR, Meter, RunClock, cores
from .deaths import Facts, WorkerFailure, explain, seconds

if TYPE_CHECKING:
    import resource

BOOTSTRAP = policy.bootstrap("main.boot")

POLL_S = 0.05  # how often waits and the watch look at the worker
_WAITING_POLL_S = 0.5  # the watch of a started worker that has no submission yet
_TRUSTED_IDLE_S = 1.0  # the watch of a trusted worker between requests (it runs nothing)
_GRACE_S = 0.3  # after the worker died, how long a reply it wrote may still arrive
_LOST_EXIT = 71  # the worker's exit code when its channel broke under it
_FREE_REPLY = 1 << 20  # replies up to this size are never questioned
_DISK_EVERY = 5  # polls between two looks at a process-mode worker's tmp folder
_MAX_FILES = 10_000  # files a process-mode worker may make in its tmp folder
_EOF = object()


class ReplyTooLarge(wire.WireError):
    """The reply claims more bytes than the expected result allows."""

    def __init__(self, got: int, limit: int, expected: int, exact: bool = True):
        super().__init__(f"reply of {got} bytes, limit {limit}")
        self.got, self.limit, self.expected, self.exact = got, limit, expected, exact


def size_words(n: int) -> str:
    for unit, size in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


class WorkerHandle:
    # set by start()
    _cmd_w: int
    _reply_r: int
    _t0: float

    def __init__(
        self,
        limits: Limits,
        *,
        trusted: bool = False,
        hidden_paths=(),
        isolation: str | None = None,
        devices: int | None = None,
    ):
        self.limits = limits
        self.devices = devices  # a task's `devices: N`, set before jax's first op
        self.ready_info: dict = {}  # what the worker said when it was ready
        self.trusted = trusted
        self.hidden_paths = [] if trusted else [os.path.abspath(p) for p in hidden_paths]
        self.isolation = "process" if trusted else policy.resolve(isolation)
        self.layers: list[str] = []  # what held, in words (the report's detail)
        self.guards_judge_files = False  # see policy.Plan.guards_judge_files
        self.scratch: str | None = None  # holds the submission (read-only to the learner)
        self.home: str | None = None  # the learner's cwd, HOME and TMPDIR, as it sees them
        self.ready_s: float | None = None  # spawn to ready, measured by the judge
        # None until start() sets them; only read after it
        self._plan: policy.Plan = None  # type: ignore[assignment]
        self._proc: subprocess.Popen[bytes] | zygote_mod.ForkedProcess = None  # type: ignore[assignment]
        self._token = secrets.token_bytes(wire.TOKEN_LEN)
        self._seq = 0
        self._ready = False
        self._failure: WorkerFailure | None = None
        self._inbox: queue.Queue = queue.Queue()
        self._out = {"stdout": bytearray(), "stderr": bytearray()}
        self._truncated = False
        self._threads: list[threading.Thread] = []
        self._drains: list[threading.Thread] = []
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._long_wait = False
        self._kill_lock = threading.Lock()
        self._kill_reason: str | None = None
        # (wait status, rusage) once reaped
        self._status: tuple[int, resource.struct_rusage | None] | None = None
        self._peak = 0
        self._closed = False
        self._cores = cores()
        self._pending: dict | None = None  # the request in flight: its meter and bounds
        self._python_pid: int | None = None  # the process running the worker's loop
        self._reply_limit = None
        self._facts = Facts()
        # descriptors of the folders the learner can write, taken before its code ran:
        # the judge acts there only through them (beneath.py), never by a path again
        self._writable_fd = -1  # process mode: scratch/tmp, for its size
        self._tmpfs_fds: list[int] = []  # bubblewrap: its private /tmp and /dev/shm
        self.compile_log: CompileLog | None = None  # XLA's record of its compiles

    # -- lifecycle

    def start(self) -> None:
        """Spawn the worker and return at once; it imports numpy and jax meanwhile (a
        forked one has them already)."""
        if self._proc is not None or self._closed:
            raise RuntimeError("a WorkerHandle starts once")
        procs.prepare_judge()
        if self.isolation == "forked":
            self._start_forked()
        else:
            self._start_spawned()
        self._t0 = time.monotonic()
        try:
            os.write(self._cmd_w, self._token)  # 16 bytes into an empty pipe: never blocks
        except OSError:
            pass  # it died already; the first request reports how
        os.set_blocking(self._cmd_w, False)
        self._spawn_thread(self._read_replies)
        self._drains = [
            self._spawn_thread(self._drain, "stdout", self._proc.stdout),
            self._spawn_thread(self._drain, "stderr", self._proc.stderr),
        ]
        self._spawn_thread(self._watch)

    def _start_spawned(self) -> None:
        self.scratch = tempfile.mkdtemp(prefix="worker-", dir=procs.scratch_root())  # 0700
        cmd_r, self._cmd_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        try:
            self._plan = policy.plan(
                self.isolation,
                trusted=self.trusted,
                scratch=self.scratch,
                hidden=self.hidden_paths,
                scratch_bytes=self.limits.scratch_mb << 20,
                inner=lambda worker_dir, confine: self._inner(worker_dir, confine, cmd_r, reply_w),
            )
            self._planned()
            if self._plan.writable:
                self._writable_fd = beneath.open_dir(self._plan.writable)
            self._proc = procs.spawn(
                self._plan.argv,
                (cmd_r, reply_w),
                self._plan.cwd or self.scratch,
                self._plan.env,
                **self._plan.popen,
            )
        except OSError as exc:
            self._not_started(exc)
        finally:
            os.close(cmd_r)
            os.close(reply_w)

    def _start_forked(self) -> None:
        """Forked in a warm sandbox (zygote.py): its slot is its /tmp, its scratch is in
        the sandbox's inbox; the slot's descriptor is the one the judge took before any
        worker of that sandbox existed.  A sandbox that fails to fork is spent, and the
        worker is forked in the next one (a failure there is the judge's, at start)."""
        for attempt in range(2):
            try:
                zygote, slot = zygote_mod.zygotes.slot(
                    tuple(self.hidden_paths), self.limits.scratch_mb << 20
                )
                self._fork_into(zygote, slot)
                return
            except zygote_mod.ZygoteFailure as exc:
                if attempt:
                    self._not_started(exc)
            except (OSError, ValueError) as exc:
                self._not_started(exc)

    def _fork_into(self, zygote: zygote_mod.Zygote, slot: int) -> None:
        ends: list[int] = []
        streams: list = []
        asked = False
        try:
            self.scratch = tempfile.mkdtemp(prefix="worker-", dir=zygote.inbox)
            self._plan = policy.forked_plan(
                slot=zygote.slots[slot], scratch=self.scratch, hidden=self.hidden_paths
            )
            self._planned()
            cmd_r, self._cmd_w = os.pipe()
            self._reply_r, reply_w = os.pipe()
            out_r, out_w = os.pipe()
            err_r, err_w = os.pipe()
            ends = [cmd_r, reply_w, out_w, err_w]
            streams = [os.fdopen(out_r, "rb", 0), os.fdopen(err_r, "rb", 0)]
            self._tmpfs_fds.append(zygote.slot_fd(slot))
            asked = True
            self._proc = zygote.spawn(
                slot, self._config(-1, -1, self._plan.confine), self._plan.env, ends, *streams
            )
        except BaseException:
            for stream in streams:
                stream.close()
            for fd in [self._reply_r, self._cmd_w] if ends else []:
                os.close(fd)
            for fd in self._tmpfs_fds:
                os.close(fd)
            self._tmpfs_fds = []
            if self.scratch:
                procs.rmtree(self.scratch)
                self.scratch = None
            if not asked:
                zygote.release(None)  # spawn() releases the slot of a spawn that failed
            raise
        finally:
            for fd in ends:
                os.close(fd)

    def _planned(self) -> None:
        self.layers = self._plan.layers
        self.guards_judge_files = self._plan.guards_judge_files
        self.home = self._plan.env["HOME"]

    def _not_started(self, exc: Exception) -> NoReturn:
        self._failure = WorkerFailure(
            "exited", f"the worker could not be started: {exc}", where="start"
        )
        if self.isolation != "forked":  # a fork that failed closed its own already
            for fd in (getattr(self, "_reply_r", -1), getattr(self, "_cmd_w", -1)):
                if fd >= 0:
                    os.close(fd)
        self._release_uid()
        raise self._failure from exc

    def stop(self) -> None:
        """Kill the worker's tree now and return; close() reaps it.  Stopping several
        workers before closing them lets them die together."""
        if self._proc is not None and not self._closed:
            self._kill("closed")

    def close(self) -> None:
        """Kill the worker's whole tree and any escapee, reap, remove what it left."""
        if self._closed:
            return
        self._closed = True
        if self._proc is not None:
            self._kill("closed")
            self._reap(procs.REAP_S)
            self._stop.set()
            self._wake.set()
            with procs.lock:
                procs.live.discard(self._proc.pid)
            if self._plan.uid is not None:
                self._kill_uid()
            procs.sweep_escapees()  # bwrap's own init, or whatever left the tree
            os.close(self._cmd_w)
            for t in self._threads:
                t.join(timeout=2.0)
            self._remove_leftovers()
            self._release_uid()
            if isinstance(self._proc, zygote_mod.ForkedProcess) and self._status is not None:
                self._proc.release()  # ended: its warm sandbox may reap it
                self._empty_slot()
        self._close_folders()  # the watch has stopped: nothing reads them any more
        if self.scratch:
            procs.rmtree(self.scratch)

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def pid(self) -> int | None:
        """The worker's outermost process (bwrap's, under bubblewrap)."""
        return self._proc.pid if self._proc is not None else None

    def __enter__(self) -> "WorkerHandle":
        if self._proc is None:
            self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def output(self) -> dict:
        """The learner's own prints so far (complete once close() has returned)."""
        return {
            "stdout": bytes(self._out["stdout"]).decode("utf-8", "replace"),
            "stderr": bytes(self._out["stderr"]).decode("utf-8", "replace"),
            "truncated": self._truncated,
        }

    # -- requests

    def request(
        self,
        header: dict,
        blobs=(),
        timeout: float | None = None,
        *,
        clock: RunClock | None = None,
        reply_limit=None,
    ) -> tuple[dict, list[bytes]]:
        """Send one frame and wait for its reply; on any failure the worker is killed and
        WorkerFailure raised (again on every later request).

        ``timeout``: seconds of the code's own time (the call limit by default);
        ``clock``: the grading's run time, charged with this request's;
        ``reply_limit()``: (most bytes accepted, bytes expected, whether that is this
        call's expected result) for a reply larger than 1 MB, or None; it may wait for
        the expected result."""
        if self._failure is not None:
            raise self._failure
        if self._proc is None or self._closed:
            raise RuntimeError("request on a worker that is not running")
        where = str(header.get("op", "request"))
        try:
            if not self._ready:
                self._await_ready()
            data = wire.pack(self._token, self._seq + 1, header, list(blobs))
            self._seq += 1
            self._begin(where, timeout, clock, reply_limit)
            try:
                self._send(data, where)
                reply = self._receive(where)
            finally:
                self._end(clock)
            self._raise_if_out_of_memory(reply[0], where)
            return reply
        except WorkerFailure as failure:
            self._failure = failure
            self._kill("failed")
            self._reap(procs.REAP_S)
            raise

    def _next_message(self):
        """What the reader passed on (a reply, its end, a wire error), or None after a
        poll interval of nothing."""
        try:
            return self._inbox.get(timeout=POLL_S)
        except queue.Empty:
            return None

    def _await_ready(self) -> None:
        limit = self.limits.start_timeout_s
        deadline = self._t0 + limit
        while True:
            item = self._next_message()
            if isinstance(item, tuple):
                header = item[0]
                break
            if item is _EOF or isinstance(item, wire.WireError) or self._poll_exit():
                self._reap(1.0)
                raise self._death("start")
            if time.monotonic() >= deadline:
                raise WorkerFailure(
                    "timeout", f"the worker did not start within {seconds(limit)} s", where="start"
                )
        if header.get("op") != "ready" or not header.get("ok"):
            err = header.get("error") or {}
            raise WorkerFailure(
                "exited",
                f"the worker could not start: {err.get('type', '?')}: {err.get('message', '')}",
                where="start",
                detail=err,
            )
        if header.get("confine_failed"):
            raise WorkerFailure(
                "exited",
                "the worker could not confine itself: "
                + "; ".join(map(str, header["confine_failed"])),
                where="start",
            )
        self.ready_s = time.monotonic() - self._t0
        self.ready_info = header
        self._ready = True
        if not self.trusted:
            self._open_folders(header.get("compile_log"))

    def _begin(
        self, where: str, timeout: float | None, clock: RunClock | None, reply_limit
    ) -> None:
        """The bounds of this request: its own limit, or what is left of the run's."""
        limit = self.limits.call_timeout_s if timeout is None else timeout
        scope = "load" if where == "load" else "call"
        cpu = limit * self._cores
        wall = time.monotonic() + WALL_FACTOR * limit
        run_charged = run_cpu = 0.0
        if clock is not None:
            wall = min(wall, clock.begin())
            left = clock.limit_s - clock.charged_s
            run_charged, run_cpu = clock.charged_s, clock.cpu_s
            if left < limit:
                limit, scope = left, "run"
            cpu = min(cpu, clock.cpu_limit_s - clock.cpu_s)
        self._reply_limit = reply_limit
        meter = Meter(self._sample_python(), n_cores=self._cores)
        self._pending = {
            "meter": meter,
            "limit": max(0.0, limit),
            "cpu": max(0.0, cpu),
            "wall": wall,
            "scope": scope,
            "clock": clock,
            "run_charged": run_charged,
            "run_cpu": run_cpu,
        }
        if self._long_wait:  # the watch waits long between requests: wake it now
            self._wake.set()

    def _end(self, clock: RunClock | None) -> None:
        pending, self._pending = self._pending, None
        self._reply_limit = None
        if pending is None:
            return
        meter = pending["meter"]
        if self._status is None:
            meter.update(self._sample_python())
        else:
            meter.finish_unseen()
        if clock is not None:
            clock.add(meter.charged_s, meter.cpu_s)

    def _send(self, data: bytes, where: str) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._cmd_w, view) :]
                continue
            except BlockingIOError:
                pass
            except OSError:  # EPIPE: it died; EBADF: close() from another thread
                self._reap(procs.REAP_S)
                raise self._death(where) from None
            self._check(where)
            select.select([], [self._cmd_w], [], POLL_S)

    def _receive(self, where: str) -> tuple[dict, list[bytes]]:
        while True:
            item = self._next_message()
            if isinstance(item, tuple):
                return item
            if isinstance(item, ReplyTooLarge):
                expected = (
                    f"the expected result is {size_words(item.expected)}"
                    if item.exact
                    else f"the largest expected result so far is {size_words(item.expected)}"
                )
                raise WorkerFailure(
                    "too_large",
                    f"your code returned {size_words(item.got)} of arrays, but "
                    f"{expected}: at most {size_words(item.limit)} is accepted",
                    where=where,
                    detail={"reply_bytes": item.got, "expected_bytes": item.expected},
                )
            if isinstance(item, wire.WireError):
                raise WorkerFailure(
                    "protocol",
                    "the judge could not read the worker's reply: corrupted channel "
                    "(did the code write to file descriptors it does not own?)",
                    where=where,
                    detail={"error": str(item)},
                )
            if item is _EOF:
                return self._after_eof(where)
            if self._poll_exit():
                return self._after_exit(where)
            self._check(where)

    def _after_eof(self, where: str):
        """The reply pipe closed: the worker died, or the code closed the channel."""
        self._reap(1.0)
        if self._status is None:
            raise WorkerFailure(
                "protocol",
                "the channel to the judge was closed (did the code "
                "close file descriptors it does not own?)",
                where=where,
            )
        raise self._death(where)

    def _after_exit(self, where: str):
        """The worker is gone but an escapee may hold the pipe: take a reply it wrote first."""
        try:
            item = self._inbox.get(timeout=_GRACE_S)
        except queue.Empty:
            item = None
        if isinstance(item, tuple):
            return item
        raise self._death(where)

    def _check(self, where: str) -> None:
        """The watch killed it (time, memory, ...), or stop() did: say how it ended."""
        if self._kill_reason is not None:
            self._reap(procs.REAP_S)
            raise self._death(where)

    def _raise_if_out_of_memory(self, header: dict, where: str) -> None:
        err = header.get("error")
        if not header.get("ok") and isinstance(err, dict) and err.get("category") == "memory":
            raise WorkerFailure(
                "memory",
                f"your code ran out of memory (the limit is {self.limits.memory_mb} MB):"
                f" {err.get('message', '')}",
                where=where,
                detail=err,
            )

    # -- deaths

    def _death(self, where: str) -> WorkerFailure:
        """How the worker ended, in the learner's words (see deaths.explain)."""
        if self._status is None and self._kill_reason is None:
            self._reap(procs.REAP_S)
        status, rusage = self._status if self._status else (0, None)
        f = self._facts
        f.memory_mb, f.scratch_mb = self.limits.memory_mb, self.limits.scratch_mb
        f.processes, f.run_timeout_s = self.limits.processes, self.limits.run_timeout_s
        f.cores, f.peak_mb, f.lost_exit = self._cores, self._peak >> 20, _LOST_EXIT
        f.wrapped = self._plan is not None and self._plan.wrapped
        if rusage is not None and not f.wrapped:  # under bwrap it is bwrap's own
            f.extra = {
                "cpu_s": round(rusage.ru_utime + rusage.ru_stime, 3),
                "max_rss_mb": rusage.ru_maxrss >> 10,
            }
        if where == "start":
            for t in self._drains:
                t.join(timeout=0.5)  # to get its last words
            f.stderr = self.output()["stderr"]
        reason = self._kill_reason if self._kill_reason not in ("closed", "failed") else None
        return explain(where, status if self._status else None, reason, f)

    def _poll_exit(self) -> bool:
        if self._status is None and isinstance(self._proc, zygote_mod.ForkedProcess):
            status = self._proc.status()  # not the judge's child: the kernel keeps its status
            if status is not None:
                if self._proc.lost:
                    with self._kill_lock:
                        self._kill_reason = self._kill_reason or "sandbox"
                self._status = (status, None)
        elif self._status is None:
            try:
                pid, status, rusage = os.wait4(self._proc.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status, rusage = self._proc.pid, 0, None
            if pid:
                self._status = (status, rusage)
                self._proc.returncode = -1  # reaped here; keeps Popen from waiting again
        return self._status is not None

    def _reap(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self._poll_exit() and (left := deadline - time.monotonic()) > 0:
            if isinstance(self._proc, zygote_mod.ForkedProcess):
                self._proc.exited(min(left, 0.05))  # its pidfd wakes us when it ends
            else:
                time.sleep(0.005)

    def _kill(self, reason: str) -> None:
        with self._kill_lock:
            if self._kill_reason is None:
                self._kill_reason = reason
            if self._status is not None:
                return
            if isinstance(self._proc, zygote_mod.ForkedProcess):
                self._proc.kill()  # by its pidfd: no other process can be hit
            procs.kill_tree(self._proc.pid)

    def _kill_uid(self) -> None:
        """Every process of the worker's own uid, wherever it went: kill(-1) as that uid."""
        try:
            procs.run_helper(
                [sys.executable, "-S", "-c", "import os, signal; os.kill(-1, signal.SIGKILL)"],
                timeout=10,
                user=self._plan.uid,
                group=self._plan.uid,
                extra_groups=[],
            )
        except (OSError, subprocess.SubprocessError):
            pass
        procs.sweep_escapees()

    def _remove_leftovers(self) -> None:
        """A worker with its own uid but no Landlock could write to the shared /tmp,
        /var/tmp and /dev/shm: what that uid owns there goes."""
        uid = self._plan.uid if self._plan else None
        if uid is None:
            return
        for folder in ("/tmp", "/var/tmp", "/dev/shm"):
            try:
                fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                for entry in list(os.scandir(fd)):
                    try:
                        if entry.stat(follow_symlinks=False).st_uid == uid:
                            beneath.remove_in(fd, entry.name)
                    except OSError:
                        pass
            finally:
                os.close(fd)

    def _release_uid(self) -> None:
        if self._plan is not None and self._plan.uid is not None:
            policy.release_uid(self._plan.uid)

    # -- threads

    def _spawn_thread(self, target, *args) -> threading.Thread:
        t = threading.Thread(
            target=target,
            args=args,
            daemon=True,
            name=f"jj-worker-{self._proc.pid}-{target.__name__}",
        )
        t.start()
        self._threads.append(t)
        return t

    def _check_reply_size(self, total: int) -> None:
        limit_of = self._reply_limit
        if total <= _FREE_REPLY or limit_of is None:
            return
        bound = limit_of()
        if bound is not None and total > bound[0]:
            raise ReplyTooLarge(total, *bound)

    def _read_replies(self) -> None:
        """Parse frames as they come, in order: ready is seq 0, replies 1, 2, ..."""
        seq = 0
        try:
            while True:
                self._inbox.put(
                    wire.read_frame(
                        self._reply_r, self._token, seq, check_size=self._check_reply_size
                    )
                )
                seq += 1
        except EOFError:
            self._inbox.put(_EOF)
        except wire.WireError as exc:
            self._inbox.put(exc)
        except Exception as exc:  # OSError or MemoryError on a huge forged length
            self._inbox.put(wire.WireError(f"{type(exc).__name__}: {exc}"))
        finally:
            os.close(self._reply_r)

    def _drain(self, name: str, stream) -> None:
        """Keep the first output_bytes, read and drop the rest: the worker never blocks."""
        buf, cap, fd = self._out[name], self.limits.output_bytes, stream.fileno()
        try:
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                room = cap - len(buf)
                if room > 0:
                    buf += chunk[:room]
                if len(chunk) > room:
                    self._truncated = True
        except OSError:
            pass
        finally:
            stream.close()

    def _watch(self) -> None:
        """Every limit but the channel's, every 50 ms, over every process of the worker:
        memory (PSS of the tree, near the limit; plus its private /tmp and /dev/shm),
        processes, scratch, and the time of the request in flight."""
        limit = self.limits.memory_mb << 20
        polls = 0
        while self._status is None:
            # a request wakes the watch at once: its limits hold from its first moment
            # cheap while nothing runs: a warm worker waiting for its submission, or a
            # trusted one between requests (a service keeps many), is looked at rarely
            wait = (
                POLL_S
                if self._pending is not None
                else _WAITING_POLL_S
                if not self._seq
                else _TRUSTED_IDLE_S
                if self.trusted
                else POLL_S
            )
            self._long_wait = wait > POLL_S
            self._wake.wait(wait)
            self._long_wait = False
            self._wake.clear()
            if self._stop.is_set():
                return
            polls += 1
            pending = self._pending
            s = procs.sample(self._proc.pid, threads=pending is not None)
            if s.tasks > self.limits.processes:
                return self._kill("processes")
            used = s.rss + self._tmpfs_bytes()
            if used > limit:
                used = procs.pss_bytes(s.pids) + self._tmpfs_bytes()
                self._peak = max(self._peak, used)
                if used > limit:
                    return self._kill("memory")
            if self._writable_fd >= 0 and polls % _DISK_EVERY == 0:
                size, files = beneath.tree_bytes(self._writable_fd, _MAX_FILES)
                if size > self.limits.scratch_mb << 20 or files >= _MAX_FILES:
                    return self._kill("disk")
            if self.isolation == "process" and not self.trusted:
                procs.sweep_escapees(every_s=0.25)
            if pending is not None and self._over_time(pending, s):
                return

    def _over_time(self, p: dict, s: procs.Sample) -> bool:
        meter: Meter = p["meter"]
        meter.update(s)
        now = time.monotonic()
        f = self._facts
        f.scope, f.wall_s = p["scope"], meter.wall_s(now)
        if p["scope"] == "run":
            f.limit_s, f.charged_s = p["clock"].limit_s, p["run_charged"] + meter.charged_s
            f.cpu_s = p["run_cpu"] + meter.cpu_s
        else:
            f.limit_s, f.charged_s, f.cpu_s = p["limit"], meter.charged_s, meter.cpu_s
        for reason, over in (
            ("time", meter.charged_s >= p["limit"]),
            ("cpu", meter.cpu_s >= p["cpu"]),
            ("wall", now >= p["wall"]),
        ):
            if over:
                if reason == "cpu" and p["scope"] != "run":
                    f.limit_s = p["cpu"] / self._cores
                self._kill(reason)
                return True
        return False

    def _sample_python(self) -> procs.Sample:
        """The worker's Python process's main thread: what a request's start and end
        can afford (the watch reads every thread of the tree and the CPU; a thread it
        first meets counts as busy for that one interval)."""
        if self._python_pid is None:
            for pid in [self._proc.pid] + procs.descendants(self._proc.pid, limit=8):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        argv = f.read().split(b"\0")
                    # the interpreter itself, not bwrap (whose own argv holds the same words)
                    if argv[0] == os.fsencode(sys.executable) and b"-c" in argv[1:6]:
                        self._python_pid = pid
                        break
                except OSError:
                    pass
        return procs.sample_main_thread(self._python_pid or self._proc.pid)

    def _open_folders(self, records) -> None:
        """Once the worker is ready, before the submission is sent (no learner code has
        run): descriptors of bubblewrap's private /tmp and /dev/shm (through the
        sandbox's root in /proc, the one time that is resolved) and of the folder where
        XLA records the worker's compiles, with the watch on it.  ``records``: that
        folder as the worker names it, in its TMPDIR.  What cannot be opened now is the
        machine's, not the learner's: no compile log then, as before one existed."""
        try:
            if self._plan.tmpfs:
                if not self._tmpfs_fds:  # a forked worker's slot was opened with its sandbox
                    inside = procs.descendants(self._proc.pid, limit=1)
                    if not inside:
                        return
                    root = os.open(
                        f"/proc/{inside[0]}/root", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
                    )
                    try:
                        for path in self._plan.tmpfs:  # each kept as it opens: close() has it
                            self._tmpfs_fds.append(beneath.open_beneath(root, path.lstrip("/")))
                    finally:
                        os.close(root)
                home = dict(zip(self._plan.tmpfs, self._tmpfs_fds)).get(self.home, -1)  # type: ignore[arg-type]  # no home finds -1
            else:
                home = self._writable_fd
            if home < 0 or not isinstance(records, str) or not os.path.isabs(records):
                return
            rel = os.path.relpath(os.path.normpath(records), self.home)
            if rel.startswith(".."):
                return
            self.compile_log = CompileLog(beneath.open_beneath(home, rel))
        except (OSError, ValueError):
            self.compile_log = None

    def _empty_slot(self) -> None:
        """A forked worker's slot is used once, but its tmpfs lives as long as the warm
        sandbox: what the worker left there goes now, through the slot's descriptor."""
        for fd in self._tmpfs_fds:
            try:
                names = os.listdir(fd)
            except OSError:
                continue
            for name in names:
                beneath.remove_in(fd, name)

    def _close_folders(self) -> None:
        """Let go of the learner's folders (a private /tmp lives while it is held)."""
        if self.compile_log is not None:
            self.compile_log.close()
        for fd in self._tmpfs_fds + [self._writable_fd]:
            if fd >= 0:
                os.close(fd)
        self._tmpfs_fds, self._writable_fd = [], -1

    def _tmpfs_bytes(self) -> int:
        """What the code keeps in its private /tmp and /dev/shm: memory, as much as its own."""
        total = 0
        for fd in self._tmpfs_fds:
            try:
                st = os.fstatvfs(fd)
            except OSError:
                continue
            total += (st.f_blocks - st.f_bfree) * st.f_frsize
        return total

    # -- how it is started

    def _inner(self, worker_dir: str, confine: dict, cmd_fd: int, reply_fd: int) -> list[str]:
        cfg = self._config(cmd_fd, reply_fd, confine)
        # -s -P -B: no user site, no script dir on sys.path, no bytecode.  Not -I: its -E
        # would ignore PYTHONHASHSEED, and the environment is ours alone anyway.
        return [sys.executable, "-s", "-P", "-B", "-c", BOOTSTRAP, worker_dir, json.dumps(cfg)]

    def _config(self, cmd_fd: int, reply_fd: int, confine: dict) -> dict:
        deny = (
            []
            if self.trusted
            else sorted(
                {"judge", "reference"}
                | {os.path.basename(p.rstrip("/")) for p in self.hidden_paths}
            )
        )
        run_cpu = self.limits.run_timeout_s * self._cores
        return {
            "cmd_fd": cmd_fd,
            "reply_fd": reply_fd,
            # jax needs ~550 MiB of address space on 2 cores, ~64 MiB more per core; below
            # that floor memory exhaustion shows up as crashes, so stay far above it.
            "as_bytes": (self.limits.memory_mb + 1024 + 64 * self._cores) << 20,
            # the kernel's backstop behind the judge's clock (a trusted worker serves
            # many gradings: it has none); a minute more for its start
            "cpu_s": None if self.trusted else math.ceil(run_cpu + 60),
            "fsize": self.limits.file_size_bytes,
            # counts every process of a uid: only for a uid of the worker's own; a little
            # above the watch's limit, so that the watch says it first, in words
            "nproc": self.limits.processes + 16 if confine.get("own_uid") else None,
            "judge_pid": os.getpid() if self.isolation == "process" else None,
            "lost_exit": _LOST_EXIT,
            "deny": deny,
            "scrub_paths": scrub_paths(self.hidden_paths),
            "confine": confine,
            "devices": self.devices,
        }


def scrub_paths(hidden: list[str]) -> list[str]:
    """Folders to drop from the worker's sys.path: where the judge and the bank live,
    but never site-packages (an installed judge lives there beside numpy and jax; the
    deny list and the sandbox's view keep `import judge` out instead)."""
    import site

    keep = {os.path.realpath(p) for p in site.getsitepackages() + [site.getusersitepackages()]}
    wanted = {os.path.dirname(policy.JUDGE_DIR)} | {os.path.dirname(p) for p in hidden}
    return sorted(p for p in wanted if os.path.realpath(p) not in keep)
