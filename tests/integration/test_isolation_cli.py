"""`--isolation auto|bubblewrap|process` (and JUDGE_ISOLATION) on `judge run` and
`judge batch`: bubblewrap fails closed, batch as root will not quietly fall back to
process isolation, and the report says what was used."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from judge.sandbox.policy import landlock_abi

from helpers import TESTS

BANK = TESTS / "trust_bank"
NO_BWRAP = "/nonexistent-bin"  # a PATH where no bwrap can be found


def judge(args, env=None, timeout=90):
    return subprocess.run(
        [sys.executable, "-m", "judge", "--bank", str(BANK), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ, **(env or {})),
    )


@pytest.fixture
def submission(tmp_path):
    path = tmp_path / "double.py"
    path.write_text("def double(x):\n    return x * 2\n")
    return path


def test_bubblewrap_fails_closed_when_it_cannot_be_had(submission):
    out = judge(
        ["run", "double", str(submission), "--isolation", "bubblewrap"], env={"PATH": NO_BWRAP}
    )
    assert out.returncode == 2 and out.stdout == ""
    assert "bubblewrap isolation was asked for but does not work here" in out.stderr
    assert "bwrap is not installed" in out.stderr


@pytest.mark.parametrize("how", ["option", "env"])
def test_process_isolation_is_reported(submission, how):
    args = ["run", "double", str(submission), "--format", "json"]
    if how == "option":
        out = judge(args + ["--isolation", "process"])
    else:
        out = judge(args, env={"JUDGE_ISOLATION": "process"})
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["verdict"] == "accepted" and report["isolation"] == "process"
    if landlock_abi():
        assert f"landlock v{landlock_abi()}" in report["isolation_layers"]
    if os.geteuid() == 0:
        assert any(layer.startswith("uid") for layer in report["isolation_layers"])


def test_an_unknown_isolation_is_a_usage_error(submission):
    out = judge(["run", "double", str(submission), "--isolation", "chroot"])
    assert out.returncode == 2 and "chroot" in out.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="the refusal is for a judge running as root")
def test_batch_as_root_refuses_plain_process_isolation_unless_asked(submission, tmp_path):
    subs = tmp_path / "class" / "ann"
    subs.mkdir(parents=True)
    (subs / "double.py").write_text(submission.read_text())
    args = ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out")]
    refused = judge(args, env={"PATH": NO_BWRAP})
    assert refused.returncode == 2
    assert (
        "--isolation process" in refused.stderr
        and "bubblewrap does not work here" in refused.stderr
    )
    assert not (tmp_path / "out" / "results.jsonl").exists()
    asked = judge(args + ["--isolation", "process"], env={"PATH": NO_BWRAP})
    assert asked.returncode == 0, asked.stderr
    record = json.loads((tmp_path / "out" / "results.jsonl").read_text())
    assert record["verdict"] == "accepted" and record["isolation"] == "process"
