"""What a forked worker is allowed (judge/sandbox/policy.py ``forked_plan``) and when the
service forks its workers (judge/serve/warm.py ``service_isolation``), without starting
anything: the rules a worker confines itself with are the judge's, so they are checked
here as data; tests/integration/test_forked.py shows them holding."""

from __future__ import annotations

import pytest

from judge.sandbox import IsolationUnavailable, policy

SLOT, SCRATCH = "/tmp/w/7", "/srv/inbox/worker-abc"


@pytest.fixture
def plan(monkeypatch):
    monkeypatch.setattr(policy, "landlock_abi", lambda: 7)
    monkeypatch.delenv(policy.PROCESSES_ENV, raising=False)
    return policy.forked_plan(slot=SLOT, scratch=SCRATCH, hidden=["/srv/bank/reference"])


def test_a_forked_worker_writes_its_slot_only(plan):
    rules = dict(plan.confine["landlock"]["rules"])
    assert rules[SLOT] == -1  # every right the kernel handles
    writable = [p for p, r in rules.items() if r == -1 or r & policy.FS_WRITE_FILE]
    assert set(writable) - set(policy._DEVICES) == {SLOT}
    assert rules[SCRATCH] == policy.READ  # its own submission, read-only
    assert plan.env["HOME"] == plan.env["TMPDIR"] == plan.cwd == SLOT
    assert plan.tmpfs == [SLOT]  # what it keeps there counts as its memory


def test_of_proc_it_reads_its_own_folder_and_the_machines_figures(plan):
    paths = [p for p, _ in plan.confine["landlock"]["rules"]]
    assert "/proc" not in paths  # a sibling's /proc folder is out of reach
    assert "/proc/self" in paths
    assert not [p for p in paths if p.startswith("/proc/") and p.split("/")[2].isdigit()]


def test_it_is_confined_before_any_learner_code_and_says_so(plan):
    assert plan.confine["seccomp"] and plan.confine["no_processes"]
    assert plan.confine["landlock"]["abi"] == 7
    assert any(layer.startswith("landlock v7") for layer in plan.layers)
    assert "no processes" in plan.layers
    assert plan.mode == "forked" and not plan.wrapped  # its exit status is its own


def test_forked_is_refused_without_the_refusal_of_processes(monkeypatch):
    monkeypatch.setattr(
        policy, "bubblewrap", lambda: policy.Bwrap(True, "", "/usr/bin/bwrap", True)
    )
    monkeypatch.setattr(policy, "landlock_abi", lambda: 7)
    monkeypatch.setenv(policy.PROCESSES_ENV, "allowed")
    assert "start no process" in policy.forked_unavailable()
    with pytest.raises(IsolationUnavailable, match="forked isolation was asked for"):
        policy.resolve("forked")


def test_forked_needs_landlock_scoping(monkeypatch):
    monkeypatch.setattr(
        policy, "bubblewrap", lambda: policy.Bwrap(True, "", "/usr/bin/bwrap", True)
    )
    monkeypatch.setattr(policy, "landlock_abi", lambda: 5)
    monkeypatch.delenv(policy.PROCESSES_ENV, raising=False)
    assert "ABI 6" in policy.forked_unavailable()


def test_the_service_forks_where_it_can_and_obeys_a_mode_asked_for(monkeypatch):
    pytest.importorskip("starlette")
    from judge.serve import warm

    monkeypatch.delenv("JUDGE_ISOLATION", raising=False)
    monkeypatch.setattr(warm, "forked_unavailable", lambda: "")
    assert warm.service_isolation(None) == "forked"
    assert warm.service_isolation("process") == "process"
    monkeypatch.setattr(warm, "forked_unavailable", lambda: "no Landlock ABI 6")
    monkeypatch.setattr(warm, "resolve_isolation", lambda mode: "bubblewrap")
    assert warm.service_isolation(None) == "bubblewrap"  # auto: as judge run
