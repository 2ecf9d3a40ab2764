"""Warm sandboxes that fork learner workers (``forked`` isolation; the worker's side is
judge/worker/zygote.py).

A fresh worker spends most of its start importing numpy and jax: about half a second of
CPU, a quarter of a whole grading's.  A ``Zygote`` is one bubblewrap sandbox, built as a
worker's would be, whose server process imports them once and then forks a worker per
request; each worker becomes, from its first instruction after the fork, the worker a
fresh sandbox would have started, confined as its own Landlock domain and seccomp
filters say (judge/sandbox/policy.py, ``forked_plan``).

A sandbox has ``SLOTS`` slots, each a tmpfs of the worker's /tmp size mounted by
bubblewrap before anything ran; each worker gets a slot of its own, used once: nothing a
worker leaves there can meet another, and nothing needs cleaning.  A sandbox whose slots
are spent takes no more workers and ends with its last one; the next is started when
half of them are taken, so a spawn never waits for jax.  The descriptors of the slots
are opened through the sandbox's root when its server says it is ready, before any
worker exists: the judge acts in a slot only through them (beneath.py).

Each spawned worker comes back as a ``ForkedProcess``: its pid (read from a pidfd the
server sent, translated by the kernel), its output pipes, and how it ended (the exit
code the kernel keeps for a zombie; the server reaps a worker only once the judge has
released it, so the pid cannot be reused while the judge may signal it).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from . import beneath, policy, procs

SLOTS = 48  # workers per warm sandbox
_SLOT_DIR = "/tmp/w"
_READY_S = 120.0  # the server's start: imports, on a busy machine
_ANSWER_S = 30.0  # one spawn (a fork)
_STDERR_KEPT = 4096
# how long a worker killed by no one the judge knows waits for its sandbox to be seen
# ending: the kernel kills a dying sandbox's processes before its outer process exits
_SANDBOX_END_S = 2.0
ZYGOTE_BOOTSTRAP = policy.bootstrap("zygote.serve")


class ZygoteFailure(OSError):
    """The warm sandbox could not start, or stopped answering: the judge's trouble."""


class ForkedProcess:
    """What WorkerHandle needs of a worker process it did not start itself."""

    def __init__(self, zygote: "Zygote", ns_pid: int, pidfd: int, stdout, stderr):
        self.zygote, self.ns_pid, self.pidfd = zygote, ns_pid, pidfd
        self.pid = _pid_of(pidfd)
        self.stdout, self.stderr = stdout, stderr
        self.returncode: int | None = None  # Popen's field, for code that reads it
        self.lost = False  # ended, and reaped by another: how is not known
        self.killed = False  # the judge sent it SIGKILL
        self._released = False

    def exited(self, wait_s: float = 0.0) -> bool:
        """Has it ended (waiting up to ``wait_s`` for it to)?"""
        if self.pidfd < 0:
            return True
        return bool(select.select([self.pidfd], [], [], wait_s)[0])

    def status(self) -> int | None:
        """Its wait status once it has ended (a zombie until released), else None.  A
        worker reaped by another (its sandbox's init, once the server died) is ``lost``:
        how it ended is not known, and not to be read as the learner's exit code 0."""
        if not self.exited():
            return None
        fields = procs.stat_fields(self.pid)
        if not fields or fields[0] != b"Z":
            self.lost = True
            return 0
        try:
            status = int(fields[-1])
        except ValueError:
            self.lost = True
            return 0
        if (
            not self.killed
            and os.WIFSIGNALED(status)
            and os.WTERMSIG(status) == signal.SIGKILL
            and self.zygote.ended(_SANDBOX_END_S)
        ):
            # killed as its sandbox ended, seen before the sandbox's init reaped it:
            # the judge's trouble all the same, never the learner's SIGKILL
            self.lost = True
        return status

    def kill(self) -> None:
        self.killed = True
        if self.pidfd >= 0:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except (ProcessLookupError, OSError):
                pass

    def release(self) -> None:
        """The judge is done with it (it has ended): the server may reap it now."""
        if self._released:
            return
        self._released = True
        pidfd, self.pidfd = self.pidfd, -1  # no later look may select on a reused number
        os.close(pidfd)
        self.zygote.release(self.ns_pid)


def _pid_of(pidfd: int) -> int:
    with open(f"/proc/self/fdinfo/{pidfd}") as f:
        for line in f:
            if line.startswith("Pid:"):
                pid = int(line.split()[1])
                if pid > 0:
                    return pid
    raise ZygoteFailure("the forked worker's pid is not visible here")


class Zygote:
    """One warm sandbox: start() launches it; spawn() forks a worker into a free slot."""

    def __init__(self, hidden: tuple[str, ...], slot_bytes: int):
        self.hidden, self.slot_bytes = hidden, slot_bytes
        self.inbox = tempfile.mkdtemp(prefix="zygote-", dir=procs.scratch_root())
        self.slots = tuple(f"{_SLOT_DIR}/{i}" for i in range(SLOTS))
        self.taken = 0  # slots handed out
        self.live = 0  # workers spawned and not yet released
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._failure: str | None = None
        self._slot_fds: list[int] = []
        self._stderr = bytearray()
        self._closed = False
        self._control, child_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            config = {"control_fd": child_end.fileno()}
            argv = policy.zygote_argv(
                self.inbox,
                list(hidden),
                self.slots,
                slot_bytes,
                lambda worker_dir: [
                    sys.executable, "-s", "-P", "-B", "-c", ZYGOTE_BOOTSTRAP,
                    worker_dir, json.dumps(config),
                ],
            )  # fmt: skip
            procs.prepare_judge()
            self._proc = procs.spawn(
                argv, (child_end.fileno(),), self.inbox, policy.base_env("/tmp")
            )
        except BaseException:
            self._control.close()
            procs.rmtree(self.inbox)
            raise
        finally:
            child_end.close()
        threading.Thread(target=self._drain, daemon=True, name="jj-zygote-drain").start()
        threading.Thread(target=self._await_ready, daemon=True, name="jj-zygote-ready").start()

    # -- start

    def _drain(self) -> None:
        for stream in (self._proc.stdout, self._proc.stderr):
            threading.Thread(target=self._drain_one, args=(stream,), daemon=True).start()

    def _drain_one(self, stream) -> None:
        try:
            while chunk := stream.read1(1 << 14):
                self._stderr += chunk
                del self._stderr[: max(0, len(self._stderr) - _STDERR_KEPT)]
        except (OSError, ValueError):
            pass

    def _await_ready(self) -> None:
        try:
            self._control.settimeout(_READY_S)
            message = json.loads(self._control.recv(1 << 16) or b"{}")
            if not message.get("ok"):
                why = message.get("error") or self._stderr.decode(errors="replace")[-500:]
                raise ZygoteFailure(f"the warm sandbox did not start: {why or 'it exited'}")
            self._open_slots()
        except (OSError, ValueError) as exc:
            self._failure = str(exc) or type(exc).__name__
            self._stop()
        finally:
            self._ready.set()

    def _open_slots(self) -> None:
        """Every slot's descriptor, through the sandbox's root (the one time that is
        resolved), before any worker exists."""
        inside = procs.descendants(self._proc.pid, limit=1)
        if not inside:
            raise ZygoteFailure("the warm sandbox has no process inside")
        root = os.open(f"/proc/{inside[0]}/root", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for slot in self.slots:
                self._slot_fds.append(beneath.open_beneath(root, slot.lstrip("/")))
        finally:
            os.close(root)

    def wait_ready(self) -> None:
        if not self._ready.wait(_READY_S + 5):
            raise ZygoteFailure("the warm sandbox did not start in time")
        if self._failure is not None:
            raise ZygoteFailure(self._failure)

    # -- workers

    def ended(self, wait_s: float = 0.0) -> bool:
        """Has the sandbox's outer process exited (waiting up to ``wait_s`` for it to)?"""
        try:
            self._proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            return False
        return True

    @property
    def spent(self) -> bool:
        """Takes no more workers: every slot handed out, or it failed, ended or closed."""
        return (
            self.taken >= len(self.slots)
            or self._failure is not None
            or self._closed
            or self._proc.poll() is not None
        )

    def take_slot(self) -> int | None:
        """A slot of its own for the next worker, or None when all were handed out."""
        with self._lock:
            if self.spent:
                return None
            self.taken += 1
            self.live += 1
            return self.taken - 1

    def slot_fd(self, slot: int) -> int:
        """A descriptor of the slot's tmpfs, for the worker's handle to keep (a dup)."""
        self.wait_ready()
        return os.dup(self._slot_fds[slot])

    def spawn(
        self, slot: int, config: dict, env: dict, fds: list[int], stdout, stderr
    ) -> ForkedProcess:
        """Fork a worker into ``slot``: ``fds`` are its request and reply pipes, its
        stdout and stderr (the ends it keeps; the caller closes its copies).  On any
        failure the slot's worker counts as released."""
        got: list[int] = []
        try:
            self.wait_ready()
            request = {"op": "spawn", "config": config, "env": env, "cwd": self.slots[slot]}
            with self._lock:
                if self._closed:
                    raise ZygoteFailure("the warm sandbox was closed")
                try:
                    self._control.settimeout(_ANSWER_S)
                    socket.send_fds(self._control, [json.dumps(request).encode()], fds)
                    data, got, _, _ = socket.recv_fds(self._control, 1 << 16, 1)
                except OSError as exc:
                    self._failure = f"the warm sandbox stopped answering: {exc}"
                    raise ZygoteFailure(self._failure) from exc
            answer = json.loads(data or b"{}")
            if not answer.get("ok") or len(got) != 1:
                raise ZygoteFailure(
                    f"the warm sandbox could not fork a worker: {answer.get('error', 'no answer')}"
                )
            return ForkedProcess(self, int(answer["pid"]), got[0], stdout, stderr)
        except BaseException as exc:
            if isinstance(exc, ZygoteFailure):
                self._failure = self._failure or str(exc)  # spent: the next fork goes elsewhere
            for fd in got:
                os.close(fd)
            self.release(None)
            raise

    def release(self, ns_pid: int | None) -> None:
        """A worker of this sandbox is done with (None: one that never started)."""
        with self._lock:
            self.live -= 1
            last = self.live <= 0 and self.spent
            if ns_pid is not None and not self._closed:
                try:
                    self._control.settimeout(_ANSWER_S)
                    self._control.send(json.dumps({"op": "release", "pid": ns_pid}).encode())
                except OSError:
                    pass
        if last:
            self.close()

    # -- end

    def close(self) -> None:
        """End the sandbox and whatever still runs in it."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stop()

    def _stop(self) -> None:
        self._closed = True
        try:
            self._control.close()
        except OSError:
            pass
        procs.kill_tree(self._proc.pid)
        deadline = time.monotonic() + procs.REAP_S
        while self._proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        with procs.lock:
            procs.live.discard(self._proc.pid)
        for fd in self._slot_fds:
            os.close(fd)
        self._slot_fds = []
        procs.rmtree(self.inbox)


class Zygotes:
    """The warm sandboxes of this judge process, one in use per kind of view (the bank's
    hidden paths, the slot size): the next is started when half of the current one's
    slots are taken."""

    def __init__(self):
        self._lock = threading.Lock()
        self._current: dict[tuple, Zygote] = {}
        self._next: dict[tuple, Zygote] = {}
        self._all: list[Zygote] = []

    def slot(self, hidden: tuple[str, ...], slot_bytes: int) -> tuple[Zygote, int]:
        """A warm sandbox and a slot of its own in it."""
        key = (hidden, slot_bytes)
        with self._lock:
            for _ in range(3):
                zygote = self._current.get(key)
                if zygote is None or zygote.spent:
                    zygote = self._next.pop(key, None) or self._start(key)
                    self._current[key] = zygote
                taken = zygote.take_slot()
                if taken is not None:
                    if zygote.taken >= len(zygote.slots) // 2 and key not in self._next:
                        self._next[key] = self._start(key)
                    return zygote, taken
            raise ZygoteFailure("no warm sandbox could take a worker")

    def _start(self, key: tuple) -> Zygote:
        self._all = [z for z in self._all if not z._closed]
        zygote = Zygote(*key)
        self._all.append(zygote)
        return zygote

    def close(self) -> None:
        with self._lock:
            zygotes, self._all = self._all, []
            self._current.clear()
            self._next.clear()
        for zygote in zygotes:
            zygote.close()


zygotes = Zygotes()
atexit.register(zygotes.close)
