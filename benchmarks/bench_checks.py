"""What each measuring check (jaxpr, donation, residuals, cost, gradient) costs a grading.

For each task, in paired rounds (median of --rounds), `judge run` of a submission (the
reference by default) is timed twice, side by side: with every check, and without the
check being measured.  Printed per check: the grading's wall time with and without it,
the difference (what the check adds to the learner's wait) and its ratio to the whole,
and the time spent inside the check's own calls (run, then finish) in the grading
with it.  The reference's own measurement runs in its worker beside the learner's, so
the in-check time can exceed the difference.

    python benchmarks/bench_checks.py [--rounds 3] [TASK ...] [--submission FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MEASURING = ("jaxpr", "donation", "residuals", "cost", "gradient")
TASKS = ("ema_scan", "sgd_update", "remat_tanh_stack", "chain_matmul")


def timed_checks(task, spent: dict):
    """The task with each check's run and finish timed into ``spent`` (seconds)."""
    from judge.checks.base import ResultAfterCalls

    for check in task.checks:

        def run(grading, check=check, original=type(check).run):
            started = time.perf_counter()
            out = original(check, grading)
            spent[check.id] = spent.get(check.id, 0.0) + time.perf_counter() - started
            if isinstance(out, ResultAfterCalls):
                finish = out.finish

                def timed_finish(finish=finish):
                    t = time.perf_counter()
                    try:
                        return finish()
                    finally:
                        spent[check.id] += time.perf_counter() - t

                return ResultAfterCalls(timed_finish)
            return out

        check.run = run
    return task


def main() -> None:
    from judge.bank import load_bank
    from judge.runner import grade

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="*", default=list(TASKS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--submission", type=Path, default=None)
    opts = parser.parse_args()
    bank = load_bank()
    print(
        f"{'task':<18} {'check':<10} {'with':>7} {'without':>8} {'adds':>7} {'share':>6} "
        f"{'in check':>9}"
    )
    for task_id in opts.tasks:
        task = bank.get(task_id)
        submission = opts.submission or task.reference_path
        for check in [c for c in task.checks if c.kind in MEASURING]:
            without = dataclasses.replace(task, checks=[c for c in task.checks if c is not check])
            with_s, without_s, inside = [], [], []
            for _ in range(opts.rounds):
                spent: dict = {}
                report = grade(timed_checks(dataclasses.replace(task), spent), submission)
                with_s.append(report.elapsed_s)
                inside.append(spent.get(check.id, 0.0))
                without_s.append(grade(without, submission).elapsed_s)
            w, wo = statistics.median(with_s), statistics.median(without_s)
            print(
                f"{task_id:<18} {check.id:<10} {w:>6.2f}s {wo:>7.2f}s {w - wo:>+6.2f}s "
                f"{(w - wo) / w:>6.0%} {statistics.median(inside):>8.2f}s"
                + ("" if report.verdict == "accepted" else f"  ({report.verdict})")
            )


if __name__ == "__main__":
    main()
