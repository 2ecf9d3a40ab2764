"""`judge validate`: a task proves its checks have teeth before a learner sees it.

Per task, each finding is a CheckResult in a Report (verdict ``accepted`` when the task
is valid, ``judge_error`` when it is not: the task is at fault), so the text and json
writers of `judge run` show it.  What is checked:

* files: statement, starter, reference, known submissions with readable labels
* no placeholder `judge new` left (TODO in the title, statement or a label's why,
  ``tags: [todo]``)
* the reference is accepted by every check, also with --strict (budgets met)
* the starter is not accepted
* every known submission gets its labelled verdict and check statuses
* the statement's examples agree with the reference
* every required check whose kind needs teeth is caught failing some known submission
  (each kind says what catching means: ``CheckSpec.needs_teeth`` and ``caught``)
* each known submission's ``# dodge:`` classes read (``labels.read_dodges``), and which
  kinds of check caught it (the ``dodges`` item); and, when the whole bank is
  validated, every kind of check the bank uses is caught rejecting a known submission
  of each dodge class its module declares (``CheckSpec.DODGES``), somewhere in the bank
  (``dodge_coverage``: one task's cost check may prove what loops do to every cost
  check)
* the generated inputs (what the property check draws and its edge cases) reach every
  edge each argument declares, nested ones included (``Spec.edges``): each dimension at
  both ends, both signs and the ends of a value range, each dtype and option, an empty
  nested dict, dict keys in another order, ...
* the tolerance rejects the reference computed in float16 where results are float32,
  on most inputs (a tolerance that one input in twenty catches is loose on the rest)
* and accepts the reference computed in float64 on every generated input (a more
  accurate answer is not a wrong one)
"""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable

import numpy as np

from . import __version__
from .bank import Task
from .checks import warm_up_for_threads
from .checks.base import CheckView, GradingView
from .checks.outcome import call_text
from .compare import compare
from .labels import Expectation, read_dodges, read_labels
from .reference_checks import reference_checks
from .report import CheckResult, Report
from .runner import Grading, JudgeFault, Oracle, grade
from .specs import Inputs, data_leaves
from .values import leaves
from .verdicts import Status, Verdict
from .worker.wire import Leaf

if TYPE_CHECKING:
    from pathlib import Path

FLOAT16_SAMPLES = 24
ACCURACY_SAMPLES = 48
PLACEHOLDER = re.compile(r"\bTODO\b")


def item(id: str, ok: bool, message: str, *, warn: bool = False, details=None) -> CheckResult:
    status = Status.PASSED if ok else Status.FAILED
    return CheckResult(
        id=id,
        kind="validate",
        required=not warn,
        status=status,
        message=message,
        details=details or {},
        verdict=None if ok else Verdict.JUDGE_ERROR,
    )


class TaskValidation:
    def __init__(self, task: Task, workers: int = 2):
        self.task = task
        self.workers = workers
        self.items: list[CheckResult] = []
        self.oracle = Oracle(task, task.seed)

    def run(self) -> Report:
        started = time.monotonic()
        report = Report(
            task=self.task.id,
            submission=str(self.task.folder),
            seed=self.task.seed,
            judge_version=__version__,
            strict=False,
            title=self.task.title,
        )
        if self.files():
            self.placeholders()
            self.oracle.start()
            try:
                self.examples_agree()
                self.domain_edges()
                self.gradings()
                self.float16_tolerance()
                self.float64_accuracy()
                self.items += reference_checks(self.task, self.oracle, self._generated())
            except JudgeFault as fault:
                self.items.append(item("reference", False, f"the reference fails: {fault}"))
            finally:
                self.oracle.close()
        report.checks = self.items
        report.elapsed_s = time.monotonic() - started
        return report.finish()

    def view(self) -> GradingView:
        """The view of a grading that a check's ``prepare`` gets, the same a grading's
        checks get (of a grading of the reference that makes no call), sharing this
        validation's reference worker: what is prepared here is what the gradings that
        follow use."""
        return CheckView(Grading(self.task, self.task.reference_path, oracle=self.oracle))

    # ------------------------------------------------------------------ pieces
    def files(self) -> bool:
        t = self.task
        missing = [
            str(p) for p in (t.statement_path, t.starter_path, t.reference_path) if not p.is_file()
        ]
        self.items.append(
            item(
                "files",
                not missing,
                "statement, starter and reference present"
                if not missing
                else f"missing: {', '.join(missing)}",
            )
        )
        known = t.known_submissions()
        self.items.append(
            item(
                "known",
                bool(known),
                f"{len(known)} known submissions"
                if known
                else f"no known submissions: add labelled files to {t.folder / 'known'}",
            )
        )
        return not missing

    def placeholders(self) -> None:
        """What `judge new` wrote for the author to replace, still there."""
        t = self.task
        left = [f"title '{t.title}'"] if PLACEHOLDER.search(t.title) else []
        left += (
            [f"tags: [{', '.join(t.tags)}]"] if any(tag.lower() == "todo" for tag in t.tags) else []
        )
        files = [t.statement_path] + t.known_submissions()
        for path in files:
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError):
                continue  # files() and gradings() say what is wrong with it
            for number, line in enumerate(lines, 1):
                if PLACEHOLDER.search(line) and (path == t.statement_path or "why:" in line):
                    left.append(f"{path.name} line {number}: {line.strip()[:70]}")
        self.items.append(
            item(
                "placeholders",
                not left,
                "no placeholder left by `judge new`"
                if not left
                else "placeholders left by `judge new`, to be written: "
                + "; ".join(left[:8])
                + (f"; and {len(left) - 8} more" if len(left) > 8 else ""),
            )
        )

    def examples_agree(self) -> None:
        t = self.task
        stated = [(i, ex) for i, ex in enumerate(t.examples, 1) if ex.expect is not ...]
        if not t.examples:
            self.items.append(
                item(
                    "examples",
                    False,
                    "the task states no examples: add one from the statement",
                    warn=True,
                )
            )
            return
        for i, ex in stated:
            got = self.oracle.value(ex.args)
            problem = compare(got, ex.expect, t.result, t.tolerance, data_leaves(t.args, ex.args))
            self.items.append(
                item(
                    f"example {i}",
                    problem is None,
                    "agrees with the reference"
                    if problem is None
                    else f"the statement's example {i} disagrees with the reference: "
                    f"{problem.message} (fix the example's expect or the reference)",
                )
            )

    def domain_edges(self) -> None:
        t = self.task
        inputs = Inputs(t.args, t.dims)
        pool = inputs.pool(t.seed, _pool_size(t))
        problems = []
        for name, dim in t.dims.items():
            if not any(v.name == name for v in inputs.variables):
                problems.append(f"dimension '{name}' is declared but no argument uses it")
                continue
            values = {a[name] for a in pool}
            for edge in (dim.lo, dim.hi):
                if edge not in values:
                    problems.append(f"dimension '{name}' never reaches {edge}")
        tried = self._generated()
        if tried is None:  # no check draws inputs: what a pool of that size would give
            tried = [inputs.sample(a, np.random.default_rng(i)) for i, a in enumerate(pool)]
        for name, missing in inputs.unreached(tried).items():
            problems.append(
                f"argument '{name}' never reaches: {'; '.join(missing)} (widen "
                f"the spec's ranges, raise the check's examples or max_shapes, "
                f"or narrow what the spec declares)"
            )
        self.items.append(
            item(
                "domain",
                not problems,
                f"inputs reach every declared edge ({len(tried)} inputs, "
                f"{len(pool)} shapes in the pool)"
                if not problems
                else "; ".join(problems),
            )
        )

    def _generated(self) -> list | None:
        """Every input the task's checks generate (drawn once, shared with the gradings
        that follow), or None when no check generates any."""
        t = self.task
        view = self.view()
        found = None
        for check in t.checks:
            made = self.oracle.computed_once(
                check.prepare_key(view), lambda check=check: check.prepare(view)
            )
            generated = check.generated_inputs(view, made)
            if generated is not None:
                found = (found or []) + generated
        return found

    def gradings(self) -> None:
        t = self.task
        jobs: list[tuple[str, Path, bool, Expectation | None]] = [
            ("reference", t.reference_path, True, None),
            ("starter", t.starter_path, False, None),
        ]
        for path in t.known_submissions():
            try:
                labels = read_labels(path)
            except (ValueError, OSError) as exc:  # a bad label, or a notebook that does not read
                self.items.append(item(f"known:{path.name}", False, f"unreadable label: {exc}"))
                continue
            jobs += [(f"known:{path.name}", path, e.strict, e) for e in labels]
        warm_up_for_threads()
        with ThreadPoolExecutor(self.workers) as pool:
            reports = list(
                pool.map(lambda j: grade(t, j[1], strict=j[2], oracle=self.oracle), jobs)
            )
        failed_by: dict[str, list[str]] = {}
        checks = {c.id: c for c in t.checks}
        dodges: list[dict] = []  # per dodge-labelled run: file, classes, kinds that caught it
        for (name, path, strict, expectation), report in zip(jobs, reports):
            if name.startswith("known:"):
                try:
                    classes = read_dodges(path)
                except (ValueError, OSError) as exc:
                    self.items.append(item(f"{name}:dodge", False, f"unreadable label: {exc}"))
                    classes = ()
                if classes:
                    dodges.append(
                        {
                            "file": path.name,
                            "classes": list(classes),
                            "caught_by": sorted(
                                {
                                    checks[c.id].kind
                                    for c in report.checks
                                    if c.id in checks and checks[c.id].caught(c)
                                }
                            ),
                        }
                    )
            summary = "; ".join(f"{c.id} {c.status}" for c in report.checks)
            if name == "reference":
                bad = [c for c in report.checks if c.status != "passed"]
                self.items.append(
                    item(
                        "reference",
                        report.verdict == Verdict.ACCEPTED and not bad,
                        "accepted by every check, also with --strict"
                        if not bad
                        else "the reference is not accepted: "
                        + "; ".join(f"{c.id}: {c.message.splitlines()[0]}" for c in bad),
                    )
                )
                continue
            if name == "starter":
                self.items.append(
                    item(
                        "starter",
                        report.verdict not in (Verdict.ACCEPTED, Verdict.JUDGE_ERROR),
                        f"not accepted ({report.verdict})"
                        if report.verdict != Verdict.ACCEPTED
                        else "the starter is accepted: make its body fail (e.g. raise NotImplementedError)",
                    )
                )
                continue
            for c in report.checks:
                if c.id in checks and checks[c.id].caught(c):
                    failed_by.setdefault(c.id, []).append(path.name)
            problems = expectation.problems(report)  # type: ignore[union-attr]  # labelled: reference and starter went on above
            label = f"{name}" + (" --strict" if strict else "")
            self.items.append(
                item(
                    label,
                    not problems,
                    f"{expectation.describe()} as labelled"  # type: ignore[union-attr]  # as above
                    if not problems
                    else label_disagrees(expectation, report, problems, summary),
                )
            )
        self.items.append(
            item(
                "dodges",
                True,
                f"{len(dodges)} dodge-labelled runs of known submissions"
                if dodges
                else "no dodge-labelled known submission",
                details={"dodges": dodges},
            )
        )
        for c in t.checks:
            if c.required and c.needs_teeth:
                who = failed_by.get(c.id, [])
                self.items.append(
                    item(
                        f"teeth:{c.id}",
                        bool(who),
                        f"failed by {', '.join(sorted(set(who)))}"
                        if who
                        else f"no known submission fails the required {c.kind} check "
                        f"'{c.id}': add one that it catches (a check nothing fails "
                        f"has no teeth)",
                    )
                )

    def float16_tolerance(self) -> None:
        """Tensara's trick: the reference fed float16 copies of its float32 inputs must
        not pass as a float32 answer."""
        t = self.task
        inputs = Inputs(t.args, t.dims)
        pool = inputs.pool(t.seed, _pool_size(t))
        rng = np.random.default_rng(t.seed)
        tried = passed = 0
        for i in range(FLOAT16_SAMPLES):
            args = inputs.sample(pool[i % len(pool)], rng)
            if not any(
                isinstance(l, Leaf) and l.array.dtype == np.float32 and l.array.size
                for l in leaves(args)
            ):
                continue
            exact = self.oracle.value(args)
            # only a result with a nonzero float32 value can tell float16 from float32 (an
            # empty product, a sum of nothing, is exact in any precision)
            if not any(
                isinstance(l, Leaf) and l.array.dtype == np.float32 and np.any(l.array)
                for l in leaves(exact)
            ):
                continue
            try:
                half = self.oracle.value(_to_float16(args))
            except JudgeFault:
                return self.items.append(
                    item(
                        "tolerance",
                        True,
                        "the reference does not run on float16 inputs; float16 check skipped",
                        warn=True,
                    )
                )
            tried += 1
            if (
                compare(
                    _back_to(half, exact), exact, t.result, t.tolerance, data_leaves(t.args, args)
                )
                is None
            ):
                passed += 1
        self.items.append(float16_item(tried, tried - passed))

    def float64_accuracy(self) -> None:
        """A more accurate answer is not a wrong one: the reference computed in float64
        (jax's 64-bit mode, float64 copies of its float32 inputs), cast back, must pass
        the tolerance on every generated input, so that no task hinges on float32
        rounding noise (a constant input normalised by its standard deviation, ...)."""
        t = self.task
        tol = t.tolerance
        if tol.mode == "exact" or (
            not tol.atol
            and (tol.ulps is not None and tol.ulps <= 1 or tol.rtol is not None and tol.rtol == 0)
        ):
            return self.items.append(
                item(
                    "accuracy",
                    True,
                    "the tolerance prescribes the float32 "
                    "computation itself (one unit of rounding or exact): "
                    "float64 check not applicable",
                )
            )
        tried = [
            args
            for args in (self._generated() or [])
            if any(
                isinstance(l, Leaf) and l.array.dtype == np.float32 and l.array.size
                for l in leaves(args)
            )
        ][:ACCURACY_SAMPLES]
        if not tried:
            return self.items.append(
                item("accuracy", True, "no float32 inputs: float64 check not needed")
            )
        precise = Oracle(t, t.seed, x64=True)
        precise.start()
        try:
            exact = self.oracle.values(tried)
            try:
                better = precise.values([_to_float64(args) for args in tried])
            except JudgeFault:
                return self.items.append(
                    item(
                        "accuracy",
                        True,
                        "the reference does not run in 64-bit mode; float64 check skipped",
                        warn=True,
                    )
                )
        finally:
            precise.close()
        rejected = [
            args
            for args, e, b in zip(tried, exact, better)
            if compare(_back_to(b, e), e, t.result, t.tolerance, data_leaves(t.args, args))
        ]
        self.items.append(
            item(
                "accuracy",
                not rejected,
                f"accepts the reference computed in float64 on all {len(tried)} inputs"
                if not rejected
                else f"the tolerance rejects the reference computed in float64 on {len(rejected)} of "
                f"{len(tried)} generated inputs (first: {call_text(t.entrypoint, rejected[0])}): a more "
                f"accurate answer is not a wrong one. Widen the tolerance, or keep the inputs "
                f"where float32 rounding decides out of the domain (min_spread) and say so in "
                f"the statement",
            )
        )


def float16_item(tried: int, rejected: int) -> CheckResult:
    """The tolerance is tight when it rejects the float16 answer on most inputs."""
    if not tried:
        return item("tolerance", True, "no float32 results: float16 check not needed")
    ok = rejected * 2 > tried
    return item(
        "tolerance",
        ok,
        f"rejects the reference computed in float16 on {rejected} of {tried} inputs"
        if ok
        else f"the tolerance lets the reference computed in float16 "
        f"pass on {tried - rejected} of {tried} inputs (it must reject most): tighten it "
        "(mode, ulps, rtol, atol)",
    )


def label_disagrees(expectation, report, problems: list[str], summary: str) -> str:
    """Why a known submission did not get its label; when it raised, what it raised, so
    the author sees a broken file (an import, a typo) for what it is."""
    message = f"labelled '{expectation.describe()}' but got: {'; '.join(problems)} ({summary})"
    errors = [c for c in report.checks if c.status == Status.ERROR]
    # the check that holds the exception (a performance check that met it first only
    # points at that one)
    raised = next((c for c in errors if c.details.get("traceback")), errors[0] if errors else None)
    if raised is not None:
        tb = str(raised.details.get("traceback") or "").strip().splitlines()
        message += f"; {raised.id} raised: {raised.message.splitlines()[0]}"
        if tb and tb[-1] not in raised.message:
            message += f" ({tb[-1].strip()})"
    return message


def _pool_size(task: Task) -> int:
    return max([c.pool_size() or 0 for c in task.checks] + [8])


def _map_leaves(value, fn):
    if isinstance(value, dict):
        return {k: _map_leaves(v, fn) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_map_leaves(v, fn) for v in value)
    return fn(value)


def _to_float64(args):
    return _map_leaves(
        args,
        lambda l: (
            Leaf(l.array.astype(np.float64), l.kind)
            if isinstance(l, Leaf) and l.array.dtype == np.float32
            else l
        ),
    )


def _to_float16(args):
    return _map_leaves(
        args,
        lambda l: (
            l.with_array(l.array.astype(np.float16))
            if isinstance(l, Leaf) and l.array.dtype == np.float32
            else l
        ),
    )


def _back_to(half, exact):
    """Give the float16 result the float32 reference's dtypes, leaf by leaf."""
    ref = iter([l for l in leaves(exact)])

    def cast(l):
        r = next(ref, None)
        if isinstance(l, Leaf) and isinstance(r, Leaf):
            return Leaf(l.array.astype(r.array.dtype), r.kind)
        return l

    return _map_leaves(half, cast)


def validate(tasks: list[Task], workers: int = 2) -> list[Report]:
    return [TaskValidation(t, workers).run() for t in tasks]


def validate_tasks(
    tasks: list[Task],
    workers: int = 2,
    *,
    whole_bank: bool = False,
    each: Callable[[Report], None] = lambda report: None,
) -> tuple[list[Report], list[Report]]:
    """`judge validate`: each task's report (given to ``each`` as it is made), and, when
    ``whole_bank`` (every task of the bank is validated: the bank-wide rules need every
    task's known submissions), the bank-wide rules' report (else none)."""
    reports = []
    for task in tasks:
        reports.append(TaskValidation(task, workers).run())
        each(reports[-1])
    bank_wide = [dodge_coverage(tasks, reports)] if whole_bank and tasks else []
    for report in bank_wide:
        each(report)
    return reports, bank_wide


def dodge_coverage(tasks: list[Task], reports: list[Report]) -> Report:
    """The bank-wide rule of issue 20: every kind of measuring check the bank uses is
    caught rejecting at least one known submission of each dodge class its module
    declares (``CheckSpec.DODGES``), in any task of the bank (a task's own dodge-labelled
    submissions are listed in its ``dodges`` item).  Only classes some kind declares are
    required; a class declared by no kind is a label and nothing more."""
    kinds: dict[str, tuple[str, ...]] = {}
    for t in tasks:
        for c in t.checks:
            if c.DODGES:
                kinds[c.kind] = c.DODGES
    caught: dict[tuple[str, str], list[str]] = {}
    for t, report in zip(tasks, reports):
        for c in report.checks:
            if c.id != "dodges":
                continue
            for run in c.details.get("dodges", []):
                for cls in run["classes"]:
                    for kind in run["caught_by"]:
                        caught.setdefault((kind, cls), []).append(f"{t.id}/{run['file']}")
    items = []
    for kind in sorted(kinds):
        for cls in kinds[kind]:
            who = sorted(set(caught.get((kind, cls), [])))
            items.append(
                item(
                    f"dodge:{kind}:{cls}",
                    bool(who),
                    f"the {kind} kind rejects {cls} known submissions: {', '.join(who[:4])}"
                    + (f" and {len(who) - 4} more" if len(who) > 4 else "")
                    if who
                    else f"no known submission labelled '# dodge: {cls}' is rejected by a {kind} check "
                    f"anywhere in the bank, though the {kind} kind declares that class applies to "
                    f"it: add one to a task with a {kind} check, so a {kind} check is proved to "
                    f"catch {cls}",
                )
            )
    report = Report(
        task="(bank)",
        submission="dodge classes",
        seed=0,
        judge_version=__version__,
        strict=False,
        title="every measuring kind rejects each dodge class it declares",
    )
    if not items:
        items.append(item("dodges", True, "no kind of check in the bank declares a dodge class"))
    report.checks = items
    return report.finish()
