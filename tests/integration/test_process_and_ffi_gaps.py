"""Work done off the device where no instrument of the worker looked (issue 20's review,
tests/known_gaps): in another process of the worker (a forked child, a subprocess, a
multiprocessing child, fork(2) through ctypes) and in a custom call whose handler the
learner registered (jax.ffi or jaxlib's xla_client, a ctypes function doing NumPy).
Graded end to end on the bank's known submissions in every isolation mode; each fails
without its defence (the process refusal in judge/worker/confine.py, the custom-call
reader in judge/worker/custom_calls.py)."""

from __future__ import annotations

import json

import pytest

from judge.sandbox import policy

from helpers import ROOT, python_json, run_judge
from helpers.isolation_modes import MODES

pytestmark = pytest.mark.slow

REFUSED = "the judge does not let your code start a process"


def grade(task: str, known: str, mode: str) -> dict:
    proc = run_judge(
        "run",
        task,
        ROOT / "tasks" / task / "known" / f"{known}.py",
        "--format",
        "json",
        "--isolation",
        mode,
        "--examples",
        "20",
    )
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr[-2000:])
    return json.loads(proc.stdout)


def check(report: dict, check_id: str) -> dict:
    return next(c for c in report["checks"] if c["id"] == check_id)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "known, door",
    [
        ("review_c02_fork_child", "os.fork"),
        ("subprocess_numpy", "subprocess.Popen"),
        ("multiprocessing_pool", "os.fork"),
    ],
)
def test_a_process_started_by_the_learner_is_refused_in_words(mode, known, door):
    report = grade("collatz_steps", known, mode)
    assert report["verdict"] == "runtime_error"
    examples = check(report, "examples")
    assert examples["status"] == "error"
    assert f"{REFUSED} ({door})" in examples["message"]
    assert "Traceback" not in examples["message"].split("|")[0]  # the learner's, not the judge's
    # no figure measured in a process of its own: the sync check never read 0 syncs
    assert check(report, "sync")["status"] != "passed"


@pytest.mark.parametrize("mode", MODES)
def test_fork_through_ctypes_is_refused_by_the_kernel(mode):
    report = grade("collatz_steps", "ctypes_fork", mode)
    assert report["verdict"] == "runtime_error"
    assert "fork: Operation not permitted" in check(report, "examples")["message"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "task, known, check_id, target",
    [
        ("collatz_steps", "review_c08_ctypes_ffi_target", "sync", "collatz_host_"),
        ("huber", "review_h04_ctypes_ffi", "host_sync", "huber_host_"),
        ("huber", "xla_client_custom_call", "host_sync", "huber_xc_"),
    ],
)
def test_a_custom_call_of_the_learners_is_work_off_the_device(mode, task, known, check_id, target):
    report = grade(task, known, mode)
    assert report["verdict"] == "inefficient"
    sync = check(report, check_id)
    assert sync["status"] == "failed"
    assert f"custom call `{target}" in sync["message"]
    assert "a handler your code registered with XLA" in sync["message"]
    assert check(report, "property")["status"] == "passed"  # right values: the figure decides


@pytest.mark.parametrize("mode", MODES)
def test_threads_and_an_unused_registration_stay_accepted(mode):
    assert grade("collatz_steps", "right_threads_on_device", mode)["verdict"] == "accepted"
    assert grade("huber", "right_registers_unused_target", mode)["verdict"] == "accepted"


def test_both_modes_plan_the_refusal(tmp_path, monkeypatch):
    monkeypatch.delenv(policy.PROCESSES_ENV, raising=False)
    if not policy.refuses_processes():
        pytest.skip("no seccomp filter for this architecture")
    for mode in ("process", "bubblewrap"):
        scratch = tmp_path / mode
        scratch.mkdir()
        seen = []
        plan = policy.plan(
            mode,
            trusted=False,
            scratch=str(scratch),
            hidden=[],
            scratch_bytes=1 << 20,
            inner=lambda d, c, seen=seen: seen.append(c) or ["true"],
        )
        assert seen[0].get("no_processes") is True, mode
        assert "no processes" in plan.layers
    trusted = policy.plan(
        "process",
        trusted=True,
        scratch=str(tmp_path),
        hidden=[],
        scratch_bytes=1 << 20,
        inner=lambda d, c: ["true"],
    )
    assert "no_processes" not in trusted.confine  # the reference runs the bank's code


_LEARNER_TARGET = """
import ctypes
import jax
import jax.numpy as jnp

_PROTO = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_new = ctypes.pythonapi.PyCapsule_New
_new.restype = ctypes.py_object
_new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
_cb = _PROTO(lambda out, ins: None)
jax.ffi.register_ffi_target("learner_noop", _new(ctypes.cast(_cb, ctypes.c_void_p).value,
                                                 b"xla._CUSTOM_CALL_TARGET", None),
                            platform="cpu", api_version=0)
x = jnp.ones((4, 4)) + 3 * jnp.eye(4)
jnp.linalg.solve(x, x).block_until_ready()          # jax's own LAPACK custom calls
jnp.linalg.eigh(x)[0].block_until_ready()
jax.jit(lambda v: jax.ffi.ffi_call("learner_noop", jax.ShapeDtypeStruct((4,), jnp.float32),
                                   custom_call_api_version=1)(v)).lower(x[0]).compile()
"""


def test_the_reader_names_the_learners_targets_and_not_jaxs(tmp_path):
    """In a fresh process, as the worker has it: jax's LAPACK kernels are jax's own, a
    ctypes handler registered afterwards is not (the snapshot of jax's registrations
    must be taken after they are all made)."""
    code = (
        "import json, jax\nfrom judge.worker.custom_calls import CustomCallWatch\n"
        "got = []\nwatch = CustomCallWatch(got.append)\n"
        + _LEARNER_TARGET
        + "print(json.dumps(got))\n"
    )
    assert python_json(code) == [["learner_noop"]]
