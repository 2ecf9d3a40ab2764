"""``example``: the statement's worked examples, literally."""

from __future__ import annotations

from .base import CheckSpec, check_kind
from .outcome import call_text, counterexample, failed_call, mismatch


@check_kind("example")
class ExampleCheck(CheckSpec):
    phase = 1

    def run(self, grading):
        task = grading.task
        if not task.examples:
            return self.result("skipped", "the task states no examples")
        for i, ex in enumerate(task.examples, 1):
            expected = ex.expect if ex.expect is not ... else grading.expected(ex.args)
            out = grading.learner_call(ex.args, "example")
            if not out.ok:
                return failed_call(self, grading, ex.args, out, f"Example {i}: ")
            problem = mismatch(grading, ex.args, out.value, expected)
            if problem:
                return self.result(
                    "failed", f"Example {i}: {call_text(task.entrypoint, ex.args)}: {problem.message}",
                    counterexample=counterexample(ex.args, expected, out.value),
                    details={"example": i, "problem": problem.kind})
        n = len(task.examples)
        return self.result("passed", f"{n} example{'s' if n > 1 else ''} from the statement")
