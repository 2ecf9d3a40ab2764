"""``example``: the statement's worked examples, literally."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from .base import CheckSpec, Phase, ResultAfterCalls, check_kind
from .outcome import call_text, counterexample, failed_call, mismatch, replay

if TYPE_CHECKING:
    from ..report import CheckResult
    from ..session import CallOutcome
    from .base import GradingView


@check_kind("example")
class ExampleCheck(CheckSpec):
    phase = Phase.CALLS
    needs_teeth = False  # the statement's examples are there to be agreed with

    def run(self, grading: GradingView) -> CheckResult | ResultAfterCalls:
        if not grading.task.examples:
            return self.result("skipped", "the task states no examples")
        calls: list[
            tuple[Any, Any, CallOutcome]
        ] = []  # (example, expected value or its future, outcome)
        for ex in grading.task.examples:
            # the reference is called even where the statement gives the value: its calls
            # then follow the learner's in the same order, so what they cost can be
            # compared call by call later (the scripted checks on generated inputs)
            pending = grading.expected_soon(ex.args)
            expected = ex.expect if ex.expect is not ... else pending
            out = grading.learner_call(ex.args, "example")
            calls.append((ex, expected, out))
            if not out.ok:
                break
        return ResultAfterCalls(functools.partial(self.judge, grading, calls))

    def judge(self, grading: GradingView, calls: list[tuple[Any, Any, CallOutcome]]) -> CheckResult:
        entrypoint = grading.task.entrypoint
        for i, (ex, expected, out) in enumerate(calls, 1):
            if not out.ok:
                return failed_call(self, grading, ex.args, out, f"Example {i}: ")
            if ex.expect is ...:
                expected = expected.result()
            problem = mismatch(grading, ex.args, out.value, expected)
            if problem:
                return self.result(
                    "failed",
                    f"Example {i}: {call_text(entrypoint, ex.args)}: {problem.message}",
                    counterexample=counterexample(ex.args, expected, out.value),
                    details={"example": i, "problem": problem.kind, **replay(grading, ex.args)},
                )
        n = len(grading.task.examples)
        return self.result("passed", f"{n} example{'s' if n > 1 else ''} from the statement")
