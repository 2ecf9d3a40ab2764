"""The judge side of a grading: the reference worker's batched values, and what a
batch's gradings share."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

from judge.bank import load_bank
from judge.checks.property import PropertyCheck
from judge.runner import Grading, JudgeFault, Oracle
from judge.worker.wire import Leaf

ROOT = Path(__file__).resolve().parents[1]
TASK = "cache_independent_count"


def inputs(lengths):
    rng = np.random.default_rng(3)
    return [{"x_a": Leaf(rng.uniform(-9, 9, n).astype(np.float32), "jax"),
             "x_b": Leaf(rng.uniform(-9, 9, m).astype(np.float32), "jax")} for n, m in lengths]


def one_task_bank(tmp_path: Path, reference: str):
    data = yaml.safe_load((ROOT / "tasks.yaml").read_text())
    data["tasks"] = [t for t in data["tasks"] if t["id"] == TASK]
    shutil.copytree(ROOT / "tasks" / TASK, tmp_path / "tasks" / TASK)
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / f"{TASK}.py").write_text(reference)
    (tmp_path / "tasks.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return load_bank(tmp_path).get(TASK)


def test_batched_reference_values_are_each_inputs_own():
    task = load_bank().get(TASK)
    calls = inputs([(0, 0), (3, 1), (64, 2), (1, 0), (5, 5), (3, 1)])
    batched, single = Oracle(task, task.seed), Oracle(task, task.seed)
    batched.start(), single.start()
    try:
        got = batched.values(calls, chunk=4)          # two round trips, the last partial
        want = [single.value(args) for args in calls]
    finally:
        batched.close(), single.close()
    got, want = [float(g.array) for g in got], [float(w.array) for w in want]
    assert got == pytest.approx(want)
    sums = [float(a["x_a"].array.sum() + a["x_b"].array.sum()) for a in calls]
    assert got == pytest.approx(sums, rel=1e-5, abs=1e-4)


def test_a_reference_failing_inside_a_batch_is_the_judges_fault(tmp_path):
    task = one_task_bank(tmp_path, (
        "import jax.numpy as jnp\n\n"
        "def cache_independent_count(x_a, x_b):\n"
        "    if x_a.shape[0] == 0:\n"
        "        raise ValueError('empty')\n"
        "    return jnp.sum(x_a) + jnp.sum(x_b)\n"))
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
        reports = [Grading(task, ROOT / "examples" / f"{TASK}.py", oracle=oracle).run()
                   for _ in range(2)]
        alone = Grading(task, ROOT / "examples" / f"{TASK}.py", examples=20).run()
    finally:
        oracle.close()
    assert [r.verdict for r in reports] == ["accepted", "accepted"]
    assert alone.verdict == "accepted"
    assert len(drawn) == 2          # once for the two that share, once for the third
    runs = [next(c for c in r.checks if c.kind == "property").details["examples_run"]
            for r in reports + [alone]]
    assert runs[0] == runs[1] >= 100 and runs[2] >= 20


def test_a_shared_reference_outlives_one_gradings_time_limit(tmp_path):
    # a validation or a batch keeps one reference worker for all its gradings: it must
    # not die when one grading's run_timeout_s has passed since it started
    import dataclasses
    import time

    task = one_task_bank(tmp_path, "import jax.numpy as jnp\n\ndef cache_independent_count(x_a, x_b):\n"
                                   "    return jnp.sum(x_a) + jnp.sum(x_b)\n")
    task.limits = dataclasses.replace(task.limits, run_timeout_s=1.0)
    oracle = Oracle(task, task.seed)
    oracle.start()
    try:
        first = oracle.value(inputs([(3, 1)])[0])
        time.sleep(1.5)
        later = oracle.value(inputs([(5, 2)])[0])
    finally:
        oracle.close()
    assert first.array.shape == () and later.array.shape == ()
