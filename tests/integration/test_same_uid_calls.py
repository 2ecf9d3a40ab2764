"""Calls that act on another process by pid, or on what processes share (file leases,
memory held where no mapping shows it, inotify and fanotify, System V segments, a
tracer), are the worker's own only, in every
isolation mode: a worker has the uid of its siblings in a warm sandbox, of the
sandbox's server and, as uid 0 without capabilities, of the judge itself, so Linux's
same-uid permission would let it set their limits, priority, CPUs or scheduling, and a
lease on a file of the view would hold up every process that opens it.  The seccomp
filter refuses them (judge/worker/confine.py); without it each route here is open."""

from __future__ import annotations

import pytest

from judge.sandbox import forked_unavailable

from helpers.hostile_workers import grade
from helpers.isolation_modes import MODES

ALL = MODES + ([] if forked_unavailable() else ["forked"])


@pytest.mark.parametrize("mode", ALL)
def test_same_uid_calls_reach_the_worker_itself_only(mode):
    outcome = grade("same_uid_calls", mode)
    assert outcome.failure is None and outcome.reply.get("ok"), outcome.failure or outcome.reply
    found = outcome.value
    assert len(found) == 15, sorted(found)
    allowed = {route: said for route, said in found.items() if not said.startswith("denied")}
    assert allowed == {}, allowed
    assert outcome.left_behind == []
