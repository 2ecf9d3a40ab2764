"""What the learner's function can reach of the worker's own doings, found by an
independent attack review (December 2026), graded in every isolation mode:

- the request's arguments as they came over the channel: a function that walked up its
  frames (``sys._getframe``, a traceback's ``tb_frame``) or searched ``gc`` for the
  handler's header and blobs decoded its inputs on the host, where no sync is counted
  and no program reads them, and handed back a device array of a host result (cost and
  collectives were fooled: the value calls ran nothing but that copy).  The worker
  forgets them before the function runs (``loop._forget_arguments``);
- "the judge's fault", said by the worker that ran the learner's code: a file that
  rewrites the worker's replies made a measuring check ``judge_error`` instead of its
  verdict.  The grading believes it only once the instrument fails in the reference's
  worker too (``Grading._confirmed_in_reference``)."""

from __future__ import annotations

import json
import textwrap

import pytest

from helpers import ROOT, run_judge
from helpers.isolation_modes import MODES

BANK = ROOT / "tests" / "trust_bank"

# each returns its input's values read on the host from the worker's own objects, or
# raises: a right answer is graded accepted only if some route reached them
FIND = {
    "frames": """
        def _reachable():
            return _locals_from(sys._getframe(1))
    """,
    "traceback": """
        def _reachable():
            try:
                raise LookupError
            except LookupError as e:
                return _locals_from(e.__traceback__.tb_frame)
    """,
    "gc": """
        def _reachable():
            import gc
            return gc.get_objects()
    """,
}

COMMON = """
    import sys
    import numpy as np
    import jax.numpy as jnp

    def _locals_from(frame):
        # every local of this frame and of the frames that called it
        seen = []
        while frame is not None:
            seen += list(frame.f_locals.values())
            frame = frame.f_back
        return seen

    def _host_values(objects):
        # a request header (its "args") and a list of blobs, decoded with the worker's wire
        wire = next(m for n, m in list(sys.modules.items())
                    if n.endswith("worker.wire") and hasattr(m, "decode"))
        headers = [o for o in objects if isinstance(o, dict)
                   and isinstance(o.get("args"), list) and o["args"]]
        blobs = [o for o in objects if isinstance(o, list) and o
                 and all(isinstance(b, bytes) for b in o)]
        for header in headers:
            for found in blobs:
                try:
                    return np.asarray(wire.decode(header["args"][0], found).array)
                except Exception:
                    pass
        return None
"""

ENTRY = """
    def double(x):
        got = _host_values(_reachable())
        if got is None:
            raise RuntimeError("the request's arguments were out of reach")
        return jnp.asarray(got * 2)
"""


def grade(tmp_path, source: str, mode: str, task: str = "double", bank=BANK) -> dict:
    path = tmp_path / "submission.py"
    path.write_text(source)
    args = ["--bank", str(bank)] if bank is not None else []
    proc = run_judge(*args, "run", task, path, "--format", "json", "--isolation", mode)
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr[-2000:])
    return json.loads(proc.stdout)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("route", sorted(FIND))
def test_the_requests_arguments_are_out_of_the_functions_reach(tmp_path, mode, route):
    source = textwrap.dedent(COMMON) + textwrap.dedent(FIND[route]) + textwrap.dedent(ENTRY)
    report = grade(tmp_path, source, mode)
    assert report["verdict"] == "runtime_error", report["verdict"]
    assert "out of reach" in json.dumps(report), report["checks"][0]["message"]


@pytest.mark.parametrize("mode", MODES)
def test_a_function_that_uses_its_own_arguments_is_graded_as_before(tmp_path, mode):
    on_device = "import jax.numpy as jnp\n\ndef double(x):\n    return jnp.asarray(x) * 2\n"
    assert grade(tmp_path, on_device, mode)["verdict"] == "accepted"
    on_host = "import numpy as np\nimport jax.numpy as jnp\n\ndef double(x):\n"
    on_host += "    return jnp.asarray(np.asarray(x) * 2)  # a counted pull\n"
    assert grade(tmp_path, on_host, mode)["verdict"] == "inefficient"


FORGE_JUDGE_ERROR = """
import sys
import jax
import jax.numpy as jnp

_wire = next(m for n, m in list(sys.modules.items()) if n.endswith("worker.wire"))
_pack = _wire.pack


def _forged(token, seq, reply, blobs):
    if isinstance(reply, dict) and isinstance(reply.get("measured"), dict) and set(
        reply["measured"]
    ) - {"executed"}:
        reply = {"ok": False, "error": {"category": "judge", "type": "WorkerError",
                                        "message": "the judge broke", "traceback": ""}}
    return _pack(token, seq, reply, blobs)


_wire.pack = _forged


@jax.jit
def chain_matmul(a, b, c):
    return (a @ b) @ c  # the dearer order on half the scripted shapes
"""


@pytest.mark.parametrize("mode", MODES)
def test_a_judge_error_the_learners_worker_claims_is_not_believed(tmp_path, mode):
    report = grade(tmp_path, FORGE_JUDGE_ERROR, mode, task="chain_matmul", bank=None)
    assert report["verdict"] == "runtime_error", report["verdict"]
    cost = next(c for c in report["checks"] if c["id"] == "cost")
    assert "the same measurement of the reference at this input worked" in cost["message"]
