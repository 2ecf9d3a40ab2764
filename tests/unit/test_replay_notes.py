"""The words and lines a replay adds (issue 22): which scripted call it was, and a call
line of the check's own (the gradient check's) for a call that raised too."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from judge.checks.outcome import failed_call, scripted_note
from judge.checks.sharding import replay_note
from judge.report import CheckResult
from judge.session import CallOutcome
from judge.values import replay_snippet
from judge.verdicts import Verdict
from judge.worker.wire import Leaf


class Check:
    def result(self, status, message, **kw) -> CheckResult:
        return CheckResult(id="c", kind="k", required=True, status=status, message=message, **kw)


def test_a_scripted_note_says_which_call_and_what_ran_before_it():
    assert scripted_note(1, 4, "steps") == "scripted call 1 of 4 (the script 'steps')"
    assert scripted_note(2, 4, "steps").endswith(
        "made after call 1 of the script: this replays it alone"
    )
    assert "made after calls 1 to 3 of the script" in scripted_note(4, 4, "steps")


def test_the_note_is_a_comment_above_the_call_and_the_call_may_be_the_checks_own():
    args = {
        "ws": [Leaf(np.ones((2, 2), np.float32), "jax")],
        "x": Leaf(np.ones(2, np.float32), "jax"),
    }
    snippet = replay_snippet("f", args, note="first line\nsecond line")
    lines = snippet.splitlines()
    assert lines[-3:] == ["# first line", "# second line", "f(ws=ws, x=x)"]
    own = replay_snippet("f", args, call="jax.value_and_grad(f, argnums=(1,))(ws, x)")
    assert own.splitlines()[-1] == "jax.value_and_grad(f, argnums=(1,))(ws, x)"
    assert "f(ws=ws, x=x)" not in own


def test_a_call_that_raised_replays_with_the_checks_note_and_call():
    grading = SimpleNamespace(task=SimpleNamespace(entrypoint="f"))
    args = {"x": Leaf(np.ones(2, np.float32), "jax")}
    raised = CallOutcome(ok=False, verdict=Verdict.RUNTIME_ERROR, message="ValueError: no")
    result = failed_call(Check(), grading, args, raised, note="the gradient", call="jax.grad(f)(x)")
    snippet = result.details["replay"]
    assert snippet.splitlines()[-2:] == ["# the gradient", "jax.grad(f)(x)"]
    plain = failed_call(Check(), grading, args, raised).details["replay"]
    assert plain.splitlines()[-1] == "f(x=x)" and "#" not in plain


def test_the_sharding_note_says_how_many_devices_to_start_where_there_are_several():
    assert 'jax.config.update("jax_num_cpu_devices", 8)' in replay_note(8)
    assert "jax_num_cpu_devices" not in replay_note(None) and "result.sharding" in replay_note(1)
