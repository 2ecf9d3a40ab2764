"""The property check: a failure seen once is a failure, a function whose answer for the
same input changes is wrong (in those words), and ``deterministic: true`` gives every
input twice.  A small task of its own keeps these fast."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judge.bank import load_bank
from judge.runner import grade
from judge.scoring import score

from helpers import DOUBLE_IT_REFERENCE, double_it_bank
from helpers.isolation_modes import MODES

FIELDS = """
tolerance: {mode: elementwise}
checks:
  - {id: property, kind: property, examples: 30, max_shapes: 4, deterministic: DETERMINISTIC}
"""

# wrong the first time it sees an input, right when the input comes again
WRONG_ONCE = """
import jax.numpy as jnp
_seen = set()

def double_it(x):
    key = x.tobytes() if hasattr(x, "tobytes") else None
    if x.size and key not in _seen:
        _seen.add(key)
        return 2 * x + 1
    return 2 * x
"""
# wrong on every other call: hypothesis cannot reproduce its failures while shrinking
ALTERNATING = """
_calls = [0]

def double_it(x):
    _calls[0] += 1
    return 2 * x + (1.0 if x.size and _calls[0] % 2 == 0 else 0.0)
"""
# one unit of rounding of noise on a random half of the calls: within tolerance, not
# the same twice
JITTER = """
import jax.numpy as jnp
import numpy as np
_noise = np.random.default_rng()

def double_it(x):
    y = 2 * x
    return jnp.nextafter(y, jnp.inf) if _noise.random() < 0.5 else y
"""


def bank(tmp_path: Path, deterministic: bool = False) -> Path:
    return double_it_bank(
        tmp_path, FIELDS.replace("DETERMINISTIC", "true" if deterministic else "false")
    )


def run(tmp_path, source: str, deterministic: bool = False):
    root = bank(tmp_path, deterministic)
    submission = tmp_path / "submission.py"
    submission.write_text(source)
    report = grade(load_bank(root).get("double_it"), submission)
    (prop,) = [c for c in report.checks if c.id == "property"]
    return report, prop


@pytest.mark.parametrize("source", [WRONG_ONCE, ALTERNATING])
def test_a_failure_seen_once_is_reported_even_when_the_replay_passes(tmp_path, source):
    report, prop = run(tmp_path, source)
    assert report.verdict == "wrong_answer", prop.message
    assert prop.status == "failed"
    assert prop.message.startswith("your function gave different results for the same input: ")
    assert (
        "the first call returned" in prop.message
        and "the same input again returned" in prop.message
    )
    assert prop.details["problem"] == "nondeterministic"
    assert "expected" in prop.counterexample and "actual" in prop.counterexample


def test_deterministic_gives_every_input_twice(tmp_path):
    report, prop = run(tmp_path, JITTER)
    assert report.verdict == "accepted", prop.message  # within tolerance of the reference
    report, prop = run(tmp_path, JITTER, deterministic=True)
    assert report.verdict == "wrong_answer"
    assert prop.message.startswith("your function gave different results for the same input")
    assert "element" in prop.message


def test_deterministic_passes_a_pure_function(tmp_path):
    report, prop = run(tmp_path, DOUBLE_IT_REFERENCE, deterministic=True)
    assert report.verdict == "accepted", prop.message
    assert prop.message.endswith("each giving the same result twice")


# ---------------------------------------------------------------- the run's budget
# A task with a small budget (8 s of the learner's own time) and a submission whose every
# call sleeps: a sleep is charged in full (judge/sandbox/clock.py), so how many inputs fit
# is the same on a quiet or a busy machine.  What is asserted is the verdict and the
# shape of the messages, never seconds.
BUDGET_FIELDS = """
limits: {call_timeout_s: 5, run_timeout_s: 8}
tolerance: {mode: elementwise}
host_syncs: allowed
examples:
  - args: {x: {$array: [1, 2], dtype: float32}}
    expect: {$array: [2, 4], dtype: float32}
scripts:
  one: [{args: {x: {$random: {shape: [4]}}}}]
checks:
  - {id: examples, kind: example}
  - {id: property, kind: property, examples: 30, max_shapes: 4, min_examples: MINIMUM}
  - {id: sharding, kind: sharding, examples: 3}
"""
SYNC_CHECK = "  - {id: sync, kind: sync, script: one, budget: 0}\n"


def sleepy(seconds: float, body: str = "return _double(x)", top: str = "") -> str:
    return (
        f"import time\nimport jax\n{top}\n\n_double = jax.jit(lambda v: 2 * v)\n\n\n"
        f"def double_it(x):\n    time.sleep({seconds})\n    {body}\n"
    )


def run_on_budget(
    tmp_path, source: str, minimum: int = 3, mode: str = "process", more_checks: str = ""
):
    root = double_it_bank(tmp_path, BUDGET_FIELDS.replace("MINIMUM", str(minimum)) + more_checks)
    submission = tmp_path / "submission.py"
    submission.write_text(source)
    report = grade(load_bank(root).get("double_it"), submission, isolation=mode)
    return report, {c.id: c for c in report.checks}


SHORT = re.compile(
    r"each call took about \d+\.\d s: (\d+) of (\d+) generated inputs checked "
    r"\(\d+ distinct shapes?, seed \d+\), all agree with the reference; the run's "
    r"8 s ran short for the other (\d+)$"
)


@pytest.mark.parametrize("mode", MODES)
def test_a_slow_right_function_is_graded_on_the_inputs_checked_in_time(tmp_path, mode):
    report, checks = run_on_budget(tmp_path, sleepy(0.4), mode=mode)
    prop = checks["property"]
    assert report.verdict == "accepted", [c.message for c in report.checks]
    m = SHORT.match(prop.message)
    assert m, prop.message
    checked, planned, rest = map(int, m.groups())
    assert 3 <= checked < planned and checked + rest == planned
    assert "stopped" not in prop.details  # stopped by the clock, but graded
    assert prop.details["examples_run"] == checked and prop.details["inputs_planned"] == planned
    # the time kept for the check after it: it ran all its calls
    assert checks["sharding"].status == "passed" and checks["sharding"].details["calls"] == 3
    # the report says, above the checks, that the verdict rests on fewer inputs
    assert report.notes == [f"the property check {prop.details['short']}"]
    assert prop.details["short"].startswith(
        f"checked {checked} of its {planned} inputs: each call took about "
    )
    assert score(report).earned == score(report).maximum


def test_a_run_cut_short_has_still_checked_the_edges(tmp_path):
    # wrong only on the all-maximum edge (length 8, the range's ends at both ends, where
    # the judge puts them), which the drawn inputs almost never are: checked only if the
    # edges come before the drawn inputs the clock may cut off
    wrong_at_the_edge = (
        "y = _double(x)\n    if x.shape[0] == 8:\n"
        "        y = jnp.where((x[0] == -10.0) & (x[-1] == 10.0), y + 1, y)\n"
        "    return y"
    )
    report, checks = run_on_budget(
        tmp_path, sleepy(0.4, body=wrong_at_the_edge, top="import jax.numpy as jnp")
    )
    prop = checks["property"]
    assert report.verdict == "wrong_answer", [c.message for c in report.checks]
    assert prop.status == "failed" and prop.counterexample, prop.message


def test_a_slow_function_with_a_failed_performance_check_is_inefficient(tmp_path):
    # the verdict comes from the check that measured something, not from the clock
    source = sleepy(0.4, body="float(x.sum()) if x.size else None\n    return _double(x)")
    report, checks = run_on_budget(tmp_path, source, more_checks=SYNC_CHECK)
    assert report.verdict == "inefficient", [c.message for c in report.checks]
    assert checks["sync"].status == "failed"
    assert SHORT.match(checks["property"].message), checks["property"].message
    assert checks["sharding"].status == "passed"


@pytest.mark.parametrize("mode", MODES)
def test_a_wrong_value_seen_is_the_verdict_when_the_run_runs_short(tmp_path, mode):
    report, checks = run_on_budget(tmp_path, sleepy(0.4, body="return _double(x) + 1"), mode=mode)
    assert report.verdict == "wrong_answer", [c.message for c in report.checks]
    assert checks["examples"].status == "failed"
    prop = checks["property"]
    assert prop.status == "failed" and prop.verdict == "wrong_answer", prop.message
    assert prop.counterexample and "expected" in prop.counterexample
    assert not [c for c in report.checks if c.verdict == "time_limit_exceeded" and c.status.bad]


def test_checks_the_clock_stopped_after_a_wrong_value_are_noted_not_the_verdict(tmp_path):
    # 2 s a call: after the example, no time is left for the property check's inputs
    # with the sharding check's calls kept; the wrong example is the verdict
    report, checks = run_on_budget(tmp_path, sleepy(2.0, body="return _double(x) + 1"))
    assert report.verdict == "wrong_answer", [c.message for c in report.checks]
    assert checks["examples"].status == "failed"
    prop = checks["property"]
    assert prop.status == "skipped" and prop.details["out_of_time"], prop.message
    assert prop.message == (
        "not run to the end: the run's 8 s ran out after the examples check had seen a wrong value"
    )
    (note,) = report.notes
    assert re.match(
        r"the run's 8 s then ran out \(a call of your function took about \d+\.\d s\): "
        r"the (property|property and sharding) checks? did not run to the end; a "
        r"wrong value seen once is the verdict, whatever they would show$",
        note,
    ), note
    # a check the clock stopped earns nothing
    by_id = dict(zip([c.id for c in report.checks], score(report).checks))
    assert by_id["property"].earned == 0 and by_id["examples"].earned == 0


def test_too_few_inputs_in_time_is_time_limit_exceeded(tmp_path):
    # below the minimum a function is too slow to be judged: no accepted on a handful
    report, checks = run_on_budget(tmp_path, sleepy(0.4), minimum=25)
    prop = checks["property"]
    assert report.verdict == "time_limit_exceeded"
    assert prop.status == "error" and prop.verdict == "time_limit_exceeded"
    assert re.match(
        r"each call took about \d+\.\d s: only (\d+) of (\d+) generated inputs could "
        r"be checked within the run's 8 s \(all agree with the reference\), fewer "
        r"than the 25 the judge needs to accept a function\. Usual cause: something "
        r"compiled again on every call",
        prop.message,
    ), prop.message
    assert report.notes == []


# the 9th call needs more than what is left of the run (8 s, less 8 calls of 0.4 s and
# the load), though less than one call's own 5 s: the run's clock stops it halfway
SLOWER_ON_THE_NINTH = """
import time
import jax

_double = jax.jit(lambda v: 2 * v)
_calls = [0]


def double_it(x):
    _calls[0] += 1
    time.sleep(4.9 if _calls[0] >= 9 else 0.4)
    return _double(x)
"""


def test_a_call_the_run_clock_stops_leaves_what_was_checked_standing(tmp_path):
    report, checks = run_on_budget(tmp_path, SLOWER_ON_THE_NINTH)
    prop, sharding = checks["property"], checks["sharding"]
    # graded on the 7 inputs before the call that was stopped (the example was call 1)
    assert prop.status == "passed" and prop.details["examples_run"] == 7, prop.message
    assert SHORT.match(prop.message), prop.message
    # the check after it could not run: that, not the property check, is the clock's verdict
    assert sharding.status == "error" and sharding.verdict == "time_limit_exceeded"
    assert sharding.message == "not run: the whole run passed its 8 s limit"
    assert report.verdict == "time_limit_exceeded"


def test_a_single_call_past_its_own_limit_stays_time_limit_exceeded(tmp_path):
    # a wrong example first, then a call that never ends: the call's own limit, not the
    # run's budget, so the verdict is time_limit_exceeded (docs/contract.md's order)
    source = (
        "import jax.numpy as jnp\n\n\ndef double_it(x):\n"
        "    while x.shape[0] != 2:\n        pass\n    return 2 * x + 1\n"
    )
    root = double_it_bank(
        tmp_path,
        BUDGET_FIELDS.replace("MINIMUM", "3").replace(
            "call_timeout_s: 5, run_timeout_s: 8", "call_timeout_s: 1, run_timeout_s: 30"
        ),
    )
    submission = tmp_path / "submission.py"
    submission.write_text(source)
    report = grade(load_bank(root).get("double_it"), submission)
    checks = {c.id: c for c in report.checks}
    assert checks["examples"].status == "failed"
    assert report.verdict == "time_limit_exceeded", [c.message for c in report.checks]
    timed_out = [c for c in report.checks if c.verdict == "time_limit_exceeded" and c.status.bad]
    assert timed_out and all("out_of_time" not in c.details for c in timed_out)
    assert any("limit for one call" in c.message for c in timed_out), [c.message for c in timed_out]


def test_a_slow_function_on_a_deterministic_task_is_still_given_each_input_twice(tmp_path):
    # the first pass keeps time for the second: slowness does not skip the comparison
    root = double_it_bank(
        tmp_path,
        BUDGET_FIELDS.replace("min_examples: MINIMUM", "min_examples: 2, deterministic: true"),
    )
    submission = tmp_path / "submission.py"
    # one unit of rounding the second time an input comes: within tolerance, not the same
    # twice (the inputs are read on the host to know them: this task allows host syncs)
    top = "import jax.numpy as jnp\nimport numpy as np\n_seen = set()"
    body = (
        "key = (x.shape, np.asarray(x).tobytes())\n    again = key in _seen\n"
        "    _seen.add(key)\n    y = _double(x)\n"
        "    return jnp.nextafter(y, jnp.inf) if again else y"
    )
    submission.write_text(sleepy(0.3, top=top, body=body))
    report = grade(load_bank(root).get("double_it"), submission)
    checks = {c.id: c for c in report.checks}
    assert checks["examples"].status == "passed"
    assert report.verdict == "wrong_answer", [c.message for c in report.checks]
    prop = checks["property"]
    assert prop.message.startswith("your function gave different results for the same input")
