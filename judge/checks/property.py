"""``property``: hypothesis-generated inputs, compared with the reference.

Besides what hypothesis draws, the pool's edge shapes (all-minimum, all-one, ...,
all-maximum) are always tried with values at the ends of their ranges.  A failure is
shrunk (towards the empty input first) and reported with the expected and actual
values.  A failure seen once is a failure: when the shrinking replay cannot reproduce it
(a function wrong the first time it sees an input and right the next), the first
counterexample is reported, and if the same input called again gives another answer the
report says that the function gave different results for the same input.  With
``deterministic: true`` every input is given twice and the two results must be
identical bit for bit.  A worker that dies (timeout, crash, memory) stops the search at
once: shrinking would mean restarting it again and again.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
import warnings


from ..specs import Inputs, import_hypothesis
from ..values import first_difference, render
from .base import GENERATED, CheckSpec, Later, check_kind
from .outcome import call_text, counterexample, failed_call, mismatch
from ..verdicts import Status, Verdict

_HOMES: list[str] = []


def remove_hypothesis_home() -> None:
    """Remove hypothesis's private folder.  atexit does it when the interpreter ends
    normally; a process ended by a signal (judge serve under SIGTERM, after uvicorn
    re-raises it) never gets there, so whoever stops such a process calls this."""
    while _HOMES:
        shutil.rmtree(_HOMES.pop(), ignore_errors=True)
    _hypothesis.cache_clear()          # a later use in this process makes a new one


@functools.lru_cache(maxsize=1)
def _hypothesis():
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

    if hasattr(providers, "_get_local_constants"):   # hypothesis >= 6.131
        none = providers.Constants()

        def no_local_constants():
            return none
        providers._get_local_constants = no_local_constants


@functools.lru_cache(maxsize=1)
def warm_up_for_threads() -> None:
    """Call in the main thread before grading in several threads: hypothesis's first
    run parses source with ast, which two threads must not do at once (CPython 3.11)."""
    h = _hypothesis()
    import hypothesis.extra.numpy  # noqa: F401  (imported lazily by specs otherwise: in a thread)
    from hypothesis.errors import HypothesisDeprecationWarning

    # Each run seeds the global `random` and checks on the way out that nothing else
    # moved it; two runs in two threads move it for each other, and hypothesis blames
    # the strategies (the judge's never touch `random`; its draws have their own seed)
    warnings.filterwarnings("ignore", message="Do not use the `random` module inside strategies",
                            category=HypothesisDeprecationWarning)
    from ..specs import _arguments

    _arguments()                   # made in this thread, not in a grading's

    @h.settings(max_examples=1, database=None, verbosity=h.Verbosity.quiet)
    @h.given(h.strategies.integers())
    def warm_up(_):
        pass

    warm_up()


class _Fatal(BaseException):
    """The worker is gone; a BaseException, so hypothesis stops instead of shrinking."""

    def __init__(self, args, outcome):
        super().__init__()
        self.args_, self.outcome = args, outcome


class _Raised(Exception):
    def __init__(self, args, outcome):
        super().__init__(outcome.message)
        self.args_, self.outcome = args, outcome
        self.shrunk = True       # False: the first failing input seen, not a shrunk one


class _Wrong(Exception):
    def __init__(self, args, actual, expected, problem):
        super().__init__(problem.message)
        self.args_, self.actual, self.expected, self.problem = args, actual, expected, problem


class _Changing(BaseException):
    """The same input gave two different answers (or an answer and an exception); a
    BaseException, so hypothesis does not shrink it."""

    def __init__(self, args, expected, first: str, again: str, actual=..., where: str = ""):
        super().__init__()
        self.args_, self.expected, self.actual = args, expected, actual
        self.first, self.again, self.where = first, again, where


class _OutOfTime(BaseException):
    pass


@check_kind("property")
class PropertyCheck(CheckSpec):
    phase = 2
    FIELDS = CheckSpec.FIELDS + ("examples", "max_shapes", "deterministic")
    LABEL = GENERATED       # the label of its learner calls (the scripted checks read them)

    def __init__(self, r, scripts):
        super().__init__(r, scripts)
        self.examples = int(r.number("examples", 100, low=1))
        self.max_shapes = int(r.number("max_shapes", 8, low=3))
        # every input given twice: the two results must be identical bit for bit
        self.deterministic = r.get("deterministic", bool, False)

    def pool_size(self) -> int:
        return self.max_shapes

    def _plan(self, grading):
        task = grading.task
        inputs = Inputs(task.args, task.dims)
        pool = inputs.pool(grading.seed, self.max_shapes)
        return inputs, pool, grading.n_examples or self.examples

    def _search(self, grading, strategy, n_examples, test):
        h = _hypothesis()
        return h.settings(max_examples=n_examples, database=None, deadline=None,
                          derandomize=False, report_multiple_bugs=False, print_blob=False,
                          verbosity=h.Verbosity.quiet, suppress_health_check=list(h.HealthCheck),
                          phases=(h.Phase.explicit, h.Phase.generate, h.Phase.shrink))(
            h.seed(grading.seed)(h.given(strategy)(test)))

    def prepare(self, grading):
        """While the workers start, draw the inputs hypothesis will try (the same seed
        gives the same sequence while every example passes), so the run itself only
        calls; a failure is then replayed under hypothesis to shrink it."""
        inputs, pool, n_examples = self._plan(grading)
        drawn: list = []

        def collect(args):
            drawn.append(args)
        self._search(grading, inputs.strategy(pool), n_examples, collect)()
        return drawn

    def generated_inputs(self, grading, prepared):
        inputs, pool, _ = self._plan(grading)
        return list(prepared or []) + inputs.edge_cases(pool, grading.seed) + \
            inputs.pool_cases(pool, grading.seed)

    def run(self, grading):
        trial = _Trial(self, grading, *self._plan(grading))
        drawn = grading.prepared(self.id)
        if drawn is None:
            return trial.outcome(trial.search)
        # the learner's calls now, the comparisons once the reference has caught up
        drawn_shapes = {_shape_key(args) for args in drawn}
        unseen = [args for args in trial.inputs.pool_cases(trial.pool, grading.seed)
                  if _shape_key(args) not in drawn_shapes]
        calls = trial.call_ahead(list(drawn) + trial.edge_cases() + unseen)
        again = trial.call_again(calls) if self.deterministic else []
        return Later(functools.partial(trial.outcome,
                                       functools.partial(trial.check_ahead, calls, again)))


class _Trial:
    """One property check's run over one grading: the calls, the comparisons, and the
    replay under hypothesis that shrinks a failure."""

    def __init__(self, check, grading, inputs, pool, n_examples):
        self.check, self.grading = check, grading
        self.inputs, self.pool, self.n_examples = inputs, pool, n_examples
        self.calls, self.shapes = 0, set()
        self.first: _Raised | _Wrong | None = None     # the first failure seen

    def learner(self, args):
        return self.grading.learner_call(args, PropertyCheck.LABEL)

    def call(self, args):
        pending = self.grading.expected_soon(args)
        return pending, self.learner(args)

    def judge(self, args, pending, out):
        self.calls += 1
        self.shapes.add(_shape_key(args))
        if not out.ok:
            raise (_Fatal if out.fatal else _Raised)(args, out)
        expected = pending.result()
        problem = mismatch(self.grading, args, out.value, expected)
        if problem:
            raise _Wrong(args, out.value, expected, problem)

    def test(self, args):
        if self.grading.time_left() < 1.0:
            raise _OutOfTime()
        try:
            self.judge(args, *self.call(args))
        except (_Raised, _Wrong) as failure:
            self.first = self.first or failure
            raise

    def call_ahead(self, drawn) -> list:
        calls = []
        expected = self.grading.expected_all(drawn)
        for args, pending in zip(drawn, expected):
            if self.grading.time_left() < 1.0:
                calls.append((args, None, None))       # out of time: judged as such
                break
            calls.append((args, pending, self.learner(args)))
            if not calls[-1][2].ok:
                break
        return calls

    def call_again(self, calls) -> list:
        """Every input a second time (``deterministic``), once all the first calls ran."""
        if not calls or any(out is None or not out.ok for _, _, out in calls):
            return []
        again = []
        for args, _, _ in calls:
            if self.grading.time_left() < 1.0:
                break
            again.append(self.learner(args))
            if not again[-1].ok:
                break
        return again

    def check_ahead(self, calls, again):
        try:
            for args, pending, out in calls:
                if out is None:
                    raise _OutOfTime()
                self.judge(args, pending, out)
            self.compare_again(calls, again)
        except (_Raised, _Wrong) as seen:
            self.first = seen
            try:
                self.search()
            except (_Raised, _Wrong) as shrunk:
                raise self.confirmed(shrunk, shrunk=True)
            raise self.confirmed(seen, shrunk=False)   # the replay found nothing: it stands

    def compare_again(self, calls, again):
        for (args, pending, out), second in zip(calls, again):
            if not second.ok:
                if second.fatal:
                    raise _Fatal(args, second)
                raise _Changing(args, pending.result(), f"returned {render(out.value)}",
                                f"raised {second.message}", out.value)
            where = first_difference(out.value, second.value)
            if where:
                raise _Changing(args, pending.result(), f"returned {render(out.value)}",
                                f"returned {render(second.value)}", out.value, where)

    def search(self):
        self.calls, self.shapes = 0, set()

        def test(args):                 # a plain function: what hypothesis expects
            self.test(args)
        try:
            self.check._search(self.grading, self.inputs.strategy(self.pool), self.n_examples,
                               test)()
        except _hypothesis().errors.Flaky:
            # a failure hypothesis could not reproduce while shrinking: the first one seen
            raise self.confirmed(self.first, shrunk=False)
        self.edges()

    def confirmed(self, failure, shrunk: bool):
        """The failure to report, once its input was called once more: another answer
        than the first means the function's answer changes from call to call (the
        replay under hypothesis may not have seen it fail again at all); the same one
        leaves the counterexample standing."""
        again = self.learner(failure.args_)
        if isinstance(failure, _Wrong):
            if again.ok and first_difference(failure.actual, again.value):
                return _Changing(failure.args_, failure.expected, f"returned {render(failure.actual)}",
                                 f"returned {render(again.value)}", failure.actual)
            if not again.ok and not again.fatal:
                return _Changing(failure.args_, failure.expected, f"returned {render(failure.actual)}",
                                 f"raised {again.message}", failure.actual)
            return failure
        if again.ok:
            return _Changing(failure.args_, ..., f"raised {failure.outcome.message}",
                             f"returned {render(again.value)}")
        failure.shrunk = shrunk
        return failure

    def edge_cases(self) -> list:
        return self.inputs.edge_cases(self.pool, self.grading.seed)

    def edges(self):
        # The pool's edge shapes with values at the ends of their ranges, always tried
        # after what hypothesis drew.  (Explicit @example inputs would never be shrunk.)
        for edge in self.edge_cases():
            self.test(edge)

    def details(self):
        return {"seed": self.grading.seed, "examples_run": self.calls,
                "distinct_shapes": len(self.shapes), "shape_pool": len(self.pool)}

    def outcome(self, body):
        check, grading = self.check, self.grading
        try:
            body()
        except _Fatal as f:
            return failed_call(check, grading, f.args_, f.outcome)
        except _OutOfTime:
            return check.result(Status.ERROR, f"stopped after {self.calls} examples: the whole run "
                                f"passed its {grading.task.limits.run_timeout_s:g} s limit",
                                details=self.details(), verdict=Verdict.TIME_LIMIT_EXCEEDED)
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
                details=dict(self.details(), problem="nondeterministic"),
                verdict=Verdict.WRONG_ANSWER)
        except _Raised as r:
            res = failed_call(check, grading, r.args_, r.outcome,
                              "smallest failing input: " if r.shrunk else "failing input: ")
            res.details.update(self.details())
            return res
        except _Wrong as w:
            return check.result(
                Status.FAILED, f"{call_text(grading.task.entrypoint, w.args_)}: {w.problem.message}",
                counterexample=counterexample(w.args_, w.expected, w.actual),
                details=dict(self.details(), problem=w.problem.kind))
        return check.result(Status.PASSED, f"{self.calls} generated inputs ({len(self.shapes)} "
                            f"distinct shapes, seed {grading.seed}) agree with the reference"
                            + (", each giving the same result twice" if check.deterministic else ""),
                            details=self.details())


def _shape_key(args) -> str:
    from ..values import leaves
    from ..worker.wire import Leaf

    return repr([(l.array.dtype.name, l.array.shape) if isinstance(l, Leaf) else type(l).__name__
                 for l in leaves(args)])
