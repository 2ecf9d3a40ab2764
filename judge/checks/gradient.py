"""``gradient``: the learner's function has the reference's value *and* gradient.

A value check for tasks whose point is how a function is differentiated (remat, custom
derivative rules): the worker takes ``jax.vjp`` of the learner's entrypoint with respect
to the arguments named in ``wrt`` (the others fixed as given) at generated inputs, and
sends back the value and the gradients; the reference's are taken the same way in its
worker.  A function whose value is right but whose derivative is not (a
``stop_gradient`` in the wrong place, a custom rule that forgets an argument) fails it;
so does one that cannot be differentiated at all.

Inputs come from the first ``max_shapes`` (5) entries of the property check's shape
pool (its edges: every dimension at its minimum, at one, at its maximum, then each alone
at its extremes), each shape compiled once, with seeded values, without shrinking:
every input is tried and the smallest failing one reported.  The value is compared with the task's ``result`` and ``tolerance``, the
gradients with this check's ``tolerance`` (default: the task's) and the reference's
dtypes.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np

from ..compare import ResultSpec, Tolerance, compare
from ..specs import data_leaves
from ..verdicts import Status, Verdict
from .base import CheckSpec, Phase, ResultAfterCalls, bind_tracing, check_kind, instrument
from .outcome import call_text, counterexample, failed_call, mismatch, replay

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from concurrent.futures import Future

    from ..bank import FieldReader
    from ..report import CheckResult
    from ..session import CallOutcome
    from .base import GradingView
    from .shipped import Context

GRADIENTS = ResultSpec(type="any", kind="any", dtype="same")


def measure_gradient(
    ctx: "Context",
    args: "Sequence[Any]",
    kwargs: "dict[str, Any]",
    options: "dict[str, Any]",
    compiled: "dict[Any, Any]" = {},  # noqa: B006 (the worker's cache)
) -> "dict[str, Any]":
    """Runs in the worker: the function's value and its gradients with respect to the
    arguments at ``options["wrt"]`` (positions), kept as ``{"value", "gradients"}``.

    Forward and backward are compiled as one program, once per structure of the call
    (``compiled``, kept across calls; jit's own cache then keeps one per shape): taken
    eagerly, a jitted function's vjp compiles its forward and its transpose apart."""
    bound = ctx.bound
    vjp, jit, ones_like = bound["vjp"], bound["jit"], bound["ones_like"]
    issubdtype, inexact = bound["issubdtype"], bound["inexact"]
    positions = [int(i) for i in options["wrt"]]

    def outline(value: "Any", depth: int = 0) -> "Any":  # the call with its arrays left out
        if depth > 50:
            return "deep"
        if type(value) in (list, tuple):
            return (type(value).__name__, tuple(outline(v, depth + 1) for v in value))
        if type(value) is dict:
            return ("dict", tuple((k, outline(v, depth + 1)) for k, v in value.items()))
        if hasattr(value, "shape") and hasattr(value, "dtype"):
            return "array"
        return ("static", type(value).__name__, repr(value))

    def arrays_in(value: "Any", depth: int = 0) -> int:  # the order ctx.traceable finds them in
        if depth > 50:
            return 0
        if type(value) in (list, tuple):
            return sum(arrays_in(v, depth + 1) for v in value)
        if type(value) is dict:
            return sum(arrays_in(v, depth + 1) for v in value.values())
        return 1 if hasattr(value, "shape") and hasattr(value, "dtype") else 0

    def refill(value: "Any", flat: "Iterator[Any]", depth: int = 0) -> "Any":
        # the argument's structure around its gradients
        if type(value) in (list, tuple) and depth <= 50:
            return type(value)(refill(v, flat, depth + 1) for v in value)
        if type(value) is dict and depth <= 50:
            return {k: refill(v, flat, depth + 1) for k, v in value.items()}
        return next(flat) if hasattr(value, "shape") and hasattr(value, "dtype") else value

    fn, arrays = ctx.traceable(args, kwargs)
    key = (tuple(positions), outline(list(args)), outline(dict(kwargs)))
    if key not in compiled:
        starts: "list[int]" = []
        at = 0
        for value in args:
            starts.append(at)
            at += arrays_in(value)
        chosen = [i for p in positions for i in range(starts[p], starts[p] + arrays_in(args[p]))]

        def value_and_gradients(*values: "Any") -> "tuple[Any, Any]":
            def of_chosen(*picked: "Any") -> "Any":
                call = list(values)
                for i, v in zip(chosen, picked):
                    call[i] = v
                return fn(*call)

            value, backward = vjp(of_chosen, *[values[i] for i in chosen])
            shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
            if shape != () or dtype is None or not issubdtype(dtype, inexact):
                what = (
                    f"an array of shape {tuple(shape)} and dtype {dtype}"
                    if shape is not None
                    else f"a {type(value).__name__}"
                )
                ctx.wrong(
                    f"the function returned {what}, not a floating-point scalar, so "
                    f"it has no gradient to compare"
                )
            return value, backward(ones_like(value))

        compiled[key] = jit(value_and_gradients)
    value, gradients = compiled[key](*arrays)
    flat = iter(gradients)
    ctx.keep({"value": value, "gradients": [refill(args[p], flat) for p in positions]})
    return {"arguments": len(positions)}


@check_kind("gradient")
class GradientCheck(CheckSpec):
    phase = Phase.GENERATED
    FIELDS = CheckSpec.FIELDS + ("wrt", "examples", "max_shapes", "tolerance")
    INSTRUMENT = instrument(measure_gradient, setup=bind_tracing)

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.wrt = r.get("wrt", list)
        if not self.wrt or not all(isinstance(n, str) for n in self.wrt):
            r.fail("must name the arguments to differentiate with respect to", "wrt")
        self.examples = int(r.number("examples", 20, low=1))
        self.max_shapes = int(r.number("max_shapes", 5, low=3))
        self.tolerance = Tolerance.parse(r.child("tolerance")) if "tolerance" in r.data else None

    def pool_size(self) -> int:
        return self.max_shapes

    def planned_calls(self, grading: GradingView) -> int:
        return grading.n_examples or self.examples

    def prepare(self, grading: GradingView) -> dict[str, Any]:
        """The inputs, drawn while the workers start: the pool's edges, then seeded
        samples across the pool."""
        from ..specs import Inputs

        task = grading.task
        unknown = [n for n in self.wrt if n not in task.args]
        if unknown:
            return {"unknown": unknown}
        inputs = Inputs(task.args, task.dims)
        # each shape compiles the function's forward and backward once: the pool's first
        # entries (all at their minimum, all at one, all at their maximum, then each
        # dimension alone at its extremes), not all of it
        pool = inputs.pool(grading.seed, self.max_shapes)[: self.max_shapes]
        drawn = inputs.edge_cases(pool, grading.seed)
        rng = np.random.default_rng([grading.seed, 21])
        n = grading.n_examples or self.examples
        while len(drawn) < n:
            drawn.append(inputs.sample(pool[len(drawn) % len(pool)], rng))
        return {"inputs": drawn[: max(n, 1)]}

    def run(self, grading: GradingView) -> CheckResult | ResultAfterCalls:
        from ..values import leaves

        prepared = grading.prepared(self.id) or self.prepare(grading)
        if "unknown" in prepared:
            return self.result(
                Status.ERROR,
                f"the task names no argument {', '.join(prepared['unknown'])} to differentiate by",
                verdict=Verdict.JUDGE_ERROR,
            )
        names = list(grading.task.args)
        options = {"wrt": [names.index(n) for n in self.wrt]}
        # the smallest inputs first, so the first failure found is a small one
        drawn = sorted(
            prepared["inputs"],
            key=lambda a: sum(getattr(getattr(l, "array", None), "size", 1) for l in leaves(a)),
        )
        calls = []
        for args in drawn:
            expected = grading.reference_measure_soon(self.kind, args, options)
            calls.append(
                (args, expected, grading.learner_measure(self.kind, args, options, "gradient"))
            )
            if not calls[-1][2].ok or grading.time_left() < 1.0:
                break
        return ResultAfterCalls(functools.partial(self.judge, grading, calls))

    def replay_call(self, grading: GradingView) -> tuple[str, str]:
        """(note, call) for a failure's replay: the value and the gradients as this check
        takes them (jax.vjp in the worker, with respect to the ``wrt`` arguments, the
        others fixed, a cotangent of one), written as ``jax.value_and_grad`` of the
        entrypoint with the same ``argnums``, called with the arguments in order."""
        task = grading.task
        names = list(task.args)
        argnums = tuple(names.index(n) for n in self.wrt)
        grads = (
            "(" + ", ".join(f"d_{n}" for n in self.wrt) + ("," if len(self.wrt) == 1 else "") + ")"
        )
        note = (
            f"the gradient check: the value of {task.entrypoint} and its gradients with "
            f"respect to {' and '.join(self.wrt)} (argnums {argnums}), as the check takes "
            f"them: (value, {grads})"
        )
        call = f"jax.value_and_grad({task.entrypoint}, argnums={argnums!r})({', '.join(names)})"
        return note, call

    def judge(
        self,
        grading: GradingView,
        calls: list[tuple[dict[str, Any], Future[CallOutcome], CallOutcome]],
    ) -> CheckResult:
        task = grading.task
        note, call = self.replay_call(grading)
        for args, expected, out in calls:
            if not out.ok and out.verdict == Verdict.WRONG_ANSWER:
                return self.result(
                    Status.FAILED,
                    f"{call_text(task.entrypoint, args)}: {out.message}",
                    counterexample=counterexample(args),
                    details=replay(grading, args, note, call),
                )
            if not out.ok:
                return failed_call(
                    self, grading, args, out, "taking the gradient: ", note=note, call=call
                )
            ref = expected.result().value
            problem = mismatch(grading, args, out.value["value"], ref["value"])
            what, want, got = "value", ref["value"], out.value["value"]
            if problem is None:
                for name, mine, theirs in zip(self.wrt, out.value["gradients"], ref["gradients"]):
                    problem = compare(
                        mine,
                        theirs,
                        GRADIENTS,
                        self.tolerance or task.tolerance,
                        data_leaves(task.args, args),
                    )
                    if problem:
                        what, want, got = f"gradient with respect to {name}", theirs, mine
                        break
            if problem:
                return self.result(
                    Status.FAILED,
                    f"{call_text(task.entrypoint, args)}: the {what} disagrees "
                    f"with the reference's: {problem.message}",
                    counterexample=counterexample(args, want, got),
                    details={
                        "checked": what,
                        "problem": problem.kind,
                        **replay(grading, args, note, call),
                    },
                )
        n = len(calls)
        return self.result(
            Status.PASSED,
            f"the value and the gradient with respect to "
            f"{' and '.join(self.wrt)} agree with the reference on {n} "
            f"generated input{'s' if n != 1 else ''}",
        )
