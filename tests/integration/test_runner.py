"""The judge side of a grading: the reference worker's batched values, and what a
batch's gradings share."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from judge.bank import load_bank
from judge.checks.property import PropertyCheck
from judge.runner import Grading, JudgeFault, Oracle
from judge.worker.wire import Leaf

from helpers import ROOT, TASK, bank_of


def inputs(lengths):
    rng = np.random.default_rng(3)
    return [
        {
            "x_a": Leaf(rng.uniform(-9, 9, n).astype(np.float32), "jax"),
            "x_b": Leaf(rng.uniform(-9, 9, m).astype(np.float32), "jax"),
        }
        for n, m in lengths
    ]


def one_task_bank(tmp_path: Path, reference: str):
    return load_bank(bank_of(tmp_path, TASK, references={TASK: reference})).get(TASK)


def test_batched_reference_values_are_each_inputs_own():
    task = load_bank().get(TASK)
    calls = inputs([(0, 0), (3, 1), (64, 2), (1, 0), (5, 5), (3, 1)])
    batched, single = Oracle(task, task.seed), Oracle(task, task.seed)
    batched.start(), single.start()
    try:
        got = batched.values(calls, chunk=4)  # two round trips, the last partial
        want = [single.value(args) for args in calls]
    finally:
        batched.close(), single.close()
    got, want = [float(g.array) for g in got], [float(w.array) for w in want]
    assert got == pytest.approx(want)
    sums = [float(a["x_a"].array.sum() + a["x_b"].array.sum()) for a in calls]
    assert got == pytest.approx(sums, rel=1e-5, abs=1e-4)


def test_a_reference_failing_inside_a_batch_is_the_judges_fault(tmp_path):
    task = one_task_bank(
        tmp_path,
        (
            "import jax.numpy as jnp\n\n"
            "def cache_independent_count(x_a, x_b):\n"
            "    if x_a.shape[0] == 0:\n"
            "        raise ValueError('empty')\n"
            "    return jnp.sum(x_a) + jnp.sum(x_b)\n"
        ),
    )
    oracle = Oracle(task, task.seed)
    oracle.start()
    try:
        with pytest.raises(JudgeFault, match="empty"):
            oracle.values(inputs([(2, 2), (0, 3), (4, 4)]))
    finally:
        oracle.close()


def test_gradings_that_share_an_oracle_draw_their_inputs_once(monkeypatch):
    task = load_bank().get(TASK)
    drawn = []
    prepare = PropertyCheck.prepare

    def counting(self, grading):
        drawn.append(grading)
        return prepare(self, grading)

    monkeypatch.setattr(PropertyCheck, "prepare", counting)
    oracle = Oracle(task, task.seed)
    oracle.start()
    try:
        reports = [
            Grading(task, ROOT / "examples" / f"{TASK}.py", oracle=oracle).run() for _ in range(2)
        ]
        alone = Grading(task, ROOT / "examples" / f"{TASK}.py", examples=20).run()
    finally:
        oracle.close()
    assert [r.verdict for r in reports] == ["accepted", "accepted"]
    assert alone.verdict == "accepted"
    assert len(drawn) == 2  # once for the two that share, once for the third
    runs = [
        next(c for c in r.checks if c.kind == "property").details["examples_run"]
        for r in reports + [alone]
    ]
    assert runs[0] == runs[1] >= 100 and runs[2] >= 20


def test_a_submission_still_the_starter_says_not_attempted_yet(tmp_path):
    task = load_bank().get(TASK)
    starter = tmp_path / "mine.py"
    starter.write_text("# my answer\n" + task.starter_path.read_text() + "\n\n")  # comments aside
    report = Grading(task, starter, examples=5).run()
    assert report.verdict in ("runtime_error", "wrong_answer")  # the contract's words
    first_bad = next(c for c in report.checks if c.status in ("failed", "error"))
    assert first_bad.message.startswith(f"not attempted yet: this is still the starter of {TASK}.")
    assert sum("not attempted yet" in c.message for c in report.checks) == 1  # said once
    tried = tmp_path / "tried.py"
    tried.write_text(task.starter_path.read_text().replace("raise", "return 0.0  #"))
    assert all(
        "not attempted" not in c.message for c in Grading(task, tried, examples=5).run().checks
    )


# ---------------------------------------------------------------- one cause, said once

OFF_BY_ONE = """import jax
import jax.numpy as jnp


@jax.jit
def masked_row_sums(values, lengths):
    mask = jnp.arange(values.shape[1])[None, :] <= lengths[:, None]     # one entry too many
    return jnp.sum(jnp.where(mask, values, 0.0), axis=1)
"""


def test_an_off_by_one_is_shown_by_the_value_checks_only(tmp_path):
    task = load_bank().get("masked_row_sums")
    path = tmp_path / "mine.py"
    path.write_text(OFF_BY_ONE)
    report = Grading(task, path, examples=20).run()
    by_id = {c.id: c for c in report.checks}
    assert report.verdict == "wrong_answer"
    assert [c.id for c in report.checks] == ["examples", "property", "retrace", "sync"]  # as listed
    assert {c.id for c in report.checks if c.counterexample} == {"examples", "property"}
    for performance in ("retrace", "sync"):  # skipped, with the reason: said once
        assert by_id[performance].status == "skipped"
        assert by_id[performance].message == (
            "the values are wrong, so its performance is not "
            "measured: the examples check above shows where"
        )


def test_a_timeout_in_an_advisory_script_is_reported_where_it_happened(tmp_path):
    quick = lambda entry: entry.update(limits=dict(entry["limits"], call_timeout_s=1.5))
    task = load_bank(bank_of(tmp_path, TASK, edit=quick)).get(TASK)
    loops = tmp_path / "mine.py"
    loops.write_text(
        "import jax.numpy as jnp\n\n\ndef cache_independent_count(x_a, x_b):\n"
        "    while x_a.shape[0] == 16:\n        pass\n"
        "    return jnp.sum(x_a) + jnp.sum(x_b)\n"
    )
    report = Grading(task, loops, examples=5).run()
    (first,) = (c for c in report.checks if c.id == "retrace")  # the first to run
    later = [c for c in report.checks if c.id != "retrace"]
    listed = [c.id for c in task.checks]
    assert report.verdict == "time_limit_exceeded"
    assert first.status == "error"
    assert first.message.startswith("scripted call 2 of 8: cache_independent_count(x_a=float32[16]")
    assert "ran out of time" in first.message
    for c in later:
        if c.id == "host_sync":  # the default sync count calls nothing: nothing to count
            assert c.status == "skipped", c
            continue
        where = "above" if listed.index("retrace") < listed.index(c.id) else "below"
        assert c.message == (
            "not run: your code already ran out of time in the retrace check "
            f"{where}, and code that looped once would loop again"
        ), c
