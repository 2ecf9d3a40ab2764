"""How the judge reads a forked worker's end (judge/sandbox/zygote.py ``ForkedProcess``):
a SIGKILL the judge did not send, seen while its sandbox is ending, is the sandbox's
death (``lost``, graded again), never the learner's.  The worker is a real zombie here
(a child of this test, killed and not reaped), the sandbox a stand-in."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from judge.sandbox import zygote as zygote_mod


class _Sandbox:
    def __init__(self, ending: bool):
        self.ending = ending
        self.waited: list[float] = []

    def ended(self, wait_s: float = 0.0) -> bool:
        self.waited.append(wait_s)
        return self.ending


@pytest.fixture
def killed_zombie():
    """A child that died of SIGKILL and is not reaped: its status is in /proc."""
    child = subprocess.Popen(["sleep", "60"])  # reaped only when waited for, below
    pidfd = os.pidfd_open(child.pid)
    os.kill(child.pid, signal.SIGKILL)
    yield child.pid, pidfd
    os.close(pidfd)
    child.wait()


def watched(pid_and_fd, sandbox, killed_by_judge=False):
    pid, pidfd = pid_and_fd
    proc = zygote_mod.ForkedProcess(sandbox, 2, pidfd, None, None)  # pidfd: the fixture's
    assert proc.pid == pid
    proc.killed = killed_by_judge
    return proc


def wait_status(proc) -> int:
    while (status := proc.status()) is None:
        proc.exited(1.0)
    return status


def test_a_sigkill_while_the_sandbox_ends_is_lost(killed_zombie):
    proc = watched(killed_zombie, _Sandbox(ending=True))
    status = wait_status(proc)
    assert os.WTERMSIG(status) == signal.SIGKILL and proc.lost


def test_a_sigkill_of_the_learners_own_with_the_sandbox_alive_is_theirs(killed_zombie):
    sandbox = _Sandbox(ending=False)
    proc = watched(killed_zombie, sandbox)
    assert os.WTERMSIG(wait_status(proc)) == signal.SIGKILL and not proc.lost
    assert sandbox.waited  # it looked whether the sandbox was ending


def test_the_judges_own_kill_never_waits_on_the_sandbox(killed_zombie):
    sandbox = _Sandbox(ending=True)
    proc = watched(killed_zombie, sandbox, killed_by_judge=True)
    assert os.WTERMSIG(wait_status(proc)) == signal.SIGKILL and not proc.lost
    assert sandbox.waited == []
