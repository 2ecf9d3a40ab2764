"""Failures a learner can replay, for every kind that reports a counterexample (issue 22):
a scripted check (retrace), a kind that measures a script (residuals, base.py's shared
half), the gradient check and the sharding check each carry ``details.replay``, and the
snippet, run with the learner's function defined, gives again the wrong value (the
wrong gradient, the wrong layout) that the report shows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

from judge.bank import load_bank
from judge.runner import grade
from judge.verdicts import Status, Verdict

from helpers import ROOT, bank_of, double_it_bank

# right on the script's first call (two elements), wrong on its second (three)
WRONG_ON_THREE = """\
import jax

@jax.jit
def double_it(x):
    return 3 * x if x.shape[0] == 3 else 2 * x
"""

SCRIPT = """
    scripts:
      grow:
        - {args: {x: {$random: {shape: [2]}}}}
        - {args: {x: {$random: {shape: [3]}}}}
    checks:
      - CHECK
"""


def replayed(snippet: str, scope: dict, call: str) -> object:
    """Run the snippet in ``scope`` (where the learner's file ran) and give what its
    last line, the call ``call...``, returned."""
    assert f"\n{call}" in snippet, snippet
    exec(snippet.replace(f"\n{call}", f"\nout = {call}"), scope)
    return scope["out"]


def learners(source: str) -> dict:
    scope: dict = {}
    exec(source, scope)
    return scope


def values_of(shown: dict) -> np.ndarray:
    """A counterexample's array (``values.display``'s form) as NumPy."""
    assert "values_truncated" not in shown
    return np.asarray(shown["values"], dtype=shown["dtype"]).reshape(shown["shape"])


def graded_script_check(tmp_path: Path, check: str):
    bank = double_it_bank(tmp_path / "bank", SCRIPT.replace("CHECK", check))
    submission = tmp_path / "double_it.py"
    submission.write_text(WRONG_ON_THREE)
    report = grade(load_bank(bank).get("double_it"), submission)
    return next(c for c in report.checks if c.id == "measured")


def test_a_scripted_checks_wrong_value_replays_the_failing_call_and_says_which(tmp_path):
    check = graded_script_check(
        tmp_path, "{id: measured, kind: retrace, script: grow, budget: reference}"
    )
    assert check.status == Status.FAILED and check.verdict == Verdict.WRONG_ANSWER, check.message
    snippet = check.details["replay"]
    # the second call failed, after the first: the comment says so, the snippet replays it
    assert "# scripted call 2 of 2 (the script 'grow'), made after call 1" in snippet
    out = replayed(snippet, learners(WRONG_ON_THREE), "double_it(")
    got = values_of(check.counterexample["actual"])
    assert got.shape == (3,) and np.array_equal(np.asarray(out), got)
    assert not np.allclose(got, values_of(check.counterexample["expected"]))


def test_a_measured_scripts_wrong_value_replays_the_failing_call_and_says_which(tmp_path):
    check = graded_script_check(tmp_path, "{id: measured, kind: residuals, script: grow}")
    assert check.status == Status.FAILED and check.verdict == Verdict.WRONG_ANSWER, check.message
    assert check.message.startswith("scripted call 2 of 2")
    snippet = check.details["replay"]
    assert "# scripted call 2 of 2 (the script 'grow'), made after call 1" in snippet
    out = replayed(snippet, learners(WRONG_ON_THREE), "double_it(")
    assert np.array_equal(np.asarray(out), values_of(check.counterexample["actual"]))


def only(check_id: str):
    def edit(entry: dict) -> None:
        entry["checks"] = [c for c in entry["checks"] if c["id"] == check_id]

    return edit


def test_a_wrong_gradient_replays_as_the_gradient_the_check_takes(tmp_path):
    bank = bank_of(tmp_path / "bank", "remat_tanh_stack", edit=only("gradient"))
    submission = ROOT / "tasks" / "remat_tanh_stack" / "known" / "custom_vjp_forgets_x.py"
    report = grade(load_bank(bank).get("remat_tanh_stack"), submission)
    check = report.checks[0]
    assert check.status == Status.FAILED and check.details["checked"].startswith("gradient")
    snippet = check.details["replay"]
    call = "jax.value_and_grad(remat_tanh_stack, argnums=(0, 1))(ws, x)"
    assert snippet.splitlines()[-1] == call
    value, (d_ws, d_x) = replayed(snippet, learners(submission.read_text()), call)
    wrt = check.details["checked"].removeprefix("gradient with respect to ")
    replayed_gradient = {"ws": d_ws, "x": d_x}[wrt]
    shown = check.counterexample["actual"]
    if wrt == "x":
        assert np.allclose(np.asarray(replayed_gradient), values_of(shown))
    else:
        assert len(shown) == len(replayed_gradient)
        for mine, want in zip(replayed_gradient, shown):
            assert np.allclose(np.asarray(mine), values_of(want))
    # and it is the wrong gradient: the reference's, taken the same way, differs
    reference = learners((ROOT / "reference" / "remat_tanh_stack.py").read_text())
    theirs = replayed(snippet, reference, call)[1][("ws", "x").index(wrt)]
    assert not np.allclose(np.asarray(replayed_gradient), np.asarray(theirs), atol=1e-4)


# the replay in a process of its own, with the task's eight devices (CPU ones here)
SHARDING_REPLAY = """
import jax, json, sys
jax.config.update("jax_num_cpu_devices", 8)
scope = {}
exec(open(sys.argv[1]).read(), scope)
snippet = open(sys.argv[2]).read()
exec(snippet.replace("\\nshard_rows(", "\\nout = shard_rows("), scope)
out = scope["out"]
shards = sorted(
    [s.device.id, [[i.start or 0, out.shape[k] if i.stop is None else i.stop]
                   for k, i in enumerate(s.index)]]
    for s in out.addressable_shards
)
print(json.dumps(shards))
"""


def test_a_wrong_layout_replays_to_the_same_shards_the_report_shows(tmp_path):
    bank = bank_of(tmp_path / "bank", "shard_rows", edit=only("sharding"))
    submission = ROOT / "tasks" / "shard_rows" / "known" / "replicated.py"
    report = grade(load_bank(bank).get("shard_rows"), submission)
    check = report.checks[0]
    assert check.status == Status.FAILED and check.verdict == Verdict.WRONG_ANSWER, check.message
    snippet = check.details["replay"]
    assert "# the sharding check compares where the result lands" in snippet
    assert 'jax.config.update("jax_num_cpu_devices", 8)' in snippet
    (tmp_path / "replay.py").write_text(snippet)
    (tmp_path / "run.py").write_text(textwrap.dedent(SHARDING_REPLAY))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XLA_", "JAX_"))}
    done = subprocess.run(
        [sys.executable, str(tmp_path / "run.py"), str(submission), str(tmp_path / "replay.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(env, JAX_PLATFORMS="cpu"),
    )
    assert done.returncode == 0, done.stderr
    shards = json.loads(done.stdout)
    reported = sorted(check.details["layout"][0]["shards"])
    assert shards == reported
    assert reported != sorted(check.details["reference_layout"][0]["shards"])
