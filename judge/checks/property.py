"""``property``: hypothesis-generated inputs, compared with the reference.

The edges of the shape pool (all-minimum, all-one, all-maximum) are always tried:
hypothesis draws them with near certainty, and any it missed is run afterwards.  A failure is shrunk (towards the empty input first) and
reported with the expected and actual values.  A worker that dies (timeout, crash,
memory) stops the search at once: shrinking would mean restarting it again and again.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile


from ..specs import Inputs
from .base import CheckSpec, Later, check_kind
from .outcome import call_text, counterexample, failed_call, mismatch
from ..verdicts import Verdict


@functools.lru_cache(maxsize=1)
def _hypothesis():
    """hypothesis, imported on first use (not when the bank loads).  It keeps files
    under ./.hypothesis even without a database (a cache of source constants): point it
    at a private folder, so a run writes nothing where the learner is."""
    import hypothesis
    from hypothesis.configuration import set_hypothesis_home_dir

    home = tempfile.mkdtemp(prefix="jax-judge-hypothesis-")
    atexit.register(shutil.rmtree, home, True)
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


class _Wrong(Exception):
    def __init__(self, args, actual, expected, problem):
        super().__init__(problem.message)
        self.args_, self.actual, self.expected, self.problem = args, actual, expected, problem


class _OutOfTime(BaseException):
    pass


@check_kind("property")
class PropertyCheck(CheckSpec):
    phase = 2
    FIELDS = CheckSpec.FIELDS + ("examples", "max_shapes")

    def __init__(self, r, scripts):
        super().__init__(r, scripts)
        self.examples = int(r.number("examples", 100, low=1))
        self.max_shapes = int(r.number("max_shapes", 8, low=3))

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
        return list(prepared or []) + inputs.edge_cases(pool, grading.seed)

    def run(self, grading):
        trial = _Trial(self, grading, *self._plan(grading))
        drawn = grading.prepared(self.id)
        if drawn is None:
            return trial.outcome(trial.search)
        # the learner's calls now, the comparisons once the reference has caught up
        calls = trial.call_ahead(list(drawn) + trial.edge_cases())
        return Later(functools.partial(trial.outcome,
                                       functools.partial(trial.check_ahead, calls)))


class _Trial:
    """One property check's run over one grading: the calls, the comparisons, and the
    replay under hypothesis that shrinks a failure."""

    def __init__(self, check, grading, inputs, pool, n_examples):
        self.check, self.grading = check, grading
        self.inputs, self.pool, self.n_examples = inputs, pool, n_examples
        self.calls, self.shapes = 0, set()

    def call(self, args):
        pending = self.grading.expected_soon(args)
        return pending, self.grading.learner_call(args, "property")

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
        self.judge(args, *self.call(args))

    def call_ahead(self, drawn) -> list:
        calls = []
        expected = self.grading.expected_all(drawn)
        for args, pending in zip(drawn, expected):
            if self.grading.time_left() < 1.0:
                calls.append((args, None, None))       # out of time: judged as such
                break
            calls.append((args, pending, self.grading.learner_call(args, "property")))
            if not calls[-1][2].ok:
                break
        return calls

    def check_ahead(self, calls):
        try:
            for args, pending, out in calls:
                if out is None:
                    raise _OutOfTime()
                self.judge(args, pending, out)
        except (_Raised, _Wrong):
            self.search()

    def search(self):
        self.calls, self.shapes = 0, set()

        def test(args):                 # a plain function: what hypothesis expects
            self.test(args)
        self.check._search(self.grading, self.inputs.strategy(self.pool), self.n_examples, test)()
        self.edges()

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
            return check.result("error", f"stopped after {self.calls} examples: the whole run "
                                f"passed its {grading.task.limits.run_timeout_s:g} s limit",
                                details=self.details(), verdict=Verdict.TIME_LIMIT_EXCEEDED)
        except _Raised as r:
            res = failed_call(check, grading, r.args_, r.outcome, "smallest failing input: ")
            res.details.update(self.details())
            return res
        except _Wrong as w:
            return check.result(
                "failed", f"{call_text(grading.task.entrypoint, w.args_)}: {w.problem.message}",
                counterexample=counterexample(w.args_, w.expected, w.actual),
                details=dict(self.details(), problem=w.problem.kind))
        return check.result("passed", f"{self.calls} generated inputs ({len(self.shapes)} "
                            f"distinct shapes, seed {grading.seed}) agree with the reference",
                            details=self.details())


def _shape_key(args) -> str:
    from ..values import leaves
    from ..worker.wire import Leaf

    return repr([(l.array.dtype.name, l.array.shape) if isinstance(l, Leaf) else type(l).__name__
                 for l in leaves(args)])
