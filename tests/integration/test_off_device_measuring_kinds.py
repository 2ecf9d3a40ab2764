"""The off-device rule on the measuring kinds' value calls (judge/checks/on_device.py).

An answer computed on the host and handed back with ``jnp.asarray`` passed cost, jaxpr
and collectives wherever the sync counter was kept from seeing the pull (its state
switched off or its records emptied by the learner's code: tests/known_gaps).  The
calls' record of the programs they ran now has to show each input the reference's
programs read being read on the device, whatever the counter saw.

The rule needed fixes of the recorder (judge/worker/executions.py): a device array laid
out anew by ``device_put`` is read where its copy is, a jitted closure's captured
arrays are read as its program's constants, an input whose own buffers a program read
(``x.addressable_data(0)``) is read, and a call with an empty input is not weighed
(right answers taken for ones computed on the host); buffers are read with jaxlib's own
method, not the sync counter's wrapper (a learner's ``jax.device_put`` of a NumPy
constant counted as their pull).  The attack review of stop 30 found three routes
around it, closed here: the judge's argument list rewritten by the call, one host
buffer aliasing the answer and the input, the recorder patched."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from judge.verdicts import Status, Verdict

from helpers import ROOT
from helpers.isolation_modes import MODES, grade_known_in


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize(
    "task, known, kind",
    [
        ("chain_matmul", "review2_paused_counter.py", "cost"),  # per-thread pause
        ("chain_matmul", "host_compute_records_cleared.py", "cost"),  # records emptied
        ("pairwise_sq_dists", "host_compute_counter_unset.py", "jaxpr"),  # _current unset
        ("col_mean", "host_compute_paused_replicated.py", "collectives"),  # 8 devices
        # the attack review's: the judge's argument list rewritten (a frame up, by gc),
        # one aligned host buffer holding the answer and the input's bytes
        ("safe_mean", "review3_args_list_rewritten.py", "jaxpr"),
        ("col_mean", "review3_args_list_by_gc.py", "collectives"),
        ("safe_mean", "review3_aliased_host_buffer.py", "jaxpr"),
        ("safe_mean", "review3_unused_jit_arguments.py", "jaxpr"),  # a jit that uses none
    ],
)
def test_an_answer_computed_on_the_host_is_inefficient_whatever_hid_its_pulls(
    isolation, task, known, kind, monkeypatch
):
    report = grade_known_in(isolation, task, known, monkeypatch)
    check = next(c for c in report.checks if c.kind == kind)
    assert report.verdict == Verdict.INEFFICIENT, [c.message for c in report.checks]
    assert check.status == Status.FAILED
    assert "no program on the device read your input" in check.message
    assert "computed on the host" in check.message


@pytest.mark.parametrize("isolation", MODES)
@pytest.mark.parametrize(
    "task, known",
    [
        ("pairwise_sq_dists", "right_copies_inputs_first.py"),
        ("pairwise_sq_dists", "right_device_put_constant.py"),
        ("col_mean", "right_device_put_same_layout.py"),
        ("chain_matmul", "right_jitted_closure.py"),  # the inputs are the constants
        ("safe_mean", "right_addressable_shard.py"),  # its own buffer, a new object
        ("pairwise_sq_dists", "right_empty_side_eager.py"),  # empty inputs not weighed
        ("chain_matmul", "right_zero_dim_eager.py"),
    ],
)
def test_right_answers_that_copy_their_inputs_or_send_constants_stay_accepted(
    isolation, task, known, monkeypatch
):
    report = grade_known_in(isolation, task, known, monkeypatch)
    assert report.verdict == Verdict.ACCEPTED, [c.message for c in report.checks]


@pytest.mark.parametrize("isolation", MODES)
def test_a_recorder_patched_to_say_every_input_was_read_is_tampering(isolation, monkeypatch):
    report = grade_known_in(isolation, "chain_matmul", "review3_recorder_patched.py", monkeypatch)
    assert report.verdict == Verdict.RUNTIME_ERROR, [c.message for c in report.checks]
    said = next(c for c in report.checks if c.kind == "instruments").message
    assert "recorder of the programs your calls run was changed" in said


MOVES = """
import json
import jax
jax.config.update("jax_num_cpu_devices", 8)
import numpy as np
from jax.sharding import NamedSharding, PartitionSpec as P
from judge.worker.measure import _record_executions

executions = _record_executions()
mesh = jax.make_mesh((8,), ("data",))
rows, whole = NamedSharding(mesh, P("data", None)), NamedSharding(mesh, P())
x = jax.device_put(np.arange(64, dtype=np.float32).reshape(16, 4), rows)
total = jax.jit(lambda v: v.sum(0))
found = {}
with executions.recording() as ran:
    total(jax.device_put(x, whole))
found["moved, then read"] = executions.inputs_read([x], ran)
with executions.recording() as ran:
    total(jax.device_put(jax.device_put(x, whole), rows))
found["moved twice, then read"] = executions.inputs_read([x], ran)
with executions.recording() as ran:
    jax.device_put(x, whole)
    total(jax.device_put(np.ones((16, 4), np.float32), rows))
found["moved, never read"] = executions.inputs_read([x], ran)
print(json.dumps(found))
"""


def test_a_copy_laid_out_anew_on_the_devices_stands_for_its_source():
    done = subprocess.run(
        [sys.executable, "-c", MOVES],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "moved, then read": [True],
        "moved twice, then read": [True],
        "moved, never read": [False],
    }
