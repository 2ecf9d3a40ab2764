"""``property``: hypothesis-generated inputs, compared with the reference.

Besides what hypothesis draws, the pool's edge shapes (all-minimum, all-one, ...,
all-maximum) are always tried with values at the ends of their ranges, before the drawn
inputs (while hypothesis replays a failure to shrink it, after them).  A failure is
shrunk (towards the empty input first) and reported with the expected and actual
values.  A failure seen once is a failure: when the shrinking replay cannot reproduce it
(a function wrong the first time it sees an input and right the next), the first
counterexample is reported, and if the same input called again gives another answer the
report says that the function gave different results for the same input.  With
``deterministic: true`` every input is given twice and the two results must be
identical bit for bit.  A worker that dies (timeout, crash, memory) stops the search at
once: shrinking would mean restarting it again and again.

The check stretches to the run's budget: where the learner's calls are slow, it stops
drawing while the checks after it can still make theirs, and grades on what it drew
("each call took about 2.5 s: 14 of 38 inputs checked"), so the verdict comes from what
was measured, not from the clock.  A wrong value seen is reported even when the time to
shrink it ran out.  Fewer inputs are less evidence, and the report says so; below
``min_examples`` (default: a quarter of the inputs planned) a function is too slow to be
judged, ``time_limit_exceeded``: a learner cannot slow their function down to be
checked on a handful of inputs.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
import warnings
from typing import TYPE_CHECKING, Any, Callable, NoReturn

from ..specs import Inputs, import_hypothesis
from ..values import first_difference, render
from ..verdicts import Status, Verdict
from .base import CheckSpec, Phase, ResultAfterCalls, check_kind
from .outcome import call_text, counterexample, failed_call, mismatch, replay

if TYPE_CHECKING:
    from ..bank import FieldReader
    from ..compare import Mismatch
    from ..report import CheckResult
    from ..session import CallOutcome
    from .base import GradingView

    Call = tuple[Any, Any, Any]  # (args, the expected value pending, the learner's outcome)

_HOMES: list[str] = []


def remove_hypothesis_home() -> None:
    """Remove hypothesis's private folder.  atexit does it when the interpreter ends
    normally; a process ended by a signal (judge serve under SIGTERM, after uvicorn
    re-raises it) never gets there, so whoever stops such a process calls this."""
    while _HOMES:
        shutil.rmtree(_HOMES.pop(), ignore_errors=True)
    _hypothesis.cache_clear()  # a later use in this process makes a new one


@functools.lru_cache(maxsize=1)
def _hypothesis() -> Any:
    """hypothesis, imported on first use (not when the bank loads).  It keeps files
    under ./.hypothesis even without a database (a cache of source constants): point it
    at a private folder, so a run writes nothing where the learner is."""
    hypothesis = import_hypothesis()
    from hypothesis.configuration import set_hypothesis_home_dir

    home = tempfile.mkdtemp(prefix="jax-judge-hypothesis-")
    _HOMES.append(home)
    atexit.register(remove_hypothesis_home)
    set_hypothesis_home_dir(home)
    _ignore_local_constants()
    return hypothesis


def _ignore_local_constants() -> None:
    """Hypothesis mixes into what it draws the constants it finds in the source of
    "local" modules (any not installed in site-packages).  Which modules those are
    depends on how the judge was installed and where it runs, so one seed would draw
    different inputs for a learner and for the instructor's batch.  The judge's inputs
    depend on the task and the seed alone (and no source is parsed: faster)."""
    from hypothesis.internal.conjecture import providers

    if hasattr(providers, "_get_local_constants"):  # hypothesis >= 6.131
        none = providers.Constants()

        def no_local_constants() -> Any:
            return none

        providers._get_local_constants = no_local_constants


class _Fatal(BaseException):
    """The worker is gone; a BaseException, so hypothesis stops instead of shrinking."""

    def __init__(self, args: dict[str, Any], outcome: CallOutcome) -> None:
        super().__init__()
        self.args_, self.outcome = args, outcome


class _Raised(Exception):
    def __init__(self, args: dict[str, Any], outcome: CallOutcome) -> None:
        super().__init__(outcome.message)
        self.args_, self.outcome = args, outcome
        self.shrunk = True  # False: the first failing input seen, not a shrunk one


class _Wrong(Exception):
    def __init__(self, args: dict[str, Any], actual: Any, expected: Any, problem: Mismatch) -> None:
        super().__init__(problem.message)
        self.args_, self.actual, self.expected, self.problem = args, actual, expected, problem


class _Changing(BaseException):
    """The same input gave two different answers (or an answer and an exception); a
    BaseException, so hypothesis does not shrink it."""

    def __init__(
        self,
        args: dict[str, Any],
        expected: Any,
        first: str,
        again: str,
        actual: Any = ...,
        where: str = "",
    ) -> None:
        super().__init__()
        self.args_, self.expected, self.actual = args, expected, actual
        self.first, self.again, self.where = first, again, where


class _OutOfTime(BaseException):
    pass


@check_kind("property")
class PropertyCheck(CheckSpec):
    phase = Phase.GENERATED
    FIELDS = CheckSpec.FIELDS + ("examples", "max_shapes", "deterministic", "min_examples")
    draws_inputs = True  # the scripted checks weigh its calls too

    @classmethod
    def warm_up(cls) -> None:
        """hypothesis's first run parses source with ast, which two threads must not do
        at once (CPython 3.11): one run here, in the main thread, before any grading's."""
        h = _hypothesis()
        import hypothesis.extra.numpy  # noqa: F401  (imported lazily by specs otherwise: in a thread)
        from hypothesis.errors import HypothesisDeprecationWarning

        # Each run seeds the global `random` and checks on the way out that nothing else
        # moved it; two runs in two threads move it for each other, and hypothesis blames
        # the strategies (the judge's never touch `random`; its draws have their own seed)
        warnings.filterwarnings(
            "ignore",
            message="Do not use the `random` module inside strategies",
            category=HypothesisDeprecationWarning,
        )
        Inputs({}, {}).strategy([{}])  # the argument lists' strategy, made in this thread

        @h.settings(max_examples=1, database=None, verbosity=h.Verbosity.quiet)  # type: ignore[untyped-decorator]  # hypothesis, imported lazily
        @h.given(h.strategies.integers())  # type: ignore[untyped-decorator]
        def warm_up(_: Any) -> None:
            pass

        warm_up()

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.examples = int(r.number("examples", 100, low=1))
        self.max_shapes = int(r.number("max_shapes", 8, low=3))
        # every input given twice: the two results must be identical bit for bit
        self.deterministic = r.get("deterministic", bool, False)
        # the fewest inputs a run cut short by its budget may pass on (None: a quarter)
        self.min_examples = (
            int(r.number("min_examples", 0, low=1)) if "min_examples" in r.data else None
        )

    def planned_calls(self, grading: GradingView) -> int:
        # a second property check after this one needs at least what it may pass on
        return self.min_examples or max(1, (grading.n_examples or self.examples) // 4)

    def pool_size(self) -> int:
        return self.max_shapes

    def _plan(self, grading: GradingView) -> tuple[Inputs, list[dict[str, Any]], int]:
        task = grading.task
        inputs = Inputs(task.args, task.dims)
        pool = inputs.pool(grading.seed, self.max_shapes)
        return inputs, pool, grading.n_examples or self.examples

    def _search(
        self, grading: GradingView, strategy: Any, n_examples: int, test: Callable[[Any], None]
    ) -> Any:
        h = _hypothesis()
        return h.settings(
            max_examples=n_examples,
            database=None,
            deadline=None,
            derandomize=False,
            report_multiple_bugs=False,
            print_blob=False,
            verbosity=h.Verbosity.quiet,
            suppress_health_check=list(h.HealthCheck),
            phases=(h.Phase.explicit, h.Phase.generate, h.Phase.shrink),
        )(h.seed(grading.seed)(h.given(strategy)(test)))

    def prepare(self, grading: GradingView) -> list[dict[str, Any]]:
        """While the workers start, draw the inputs hypothesis will try (the same seed
        gives the same sequence while every example passes), so the run itself only
        calls; a failure is then replayed under hypothesis to shrink it."""
        inputs, pool, n_examples = self._plan(grading)
        drawn: list[dict[str, Any]] = []

        def collect(args: dict[str, Any]) -> None:
            drawn.append(args)

        self._search(grading, inputs.strategy(pool), n_examples, collect)()
        return drawn

    def generated_inputs(self, grading: GradingView, prepared: Any) -> list[Any]:
        inputs, pool, _ = self._plan(grading)
        return (
            inputs.edge_cases(pool, grading.seed)
            + list(prepared or [])
            + inputs.pool_cases(pool, grading.seed)
        )

    def run(self, grading: GradingView) -> CheckResult | ResultAfterCalls:
        trial = _Trial(self, grading, *self._plan(grading))
        drawn = grading.prepared(self.id)
        if drawn is None:
            trial.planned = trial.n_examples + len(trial.edge_cases())
            return trial.outcome(trial.search)
        # the learner's calls now, the comparisons once the reference has caught up
        drawn_shapes = {_shape_key(args) for args in drawn}
        unseen = [
            args
            for args in trial.inputs.pool_cases(trial.pool, grading.seed)
            if _shape_key(args) not in drawn_shapes
        ]
        # the edges first: a run the clock cuts short has still checked the empty input and
        # the ends of every range, and what it checked is a prefix of the reference's calls
        # (so the retrace and sync checks compare like with like)
        everything = trial.edge_cases() + list(drawn) + unseen
        trial.planned = len(everything)
        calls = trial.call_ahead(everything)
        again = trial.call_again(calls) if self.deterministic else []
        return ResultAfterCalls(
            functools.partial(trial.outcome, functools.partial(trial.check_ahead, calls, again))
        )


class _Trial:
    """One property check's run over one grading: the calls, the comparisons, and the
    replay under hypothesis that shrinks a failure."""

    def __init__(
        self,
        check: PropertyCheck,
        grading: GradingView,
        inputs: Inputs,
        pool: list[dict[str, Any]],
        n_examples: int,
    ) -> None:
        self.check, self.grading = check, grading
        self.inputs, self.pool, self.n_examples = inputs, pool, n_examples
        self.shapes: set[str]
        self.calls, self.shapes = 0, set()
        self.first: _Raised | _Wrong | None = None  # the first failure seen
        self.planned = 0  # the inputs it meant to check
        self.costs: list[float] = []  # the run's seconds each of its calls was charged
        self.not_shrunk = ""  # why a failure is reported as first seen
        self.twice = 0  # inputs given a second time (deterministic)

    def learner(self, args: dict[str, Any]) -> CallOutcome:
        out = self.grading.learner_call(args, self.check.calls_label)
        self.costs.append(out.charged_s)
        return out

    def time_for_a_call(self, then: int = 0) -> bool:
        """Is there time for one more call, as costly as the costliest so far, and
        ``then`` more after it, with the checks after this one still able to make theirs?
        (A call the run's clock stops halfway would end the worker, and those checks
        with it.)"""
        cost = max(1.0, 1.25 * max(self.costs, default=0.0))
        return self.grading.time_left() >= cost * (1 + then)

    def call_s(self) -> float:
        """A typical call's charged seconds (the median: a first compile is not typical)."""
        costs = sorted(self.costs)
        return costs[len(costs) // 2] if costs else 0.0

    def minimum(self) -> int:
        wanted = self.check.min_examples or -(-self.planned // 4)
        return max(1, min(wanted, self.planned))

    def call(self, args: dict[str, Any]) -> tuple[Any, CallOutcome]:
        pending = self.grading.expected_soon(args)
        return pending, self.learner(args)

    def judge(self, args: dict[str, Any], pending: Any, out: CallOutcome) -> None:
        if not out.ok and out.run_out:  # the run's clock, not this call: grade what was seen
            raise _OutOfTime()
        self.calls += 1
        self.shapes.add(_shape_key(args))
        if not out.ok:
            raise (_Fatal if out.fatal else _Raised)(args, out)
        expected = pending.result()
        problem = mismatch(self.grading, args, out.value, expected)
        if problem:
            raise _Wrong(args, out.value, expected, problem)

    def test(self, args: dict[str, Any]) -> None:
        if not self.time_for_a_call():
            raise _OutOfTime()
        try:
            self.judge(args, *self.call(args))
        except (_Raised, _Wrong) as failure:
            self.first = self.first or failure
            raise

    def call_ahead(self, drawn: list[dict[str, Any]]) -> list[Call]:
        calls: list[Call] = []
        expected = self.grading.expected_all(drawn)
        for args, pending in zip(drawn, expected):
            # deterministic: each input called so far, and this one, are called again after
            if not self.time_for_a_call(then=len(calls) + 1 if self.check.deterministic else 0):
                calls.append((args, None, None))  # out of time: judged as such
                break
            calls.append((args, pending, self.learner(args)))
            if not calls[-1][2].ok:
                break
        return calls

    def call_again(self, calls: list[Call]) -> list[CallOutcome]:
        """Every input a second time (``deterministic``), once all the first calls ran
        (those the run's budget left time for: the first pass kept time for these)."""
        made = [c for c in calls if c[2] is not None]
        if not made or any(not out.ok for _, _, out in made):
            return []
        again: list[CallOutcome] = []
        for args, _, _ in made:
            if not self.time_for_a_call():
                break
            again.append(self.learner(args))
            if not again[-1].ok:
                break
        return again

    def check_ahead(self, calls: list[Call], again: list[CallOutcome]) -> None:
        try:
            short = False
            try:
                for args, pending, out in calls:
                    if out is None:
                        raise _OutOfTime()
                    self.judge(args, pending, out)
            except _OutOfTime:
                short = True  # what was called is still compared twice, below
            self.twice = len(again)
            self.compare_again(calls, again)
            if short:
                raise _OutOfTime()
        except (_Raised, _Wrong) as seen:
            self.first = seen
            try:
                self.search()
            except (_Raised, _Wrong) as shrunk:
                raise self.confirmed(shrunk, shrunk=True) from None
            except _OutOfTime:
                self.not_shrunk = "the run's time ran out before it could be shrunk"
            raise self.confirmed(seen, shrunk=False) from None  # the replay found nothing

    def compare_again(self, calls: list[Call], again: list[CallOutcome]) -> None:
        for (args, pending, out), second in zip(calls, again):
            if not second.ok:
                if second.fatal:
                    raise _Fatal(args, second)
                raise _Changing(
                    args,
                    pending.result(),
                    f"returned {render(out.value)}",
                    f"raised {second.message}",
                    out.value,
                )
            where = first_difference(out.value, second.value)
            if where:
                raise _Changing(
                    args,
                    pending.result(),
                    f"returned {render(out.value)}",
                    f"returned {render(second.value)}",
                    out.value,
                    where,
                )

    def search(self) -> None:
        self.calls, self.shapes = 0, set()

        def test(args: dict[str, Any]) -> None:  # a plain function: what hypothesis expects
            self.test(args)

        try:
            self.check._search(
                self.grading, self.inputs.strategy(self.pool), self.n_examples, test
            )()
        except _hypothesis().errors.Flaky:
            # a failure hypothesis could not reproduce while shrinking: the first one seen
            raise self.confirmed(self.first, shrunk=False) from None  # type: ignore[arg-type]  # Flaky: one was seen
        self.edges()

    def confirmed(self, failure: _Raised | _Wrong, shrunk: bool) -> _Raised | _Wrong | _Changing:
        """The failure to report, once its input was called once more: another answer
        than the first means the function's answer changes from call to call (the
        replay under hypothesis may not have seen it fail again at all); the same one
        leaves the counterexample standing.  Without the time for that call, it stands."""
        if not self.time_for_a_call():
            self.not_shrunk = self.not_shrunk or "the run's time ran out before it could be shrunk"
            if isinstance(failure, _Raised):
                failure.shrunk = False
            return failure
        again = self.learner(failure.args_)
        if isinstance(failure, _Wrong):
            if again.ok and first_difference(failure.actual, again.value):
                return _Changing(
                    failure.args_,
                    failure.expected,
                    f"returned {render(failure.actual)}",
                    f"returned {render(again.value)}",
                    failure.actual,
                )
            if not again.ok and not again.fatal:
                return _Changing(
                    failure.args_,
                    failure.expected,
                    f"returned {render(failure.actual)}",
                    f"raised {again.message}",
                    failure.actual,
                )
            return failure
        if again.ok:
            return _Changing(
                failure.args_,
                ...,
                f"raised {failure.outcome.message}",
                f"returned {render(again.value)}",
            )
        failure.shrunk = shrunk
        return failure

    def edge_cases(self) -> list[dict[str, Any]]:
        return self.inputs.edge_cases(self.pool, self.grading.seed)

    def edges(self) -> None:
        # The pool's edge shapes with values at the ends of their ranges, always tried
        # after what hypothesis drew.  (Explicit @example inputs would never be shrunk.)
        for edge in self.edge_cases():
            self.test(edge)

    def details(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seed": self.grading.seed,
            "examples_run": self.calls,
            "distinct_shapes": len(self.shapes),
            "shape_pool": len(self.pool),
        }
        if self.not_shrunk:
            out["not_shrunk"] = self.not_shrunk
        return out

    def out_of_time(self) -> CheckResult:
        """The run's budget ran short before every planned input was checked, and all
        that were agree: graded on those, with how many and why; fewer than the minimum
        is a function too slow to be judged."""
        check, grading = self.check, self.grading
        limit = grading.task.limits.run_timeout_s
        n, planned, per = self.calls, self.planned, self.call_s()
        why = f"each call took about {per:.1f} s" if per >= 0.1 else "the run's time ran short"
        details = dict(self.details(), inputs_planned=planned, call_s=round(per, 3))
        if n >= self.minimum():
            details["short"] = (
                f"checked {n} of its {planned} inputs: {why}, and the run's "
                f"{limit:g} s ran short (the rest was kept for the checks after "
                f"it). The verdict rests on those {n}; a faster function is "
                f"checked on all {planned}"
            )
            twice = (
                ""
                if not check.deterministic
                else ", each giving the same result twice"
                if self.twice >= n
                else f", {self.twice} of them given twice with the same result"
            )
            return check.result(
                Status.PASSED,
                f"{why}: {n} of {planned} generated inputs checked "
                f"({len(self.shapes)} distinct shapes, seed {grading.seed}), all "
                f"agree with the reference{twice}; the run's {limit:g} s ran short "
                f"for the other {planned - n}",
                details=details,
            )
        agree = f" ({'all agree' if n > 1 else 'it agrees'} with the reference)" if n else ""
        return check.result(
            Status.ERROR,
            f"{why}: only {n} of {planned} generated inputs could be checked within "
            f"the run's {limit:g} s{agree}, fewer than the {self.minimum()} the judge "
            f"needs to accept a function. Usual cause: something compiled again on "
            f"every call (a jax.jit or shard_map built inside the function around a "
            f"fresh closure, a static argument whose value changes) or slow host "
            f"work (a Python loop over elements, a sleep); make each call cheaper",
            details=dict(details, stopped="run"),
            verdict=Verdict.TIME_LIMIT_EXCEEDED,
        )

    def unshrunk_words(self) -> str:
        return (
            f" (the first failing input seen, not a smaller one: {self.not_shrunk})"
            if self.not_shrunk
            else ""
        )

    def outcome(self, body: Callable[[], object]) -> CheckResult:
        check, grading = self.check, self.grading
        try:
            body()
        except _OutOfTime:
            if self.first is None:
                return self.out_of_time()
            # a failure seen before the time ran out (while hypothesis shrank it): it stands
            self.not_shrunk = "the run's time ran out before it could be shrunk"
            first = self.first
            return self.outcome(lambda: _raise(self.confirmed(first, shrunk=False)))
        except _Fatal as f:
            return failed_call(check, grading, f.args_, f.outcome)
        except _Changing as c:
            where = f" ({c.where})" if c.where else ""
            return check.result(
                Status.FAILED,
                f"your function gave different results for the same input: "
                f"{call_text(grading.task.entrypoint, c.args_)}: the first call {c.first}, the "
                f"same input again {c.again}{where}. A function whose answer changes from call "
                f"to call is wrong: keep no state between calls (a global counter, a cache of "
                f"results, a random key advanced on every call)",
                counterexample=counterexample(c.args_, c.expected, c.actual),
                details=dict(
                    self.details(), problem="nondeterministic", **replay(grading, c.args_)
                ),
                verdict=Verdict.WRONG_ANSWER,
            )
        except _Raised as r:
            res = failed_call(
                check,
                grading,
                r.args_,
                r.outcome,
                "smallest failing input: " if r.shrunk else "failing input: ",
            )
            res.details.update(self.details())
            res.message += self.unshrunk_words()
            return res
        except _Wrong as w:
            return check.result(
                Status.FAILED,
                f"{call_text(grading.task.entrypoint, w.args_)}: {w.problem.message}"
                + self.unshrunk_words(),
                counterexample=counterexample(w.args_, w.expected, w.actual),
                details=dict(self.details(), problem=w.problem.kind, **replay(grading, w.args_)),
            )
        return check.result(
            Status.PASSED,
            f"{self.calls} generated inputs ({len(self.shapes)} "
            f"distinct shapes, seed {grading.seed}) agree with the reference"
            + (", each giving the same result twice" if check.deterministic else ""),
            details=self.details(),
        )


def _raise(exc: BaseException) -> NoReturn:
    raise exc


def _shape_key(args: dict[str, Any]) -> str:
    from ..values import leaves
    from ..worker.wire import Leaf

    return repr(
        [
            (l.array.dtype.name, l.array.shape) if isinstance(l, Leaf) else type(l).__name__
            for l in leaves(args)
        ]
    )
