"""Warm, not shared: what the service keeps started so a grading need not wait for it.

``LearnerPool``: learner workers spawned ahead of need, each already importing numpy and
jax, each waiting for its one submission.  A worker is handed to one grading and closed
with it (``Grading`` closes its learner): one that ran a learner's code never serves
another.  The pool refills in the background, one spawn at a time.

``WarmOracles``: one reference worker per task for the task's own seed, warmed once in
the background by grading the reference itself through it, so the inputs are drawn and
every reference value a grading asks for is memoised before the first learner comes.
A warm oracle is retired after ``retire_after`` gradings (its memo grows with every new
counterexample a wrong submission shrinks to, and its worker has a lifetime limit) and
replaced by one warmed in the background; the old one is closed once no grading uses it.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from ..bank import Bank, Task
from ..runner import Oracle, grade
from ..sandbox import WorkerHandle
from ..session import Session, start_learner_worker
from ..verdicts import Verdict

log = logging.getLogger("judge.serve")


def sandbox_limits(task: Task):
    """The worker limits a grading of this task runs under (as its Session makes them)."""
    return Session(Path(task.reference_path), "", task.entrypoint, task.limits).limits


def pool_key(task: Task) -> tuple:
    """Tasks whose learner workers are interchangeable before any code is loaded."""
    return task.limits, task.devices


class LearnerPool:
    """``size`` started learner workers per distinct set of task limits and devices."""

    def __init__(self, bank: Bank, size: int):
        self.bank, self.size = bank, size
        self.hidden = bank.hidden_paths()
        self._limits: dict[tuple, object] = {}
        for task in bank.tasks.values():
            self._limits.setdefault(pool_key(task), sandbox_limits(task))
        self._idle: dict[tuple, deque[WorkerHandle]] = {k: deque() for k in self._limits}
        self._cond = threading.Condition()
        self._closed = False
        self.taken = 0           # gradings that got a warm worker
        self.missed = 0          # gradings that found the pool empty and started their own
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self.size > 0:
            self._thread = threading.Thread(target=self._refill, name="serve-pool", daemon=True)
            self._thread.start()

    def take(self, task: Task) -> WorkerHandle | None:
        """A started worker for this task's limits, or None (the grading starts one)."""
        with self._cond:
            idle = self._idle.get(pool_key(task))
            dead = []
            while idle and not _running(idle[0]):
                dead.append(idle.popleft())      # died while it waited (the OOM killer, ...)
            worker = idle.popleft() if idle else None
            if worker is None:
                self.missed += 1
            else:
                self.taken += 1
            self._cond.notify_all()
        for w in dead:
            log.warning("a warm learner worker had died while it waited; started another")
            w.close()
        return worker

    @property
    def warm(self) -> int:
        with self._cond:
            return sum(len(q) for q in self._idle.values())

    @property
    def target(self) -> int:
        return self.size * len(self._limits)

    def _refill(self) -> None:
        while True:
            with self._cond:
                while not self._closed and self._full():
                    self._cond.wait()
                if self._closed:
                    return
                key = next(k for k, q in self._idle.items() if len(q) < self.size)
            try:
                worker = start_learner_worker(self._limits[key], hidden_paths=self.hidden,
                                              devices=key[1])
            except Exception as exc:           # the machine is out of processes, ...
                log.warning("could not start a warm learner worker: %s", exc)
                with self._cond:
                    self._cond.wait(1.0)
                continue
            with self._cond:
                if self._closed:
                    worker.close()
                    return
                self._idle[key].append(worker)

    def _full(self) -> bool:
        return all(len(q) >= self.size for q in self._idle.values())

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
    users: int = 0               # gradings using it now
    served: int = 0              # gradings it has served
    retired: bool = False
    ready: bool = False          # inputs drawn and values memoised (a grading went through)


@dataclass
class _Slot:
    lock: threading.Lock = field(default_factory=threading.Lock)
    current: _Warm | None = None
    replacing: bool = False


class WarmOracles:
    """One warm Oracle per task for the task's own seed (other seeds get their own,
    closed with their grading: a client choosing seeds cannot fill the machine)."""

    def __init__(self, bank: Bank, retire_after: int = 200):
        self.bank, self.retire_after = bank, retire_after
        self._slots = {task_id: _Slot() for task_id in bank.tasks}
        self._closed = False

    def start(self) -> None:
        """Warm every task's oracle, one after another, in the background."""
        threading.Thread(target=self._warm_all, name="serve-warm-oracles", daemon=True).start()

    def _warm_all(self) -> None:
        for task in self.bank.tasks.values():
            if self._closed:
                return
            slot = self._slots[task.id]
            with slot.lock:
                if slot.current is not None:
                    continue                 # a grading got there first
            self._install(task, self._warmed(task))

    def _warmed(self, task: Task) -> _Warm:
        oracle = Oracle(task, task.seed)
        oracle.start()
        try:
            # the reference graded through this oracle: inputs drawn, values memoised
            report = grade(task, task.reference_path, oracle=oracle,
                           display_name=task.reference_path.name)
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
                    old = None               # its last grading closes it
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
            warm.users += 1
            warm.served += 1
            replace = warm.served >= self.retire_after and not slot.replacing
            slot.replacing |= replace
        if replace:
            threading.Thread(target=lambda: self._install(task, self._warmed(task)),
                             name=f"serve-rewarm-{task.id}", daemon=True).start()
        return warm

    def release(self, task: Task, warm: _Warm) -> None:
        slot = self._slots[task.id]
        with slot.lock:
            warm.users -= 1
            warm.ready = True
            done = warm.retired and not warm.users
        if done:
            warm.oracle.close()

    @property
    def warm(self) -> int:
        return sum(1 for s in self._slots.values() if s.current is not None
                   and s.current.ready and _oracle_running(s.current.oracle))

    @property
    def target(self) -> int:
        return len(self._slots)

    def close(self) -> None:
        self._closed = True
        for slot in self._slots.values():
            with slot.lock:
                warm, slot.current = slot.current, None
            if warm is not None:
                warm.oracle.stop()
                warm.oracle.close()
