"""Tampering with the judge's instruments shows: the worker's own check after every
call (judge/worker/integrity.py), and XLA's compile count taken from outside the worker
(judge/compile_log.py) against the probe's.

Here: the tests that start no process; tests/integration/test_instruments.py has those that
grade in a worker."""

from __future__ import annotations

import os
from pathlib import Path

import jax
import numpy as np
import pytest

from judge.compile_log import MARK, CompileLog
from judge.worker.integrity import Instruments
from judge.worker.probe import Probe
from judge.worker.syncs import SyncCounter

HERE = Path(__file__)


@pytest.fixture
def installed():
    probe, counter = Probe(str(HERE)), SyncCounter(str(HERE))
    holder = type("Holder", (), {})()
    holder.probe = probe
    instruments = Instruments(probe, counter, {"the worker's probe": (holder, "probe", probe)})
    yield instruments, probe, counter, holder
    counter.close()
    probe.close()


def test_nothing_changed_right_after_installing(installed):
    instruments, probe, *_ = installed
    jax.jit(lambda v: v + 1)(np.ones(3, np.float32))  # the instruments at work
    assert instruments.changes() == []


def test_cleared_monitoring_listeners(installed):
    from jax._src import monitoring

    instruments = installed[0]
    saved = list(monitoring._scalar_listeners)
    monitoring._scalar_listeners.clear()
    try:
        assert "the judge's jax.monitoring listeners were removed" in instruments.changes()
    finally:
        monitoring._scalar_listeners.extend(saved)


def test_a_method_of_the_probe_swapped(installed):
    instruments, probe, *_ = installed
    original = type(probe)._record
    type(probe)._record = lambda self, event: None
    try:
        assert "the judge's probe was changed (Probe._record)" in instruments.changes()
    finally:
        type(probe)._record = original


def test_the_worker_holding_another_probe(installed):
    instruments, _, _, holder = installed
    holder.probe = object()
    assert "the worker's probe was replaced (probe)" in instruments.changes()


def test_the_sync_counter_undone(installed):
    instruments, _, counter, _ = installed
    counter.close()  # what a learner finding it through gc can do
    found = "; ".join(instruments.changes())
    assert "the judge's sync counter was undone (ArrayImpl.__float__" in found
    assert "buffer-protocol hook" in found or "more" in found


def test_the_sync_counter_paused_for_good(installed):
    from judge.worker import syncs

    instruments = installed[0]
    syncs._thread.paused += 1
    try:
        assert (
            "the judge's sync counter was switched off (its thread state)" in instruments.changes()
        )
    finally:
        syncs._thread.paused -= 1


# ---------------------------------------------------------------- XLA's count, from outside


def test_the_compile_log_counts_created_records_and_sees_deletions(tmp_path):
    folder = tmp_path / "xla"
    folder.mkdir()
    (folder / f"module_0000.jit_f{MARK}").write_text("before the watch")
    log = CompileLog(folder)
    assert log.count() == 1
    for i in (1, 2):
        (folder / f"module_000{i}.jit_g{MARK}").write_text("HloModule")
        (folder / f"module_000{i}.jit_g.debug_options").write_text("")
    assert log.count() == 3 and log.problem is None
    (folder / f"module_0001.jit_g{MARK}").unlink()  # deleting a record hides nothing
    assert log.count() == 3 and "were deleted" in log.problem
    log.close()


def test_the_compile_log_sees_its_folder_made_unwritable(tmp_path):
    folder = tmp_path / "xla"
    folder.mkdir()
    log = CompileLog(folder)
    os.chmod(folder, 0o500)
    try:
        log.count()
        assert "permissions" in log.problem
    finally:
        os.chmod(folder, 0o700)
        log.close()


def test_the_compile_log_is_watched_through_its_descriptor_not_its_name(tmp_path):
    """Moved, or replaced by a link to a folder the learner wants counted: the watch
    stays on the folder it was given, and says it was moved."""
    folder, elsewhere = tmp_path / "xla", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    log = CompileLog(str(folder))
    folder.rename(tmp_path / "moved")
    folder.symlink_to(elsewhere)
    (elsewhere / f"module_0000.jit_f{MARK}").write_text("HloModule")
    assert log.count() == 0 and "moved or removed" in log.problem
    log.close()
    with pytest.raises(OSError):
        CompileLog(str(folder))  # never opened through a link


def _grading_watching(folder):
    from judge.tamper import InstrumentsWatch

    watch = InstrumentsWatch()  # a grading's, its worker's log already watched
    watch.log = CompileLog(folder)
    return watch


def test_a_blinded_probe_is_caught_by_xlas_count(tmp_path):
    """The cross-check itself: XLA recorded more compiles than the worker's probe saw."""
    from judge.session import CallOutcome

    folder = tmp_path / "xla"
    folder.mkdir()
    grading = _grading_watching(folder)
    grading.check(CallOutcome(True, compiles_seen=0))
    assert grading.found == []
    (folder / f"module_0000.jit_f{MARK}").write_text("HloModule")
    grading.check(CallOutcome(True, compiles_seen=1, compiles_reported=1))
    assert grading.found == []
    (folder / f"module_0001.jit_f{MARK}").write_text("HloModule")
    grading.check(CallOutcome(True, compiles_seen=1))
    assert grading.found == [
        "XLA compiled 2 programs in your worker where the judge's probe "
        "saw 1 (the probe was blinded)"
    ]
    grading.log.close()


def test_records_rewritten_to_hide_compiles_are_caught_whatever_total_the_worker_claims(tmp_path):
    """The probe's own total comes from the learner's process too (a billion, say): what
    XLA compiled during the calls must match the compile records the checks read."""
    from judge.session import CallOutcome

    folder = tmp_path / "xla"
    folder.mkdir()
    (folder / f"module_0000.jit_load{MARK}").write_text("HloModule")  # while importing
    grading = _grading_watching(folder)
    (folder / f"module_0001.jit_f{MARK}").write_text("HloModule")
    grading.check(CallOutcome(True, compiles_seen=10**9, compiles_reported=1))
    assert grading.found == []
    for i in (2, 3):
        (folder / f"module_000{i}.jit_f{MARK}").write_text("HloModule")
    grading.check(CallOutcome(True, compiles_seen=10**9))
    assert grading.found == [
        "XLA compiled 3 programs in your worker during its calls, where "
        "the probe's records of them show 1 (the records were rewritten)"
    ]
    grading.log.close()


def test_a_tampered_grading_earns_no_performance_points():
    from judge.report import CheckResult, Report
    from judge.scoring import score

    def check(id, kind, status, points, **kw):
        return CheckResult(
            id=id,
            kind=kind,
            required=True,
            status=status,
            message="",
            details={"points": points},
            **kw,
        )

    checks = [
        check("property", "property", "passed", 2),
        check("retrace", "retrace", "passed", 1),
        check("instruments", "instruments", "error", 0, verdict="runtime_error"),
    ]
    report = Report(task="t", submission="s", seed=1, judge_version="x", checks=checks)
    result = score(report)
    assert (result.earned, result.maximum) == (2, 3)  # the values' points; no retrace point
    clean = Report(task="t", submission="s", seed=1, judge_version="x", checks=checks[:2])
    assert (score(clean).earned, score(clean).maximum) == (3, 3)


def test_a_measurement_rewritten_into_another_form_is_the_learners_tampering(monkeypatch):
    """An instrument's figures come from the learner's process: one the kind cannot read
    (a word where the instrument gives a number) is the learner's runtime_error, while
    the same crash on figures of the instrument's own form stays the judge's."""
    from concurrent.futures import Future

    from judge.bank import load_bank
    from judge.session import CallOutcome
    from judge.verdicts import Verdict

    check = next(c for c in load_bank().get("chain_matmul").checks if c.kind == "cost")
    reference = {"flops": 100.0, "bytes": 40.0, "hlo": "", "too_large": 0, "source": "r.py"}
    done = Future()
    done.set_result(CallOutcome(True, measured=reference))
    args = {"a": 1}

    def finish(mine):
        return check._finish(None, [args], [CallOutcome(True, measured=mine)], [done])

    rewritten = finish(dict(reference, flops="a few"))
    assert rewritten.verdict == Verdict.RUNTIME_ERROR
    assert "not of the form the judge's instrument gives" in rewritten.message
    assert finish(dict(reference)).status == "passed"
    assert finish({"flops": 1.0}).verdict == Verdict.RUNTIME_ERROR  # fields missing

    def broken(grading, calls):
        raise ZeroDivisionError

    monkeypatch.setattr(check, "judge", broken)
    with pytest.raises(ZeroDivisionError):  # the instrument's own form, misread: a bug
        finish(dict(reference, flops=7.0))


def test_records_of_another_shape_are_dropped_and_said_not_kept():
    """A reply carrying a million empty 'trace events' (a learner inflating what the judge
    holds, ~100 MB a call) or a sync record the checks would choke on: not kept, and the
    grading hears that the records were rewritten."""
    from judge.session import Session
    from judge.worker import wire

    session = Session.__new__(Session)
    session.trusted = False
    result = wire.encode(2.0, [])
    out = session._outcome(
        {"ok": True, "result": result, "traces": [{}] * 1_000_000, "syncs": [{"kind": 3}]},
        [],
        "call",
    )
    assert out.traces == [] and out.syncs == [] and out.compiles_reported == 0
    assert any("traces and compiles was rewritten" in t for t in out.tampered)
    assert any("host syncs was rewritten" in t for t in out.tampered)
    event = {
        "group": "f",
        "origin": "learner",
        "stage": "compile",
        "signature": "f32[3]",
        "reason": None,
        "line": 4,
        "seconds": 0.01,
    }
    honest = session._outcome(
        {"ok": True, "result": result, "traces": [event], "syncs": []}, [], "call"
    )
    assert honest.ok and honest.value == 2.0
    assert honest.traces == [event] and honest.tampered == [] and honest.compiles_reported == 1


def test_xlas_other_dumps_are_pruned_and_its_records_kept(tmp_path):
    """XLA dumps tens of MB of IR for a large program beside its one record per compile:
    the judge removes the rest, so the count does not fill the learner's private /tmp."""
    log = CompileLog(tmp_path)
    (tmp_path / f"module_0000.jit_f{MARK}").write_text("HloModule")
    (tmp_path / "module_0000.jit_f.fusion_kernel_module.ir-no-opt.ll").write_text("x" * 1000)
    (tmp_path / "module_0000.jit_f.cpu_after_optimizations.txt").write_text("HloModule")
    assert log.count() == 1
    log.prune()
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"module_0000.jit_f{MARK}"]
    assert log.count() == 1 and log.problem is None
    log.close()


def test_xlas_complaints_about_the_judges_dump_are_not_the_learners_output():
    from judge.session import Session

    session = Session.__new__(Session)
    session.worker = None
    noise = (
        "E1201 14:37:15.828444    7847 dump.cc:266] Could not write XLA debug data to "
        "/tmp/w/tmp/.jj-xla/module_0040.jit_f.cpu_after_optimizations.txt: OUT_OF_RANGE\n"
    )
    session._outputs = [{"stdout": "", "stderr": f"mine\n{noise}also mine\n", "truncated": False}]
    assert session.output()["stderr"] == "mine\nalso mine\n"
