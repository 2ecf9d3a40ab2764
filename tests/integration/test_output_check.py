"""The ``output`` check kind: what the learner's function prints on each scripted call."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from judge.bank import BankError, load_bank
from judge.runner import grade
from judge.verdicts import Status, Verdict

BANK = """
tasks:
  - id: logged_sum
    title: A sum that logs every call
    step: 2
    dims: {n: [0, 8]}
    args:
      x: {type: array, dtype: float32, shape: [n], values: [-10, 10]}
    result: {type: scalar, dtype: float}
    tolerance: {mode: reduction}
    scripts:
      repeats:
        - {args: {x: {$random: {shape: [3]}}}, repeat: 2}
        - {args: {x: {$random: {shape: [0]}}}, repeat: 2}
        - {args: {x: {$random: {shape: [5]}}}}
        - {args: {x: {$random: {shape: [3]}}}}
    checks:
      CHECKS
"""

OUTPUT = "- {id: prints, kind: output, script: repeats, pattern: '^sum=', count: 1}"
REFERENCE = """
import jax
import jax.numpy as jnp

@jax.jit
def _sum(x):
    return jnp.sum(x)

def logged_sum(x):
    s = _sum(x)
    print(f"sum={float(s):.3f}")
    return s
"""


def bank_with(tmp_path: Path, checks: str = OUTPUT):
    (tmp_path / "reference").mkdir(exist_ok=True)
    (tmp_path / "tasks" / "logged_sum").mkdir(parents=True, exist_ok=True)
    (tmp_path / "reference" / "logged_sum.py").write_text(REFERENCE)
    (tmp_path / "tasks.yaml").write_text(BANK.replace("CHECKS", checks))
    return load_bank(tmp_path)


def run(tmp_path: Path, body: str, checks: str = OUTPUT):
    task = bank_with(tmp_path, checks).get("logged_sum")
    path = tmp_path / "submission.py"
    path.write_text(textwrap.dedent(body))
    report = grade(task, path)
    return report, {c.id: c for c in report.checks}


TRACE_TIME_PRINT = """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def logged_sum(x):
        print("sum=", x)          # runs only while tracing
        return jnp.sum(x)
"""


def test_a_print_outside_jit_passes_and_still_reaches_the_report(tmp_path):
    report, checks = run(tmp_path, REFERENCE)
    assert report.verdict == Verdict.ACCEPTED, checks["prints"].message
    assert checks["prints"].details["matching"] == [1] * 6
    assert report.output["stdout"].count("sum=") == 6


def test_jax_debug_print_inside_jit_is_waited_for_and_counted(tmp_path):
    report, checks = run(
        tmp_path,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def logged_sum(x):
            s = jnp.sum(x)
            jax.debug.print("sum={s}", s=s)
            return s
    """,
    )
    assert report.verdict == Verdict.ACCEPTED, checks["prints"].message


def test_a_trace_time_print_fails_on_the_first_cache_hit_with_the_reason(tmp_path):
    report, checks = run(tmp_path, TRACE_TIME_PRINT)
    assert report.verdict == Verdict.WRONG_ANSWER
    check = checks["prints"]
    assert check.status == Status.FAILED and check.verdict == Verdict.WRONG_ANSWER
    assert check.details["matching"] == [1, 0, 1, 0, 1, 0]
    assert "scripted call 2 of 6" in check.message
    assert "call 1 printed and call 2" in check.message
    assert "only while JAX traces it" in check.message


def test_earlier_checks_filling_the_caches_change_nothing(tmp_path):
    # the retrace check runs the same script first; the output check clears the caches
    # before its first call, so it sees what a fresh process would
    checks_yaml = "- {id: retrace, kind: retrace, script: repeats, budget: 10}\n      " + OUTPUT
    report, checks = run(tmp_path, TRACE_TIME_PRINT, checks_yaml)
    # the retrace check ran its calls first (its figures are not counted: the values,
    # here the prints, are wrong, so it reads skipped)
    assert checks["retrace"].status == Status.SKIPPED
    assert checks["retrace"].details.get("values_wrong") is True
    assert checks["prints"].details["matching"] == [1, 0, 1, 0, 1, 0]


def test_printing_both_at_trace_time_and_at_run_time_is_too_many_lines(tmp_path):
    report, checks = run(
        tmp_path,
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def logged_sum(x):
            print("sum= (tracing)")
            s = jnp.sum(x)
            jax.debug.print("sum={s}", s=s)
            return s
    """,
    )
    assert report.verdict == Verdict.WRONG_ANSWER
    assert checks["prints"].details["matching"] == [2, 1, 2, 1, 2, 1]
    assert "too many lines" in checks["prints"].message


@pytest.mark.parametrize(
    "body, words",
    [
        (
            """
        import sys
        import jax.numpy as jnp

        def logged_sum(x):
            print("sum=", file=sys.stderr)
            return jnp.sum(x)
     """,
            "nothing reached standard output",
        ),
        (
            """
        import jax.numpy as jnp

        def logged_sum(x):
            print("total:", x.shape)
            return jnp.sum(x)
     """,
            "no line matches (the first line printed was 'total: (3,)')",
        ),
    ],
)
def test_lines_elsewhere_or_unmatched_are_not_counted(tmp_path, body, words):
    report, checks = run(tmp_path, body)
    assert report.verdict == Verdict.WRONG_ANSWER
    assert checks["prints"].details["matching"] == [0] * 6
    assert words in checks["prints"].message


def test_bytes_written_to_fd_1_directly_count_too(tmp_path):
    report, checks = run(
        tmp_path,
        """
        import os
        import jax.numpy as jnp

        def logged_sum(x):
            os.write(1, b"sum=?\\n")
            return jnp.sum(x)
    """,
    )
    assert report.verdict == Verdict.ACCEPTED, checks["prints"].message


def test_a_closed_standard_output_is_the_learners_business_not_a_judge_error(tmp_path):
    # closed at import: print then fails inside the call (the learner's error), and
    # os.write-free code simply prints nothing
    report, checks = run(
        tmp_path,
        """
        import os
        import jax.numpy as jnp
        os.close(1)

        def logged_sum(x):
            return jnp.sum(x)
    """,
    )
    assert report.verdict == Verdict.WRONG_ANSWER, checks["prints"].message
    assert checks["prints"].details["matching"] == [0] * 6


def test_a_flood_of_output_in_one_call_fails(tmp_path):
    report, checks = run(
        tmp_path,
        """
        import jax.numpy as jnp

        def logged_sum(x):
            print("sum=" + "x" * 100_000)
            return jnp.sum(x)
    """,
    )
    assert checks["prints"].status == Status.FAILED
    assert "more than 64 KiB" in checks["prints"].message


def test_wrong_values_in_its_calls_are_a_wrong_answer(tmp_path):
    report, checks = run(
        tmp_path,
        """
        import jax.numpy as jnp

        def logged_sum(x):
            print("sum=")
            return jnp.sum(x) + 1
    """,
    )
    assert report.verdict == Verdict.WRONG_ANSWER
    assert "scripted call 1" in checks["prints"].message
    assert "wrong value" in checks["prints"].message


def test_the_learners_exception_is_a_runtime_error(tmp_path):
    report, checks = run(
        tmp_path,
        """
        def logged_sum(x):
            raise ValueError("no sums today")
    """,
    )
    assert report.verdict == Verdict.RUNTIME_ERROR
    assert "no sums today" in checks["prints"].message


def test_patching_jax_or_os_after_load_does_not_blind_the_instrument(tmp_path):
    # the instrument bound jax's and os's functions before the learner's file ran
    report, checks = run(
        tmp_path,
        """
        import os
        import jax
        import jax.numpy as jnp
        jax.effects_barrier = lambda: None
        jax.clear_caches = lambda: None
        def broken(*args):
            raise OSError("patched")
        os.dup = os.dup2 = os.memfd_create = os.lseek = broken

        @jax.jit
        def logged_sum(x):
            print("sum=")
            return jnp.sum(x)
    """,
    )
    assert checks["prints"].details["matching"] == [1, 0, 1, 0, 1, 0]


@pytest.mark.parametrize(
    "check, words",
    [
        ("- {id: p, kind: output, script: nope, pattern: x}", "no script named 'nope'"),
        (
            "- {id: p, kind: output, script: repeats, pattern: '(unclosed'}",
            "not a regular expression",
        ),
        ("- {id: p, kind: output, script: repeats, pattern: x, count: -1}", "count"),
        ("- {id: p, kind: output, script: repeats, patern: x}", "patern"),
    ],
)
def test_bad_fields_are_named(tmp_path, check, words):
    with pytest.raises(BankError, match=words.replace("(", r"\(")):
        bank_with(tmp_path, check)
