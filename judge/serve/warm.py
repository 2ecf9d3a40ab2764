"""Warm, not shared: what the service keeps started so a grading need not wait for it.

``LearnerPool``: ``size`` learner workers spawned ahead of need, each already importing
numpy and jax, each waiting for its one submission.  A worker is handed to one grading
and closed with it (``Grading`` closes its learner): one that ran a learner's code never
serves another.  The pool refills in the background, one spawn at a time.  ``size`` is
the whole pool, whatever the bank's tasks ask of their workers (their limits and
devices): the pool shares its ``size`` places among the kinds in proportion to what the
last gradings asked for (``WANT_WINDOW`` per place; at start, the kinds most tasks use),
so a class working on one task gets its kind, a kind nobody asks for any more gives its
worker back, and a kind asked for now and then does not churn the pool: a worker
started for it and closed unused when the next grading asked for the other kind is a
whole start of jax wasted (a class mixing two kinds 4:1 with two places spent a fifth
more starts than it graded).  A pool nobody has touched for
``idle_s`` (no worker taken, none added) gives its memory back down to ``keep_idle``
workers (one: the first verdict after a quiet spell still finds a worker waiting), of
the kind asked for last, and fills again to ``size`` when a grading next takes one.

``WarmOracles``: a reference worker per task for the task's own seed, started when the
task is first graded (not all at start: a bank of 28 references takes minutes to warm
and holds gigabytes), memoising every reference value a grading asks for.  At most
``keep`` are kept; one idle for ``idle_s`` gives its memory back (its next grading
starts it again), and past ``keep`` the least recently used idle one goes.  A warm
oracle is retired after ``retire_after`` gradings (its memo grows with every new
counterexample a wrong submission shrinks to, and its worker has a lifetime limit) and
replaced by one warmed in the background; the old one is closed once no grading uses it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path

from ..bank import Bank, Task
from ..limits import Limits
from ..runner import Oracle, grade
from ..sandbox import WorkerHandle, forked_unavailable, requested_isolation, resolve_isolation
from ..session import Session, start_learner_worker
from ..verdicts import Verdict

log = logging.getLogger("judge.serve")


def sandbox_limits(task: Task) -> Limits:
    """The worker limits a grading of this task runs under (as its Session makes them)."""
    return Session(Path(task.reference_path), "", task.entrypoint, task.limits).limits


def service_isolation(requested: str | None) -> str:
    """How the service's learner workers are held: ``auto`` forks them from a warm
    sandbox where that works (policy.forked_unavailable), else as ``judge run`` does."""
    mode = requested_isolation(requested)
    if mode == "auto" and not forked_unavailable():
        return "forked"
    return resolve_isolation(mode)


def pool_key(task: Task) -> tuple:
    """Tasks whose learner workers are interchangeable before any code is loaded."""
    return task.limits, task.devices


WANT_WINDOW = 8  # gradings remembered per place of the pool, to share the places out


def quotas(asked: list, places: int) -> dict:
    """Each kind's exact share of ``places``: in proportion to how often it was asked for."""
    return {k: places * n / len(asked) for k, n in Counter(asked).items()} if asked else {}


def shares(asked: list, places: int) -> Counter:
    """``places`` shared among the kinds in ``asked`` in proportion to how often each was
    asked for (largest remainder; a tie goes to the kind asked for most recently)."""
    if not asked or places <= 0:
        return Counter()
    last = {k: i for i, k in enumerate(asked)}
    quota = quotas(asked, places)
    out = Counter({k: int(q) for k, q in quota.items()})
    rest = sorted(quota, key=lambda k: (quota[k] - int(quota[k]), last[k]), reverse=True)
    for k in rest[: places - sum(out.values())]:
        out[k] += 1
    return +out


class LearnerPool:
    """``size`` started learner workers in all, of the kinds (task limits and devices)
    the last gradings asked for, shared out in proportion (``shares``); ``keep_idle`` of
    them once the pool has been left alone for ``idle_s``."""

    def __init__(
        self,
        bank: Bank,
        size: int,
        *,
        idle_s: float = 300.0,
        keep_idle: int = 1,
        isolation: str | None = None,
    ):
        self.bank, self.size = bank, size
        # forked: a worker costs a fork from a warm sandbox, not a start of jax
        self.isolation = service_isolation(isolation)
        self.idle_s = idle_s
        self.keep_idle = max(0, min(size, keep_idle))  # what a quiet spell keeps
        self.hidden = bank.hidden_paths()
        self._limits: dict[tuple, Limits] = {}
        for task in bank.tasks.values():
            self._limits.setdefault(pool_key(task), sandbox_limits(task))
        self._idle: dict[tuple, deque[WorkerHandle]] = {k: deque() for k in self._limits}
        # the kinds the last gradings asked for, oldest first (at start, one entry per
        # place: the kinds most of the bank's tasks share)
        common = Counter(pool_key(t) for t in bank.tasks.values())
        order = [k for k, _ in common.most_common()] or list(self._limits)
        self._wanted: deque[tuple] = deque(
            (order[i % len(order)] for i in range(size)) if order else (),
            maxlen=max(size, 1) * WANT_WINDOW,
        )
        self._cond = threading.Condition()
        self._closed = False
        self.taken = 0  # gradings that got a warm worker
        self.missed = 0  # gradings that found the pool empty and started their own
        self.released = 0  # warm workers closed unused: a quiet spell, a kind not asked for
        self._touched = time.monotonic()  # a worker last taken or added
        self._quiet = False  # left alone for idle_s: keep_idle kept, until the next take
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.size > 0:
            self._thread = threading.Thread(target=self._refill, name="serve-pool", daemon=True)
            self._thread.start()

    def take(self, task: Task) -> WorkerHandle | None:
        """A started worker for this task's limits, or None (the grading starts one)."""
        with self._cond:
            key = pool_key(task)
            idle = self._idle.get(key)
            if self.size > 0 and key in self._limits:
                self._wanted.append(key)  # its refill is of the kind asked for
            dead = []
            while idle and not _running(idle[0]):
                dead.append(idle.popleft())  # died while it waited (the OOM killer, ...)
            worker = idle.popleft() if idle else None
            if worker is None:
                self.missed += 1
            else:
                self.taken += 1
            self._touched, self._quiet = time.monotonic(), False  # busy again: fill up
            self._cond.notify_all()
        for w in dead:
            log.warning("a warm learner worker had died while it waited; started another")
            w.close()
        if worker is None and self.isolation == "forked" and key in self._limits:
            try:  # a fork is cheap: the grading need not start a sandbox of its own
                worker = self._start(key)
            except Exception as exc:
                log.warning("could not fork a learner worker: %s", exc)
        return worker

    def _start(self, key: tuple) -> WorkerHandle:
        return start_learner_worker(
            self._limits[key], hidden_paths=self.hidden, devices=key[1], isolation=self.isolation
        )

    @property
    def warm(self) -> int:
        with self._cond:
            return sum(len(q) for q in self._idle.values())

    @property
    def target(self) -> int:
        """The workers the pool holds or is filling to now: ``size``, or ``keep_idle``
        through a quiet spell."""
        with self._cond:
            return sum(self._want().values())

    def _refill(self) -> None:
        while True:
            with self._cond:
                while not self._closed and self._full():
                    self._cond.wait(self._quiet_in())
                    self._check_quiet()
                if self._closed:
                    return
                surplus = self._surplus()
                key = None if surplus else self._short()  # None only with a surplus
            if surplus:  # a quiet spell, or a kind nobody asked for lately
                surplus.stop()
                surplus.close()
                with self._cond:
                    self.released += 1
                log.info(
                    "a warm learner worker was given back (%s)",
                    f"no submission for {self.idle_s:g} s"
                    if self._quiet
                    else "a kind not asked for",
                )
                continue
            try:
                worker = self._start(key)  # type: ignore[arg-type]  # no surplus here: a key
            except Exception as exc:  # the machine is out of processes, ...
                log.warning("could not start a warm learner worker: %s", exc)
                with self._cond:
                    self._cond.wait(1.0)
                continue
            with self._cond:
                if self._closed:
                    worker.close()
                    return
                self._idle[key].append(worker)  # type: ignore[index]  # as above
                self._touched = time.monotonic()

    # called with self._cond held
    def _quiet_in(self) -> float | None:
        """Seconds until the pool has been left alone for ``idle_s`` (None: it is quiet
        already, or a quiet spell would keep it as it is)."""
        if self._quiet or sum(len(q) for q in self._idle.values()) <= self.keep_idle:
            return None
        return max(0.0, self._touched + self.idle_s - time.monotonic()) + 0.01

    def _check_quiet(self) -> None:
        if not self._quiet and time.monotonic() - self._touched >= self.idle_s:
            self._quiet = True  # from here _want() is keep_idle, until the next take

    def _want(self) -> Counter:
        """How many workers of each kind the pool holds: its places shared among the
        kinds the last gradings asked for, or one for each of the last ``keep_idle``
        through a quiet spell."""
        wanted = list(self._wanted)
        if self._quiet:
            return Counter(wanted[len(wanted) - self.keep_idle :] if self.keep_idle else [])
        return shares(wanted, self.size)

    def _full(self) -> bool:
        held = sum(len(q) for q in self._idle.values())
        return held >= sum(self._want().values()) and self._surplus_kind() is None

    def _surplus_kind(self) -> tuple | None:
        """A kind holding a worker it should give back. Through a quiet spell, any kind
        held beyond what the spell keeps. Otherwise a kind none of the remembered
        gradings asked for, or, where every place is taken and a kind is owed a whole
        place by its quota (asked for often enough, holding fewer), the kind held
        furthest beyond its exact quota. Never merely because the rounded shares moved:
        a started worker is a whole start of jax, and closing one because its kind was
        asked for a little less lately throws it away where the next grading of its kind
        would have used it (at two places over five tasks, 19 workers of 79 started
        were closed unused that way). Yet a pool that made room only for a kind no longer
        remembered missed every grading of a class that moved to a task of another kind
        until the old kind left the window (16 gradings at two places), and on a fresh
        service those of the first task outside the start-up guess."""
        held = {k: len(q) for k, q in self._idle.items() if q}
        if self._quiet:
            want = self._want()
            return next((k for k, n in held.items() if n > want[k]), None)
        asked = list(self._wanted)
        for k in held:
            if k not in asked:
                return k
        if sum(held.values()) < self.size:
            return None  # room to start the owed kind's worker without closing any
        quota = quotas(asked, self.size)
        if not any(held.get(k, 0) < int(q) for k, q in quota.items()):
            return None
        over = {k: n - quota.get(k, 0.0) for k, n in held.items()}
        kind = max(over, key=over.__getitem__, default=None)
        return kind if kind is not None and over[kind] > 0 else None

    def _surplus(self) -> WorkerHandle | None:
        """An idle worker to give back (taken out of the pool): of its kind, the one that
        waited longest."""
        kind = self._surplus_kind()
        return self._idle[kind].popleft() if kind is not None else None

    def _short(self) -> tuple:
        """The kind furthest below its share: the next worker to start."""
        want = self._want()
        return max(self._idle, key=lambda k: want[k] - len(self._idle[k]))

    def close(self) -> None:
        with self._cond:
            self._closed = True
            idle = [w for q in self._idle.values() for w in q]
            for q in self._idle.values():
                q.clear()
            self._cond.notify_all()
        for w in idle:
            w.stop()
        for w in idle:
            w.close()


def _running(worker: WorkerHandle) -> bool:
    """The worker's process is there and not a zombie (read from /proc, no wait)."""
    try:
        with open(f"/proc/{worker.pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError, TypeError):
        return False


def _oracle_running(oracle: Oracle) -> bool:
    return oracle.session.alive and _running(oracle.session.worker)


@dataclass
class _Warm:
    oracle: Oracle
    users: int = 0  # gradings using it now
    served: int = 0  # gradings it has served
    retired: bool = False
    ready: bool = False  # inputs drawn and values memoised (a grading went through)
    last_used: float = field(default_factory=time.monotonic)


@dataclass
class _Slot:
    lock: threading.Lock = field(default_factory=threading.Lock)
    current: _Warm | None = None
    replacing: bool = False


class WarmOracles:
    """A warm Oracle per task for the task's own seed, started by the task's first
    grading, at most ``keep`` of them, each given back after ``idle_s`` unused (other
    seeds get their own, closed with their grading: a client choosing seeds cannot fill
    the machine)."""

    def __init__(
        self, bank: Bank, retire_after: int = 200, *, keep: int = 8, idle_s: float = 300.0
    ):
        self.bank, self.retire_after = bank, retire_after
        self.keep, self.idle_s = max(1, keep), idle_s
        self._slots = {task_id: _Slot() for task_id in bank.tasks}
        self._closed = False
        self._stop = threading.Event()
        self.released = 0  # oracles given back (idle, or past `keep`)

    def start(self) -> None:
        """Nothing is warmed now; a reaper gives idle oracles' memory back."""
        threading.Thread(target=self._reap, name="serve-oracle-reaper", daemon=True).start()

    def _reap(self) -> None:
        while not self._stop.wait(min(5.0, max(0.2, self.idle_s / 4))):
            self.release_idle()

    def release_idle(self, now: float | None = None) -> int:
        """Close every oracle no grading uses that has been idle ``idle_s``, and the
        least recently used idle ones past ``keep``; how many were closed."""
        now = time.monotonic() if now is None else now
        live = []
        for task_id, slot in self._slots.items():
            with slot.lock:
                if slot.current is not None:
                    live.append((slot.current.last_used, task_id))
        live.sort()
        over = len(live) - self.keep
        closed = 0
        for last_used, task_id in live:
            if now - last_used < self.idle_s and over <= 0:
                continue
            slot = self._slots[task_id]
            with slot.lock:
                warm = slot.current
                if warm is None or warm.users or slot.replacing:
                    continue
                slot.current = None
                warm.retired = True
            warm.oracle.close()
            closed += 1
            over -= 1
            self.released += 1
            log.info(
                "task %s: its reference was given back (%s)",
                task_id,
                f"idle {now - last_used:.0f} s"
                if now - last_used >= self.idle_s
                else f"more than {self.keep} kept",
            )
        return closed

    def _warmed(self, task: Task) -> _Warm:
        oracle = Oracle(task, task.seed)
        oracle.start()
        try:
            # the reference graded through this oracle: inputs drawn, values memoised
            report = grade(
                task, task.reference_path, oracle=oracle, display_name=task.reference_path.name
            )
            if report.verdict != Verdict.ACCEPTED:
                log.warning("task %s: its reference is not accepted (%s)", task.id, report.verdict)
        except Exception as exc:
            log.warning("task %s: warming its reference failed: %s", task.id, exc)
        return _Warm(oracle, ready=True)

    def _install(self, task: Task, warm: _Warm) -> None:
        slot = self._slots[task.id]
        with slot.lock:
            old, slot.current, slot.replacing = slot.current, warm, False
            if self._closed:
                warm.retired = True
            if old is not None:
                old.retired = True
                if old.users:
                    old = None  # its last grading closes it
        if old is not None:
            old.oracle.close()
        if self._closed:
            warm.oracle.close()

    def acquire(self, task: Task) -> _Warm:
        """The task's warm oracle (started now, cold, if there is none or it died)."""
        slot = self._slots[task.id]
        with slot.lock:
            warm = slot.current
            if warm is None or not _oracle_running(warm.oracle):
                if warm is not None:
                    warm.retired = True
                    if not warm.users:
                        warm.oracle.close()
                oracle = Oracle(task, task.seed)
                oracle.start()
                warm = slot.current = _Warm(oracle)
                started = True
            else:
                started = False
            warm.users += 1
            warm.last_used = time.monotonic()
            warm.served += 1
            replace = warm.served >= self.retire_after and not slot.replacing
            slot.replacing |= replace
        if replace:
            threading.Thread(
                target=lambda: self._install(task, self._warmed(task)),
                name=f"serve-rewarm-{task.id}",
                daemon=True,
            ).start()
        if started:
            self.release_idle()  # past `keep`: the least recently used idle one
        return warm

    def release(self, task: Task, warm: _Warm) -> None:
        slot = self._slots[task.id]
        with slot.lock:
            warm.users -= 1
            warm.ready = True
            warm.last_used = time.monotonic()
            done = warm.retired and not warm.users
        if done:
            warm.oracle.close()

    @property
    def warm(self) -> int:
        return sum(
            1
            for s in self._slots.values()
            if s.current is not None and s.current.ready and _oracle_running(s.current.oracle)
        )

    @property
    def target(self) -> int:
        """The oracles started and kept now (warm or warming): the others warm when their
        task is first graded."""
        return sum(1 for s in self._slots.values() if s.current is not None)

    def close(self) -> None:
        self._closed = True
        self._stop.set()
        for slot in self._slots.values():
            with slot.lock:
                warm, slot.current = slot.current, None
            if warm is not None:
                warm.oracle.stop()
                warm.oracle.close()
