"""``cost``: how much work XLA's cost analysis counts in the learner's compiled program.

At each call of a script the worker compiles the learner's function with
``jax.jit(...).lower(...).compile()`` (Python numbers static) and reads
``cost_analysis()``: ``flops`` (compared) and ``bytes accessed`` (reported).  jax calls
cost analysis "not a reliably programmable API": the figures are compared only with the
reference's, measured the same way in the same kind of worker, and a reference that
yields no figure makes the task's check a judge error (``judge validate`` fails it), never
the learner's failure.  The compiled program is run and its value compared with the
reference's, so the program measured is the one that computes the answer.

Host callbacks (``jax.pure_callback``, ``io_callback``) are work XLA cannot count: a
program with more of them than the reference's fails too.

Budget: the learner's flops at most the reference's times ``factor`` (default 1).
"""

from __future__ import annotations

from ..verdicts import Status
from .base import ScriptMeasureCheck, bind_tracing, check_kind, instrument


def measure_cost(ctx, args, kwargs, options, jit=None, findall=__import__("re").findall):
    """Runs in the worker: XLA's cost analysis of the compiled call, its host callbacks,
    and the compiled program's value (kept)."""
    jit = jit or ctx.bound["jit"]
    fn, arrays = ctx.traceable(args, kwargs)
    compiled = jit(fn).lower(*arrays).compile()
    analysis = compiled.cost_analysis()
    if isinstance(analysis, (list, tuple)):         # one per device in older jax
        analysis = analysis[0] if analysis else None
    if not isinstance(analysis, dict) or not (
            "flops" in analysis or "bytes accessed" in analysis):
        ctx.unmeasurable("XLA's cost analysis gives no flops for this program on this "
                         "backend")
    try:
        text = compiled.as_text() or ""
    except Exception:
        text = ""
    callbacks = len(findall(r'custom_call_target="[^"]*callback[^"]*"', text))
    ctx.keep(compiled(*arrays))
    return {"flops": float(analysis.get("flops", 0.0)),
            "bytes": float(analysis.get("bytes accessed", 0.0)), "callbacks": callbacks}


def _num(x: float) -> str:
    return f"{x:,.0f}"


@check_kind("cost")
class CostCheck(ScriptMeasureCheck):
    FIELDS = ScriptMeasureCheck.FIELDS + ("factor",)
    INSTRUMENT = instrument(measure_cost, setup=bind_tracing)
    doing = "compiled with jax.jit"
    error_hint = ("The judge compiles your function with jax.jit to read XLA's cost analysis: "
                  "code that needs concrete values (np.asarray(x), float(x), an `if` on an "
                  "array's value) cannot be compiled; use jax.numpy and jax.lax.")
    usual_cause = ("the computation is arranged so that it does more arithmetic than it needs "
                   "(work done twice, or in an order that makes an intermediate result "
                   "larger than necessary)")

    def __init__(self, r, scripts):
        super().__init__(r, scripts)
        self.factor = float(r.number("factor", 1.0, low=1.0))

    def judge(self, grading, calls):
        details = {"factor": self.factor, "calls": [
            {"call": c.label, "flops": c.mine["flops"], "bytes_accessed": c.mine["bytes"],
             "reference_flops": c.reference["flops"],
             "reference_bytes_accessed": c.reference["bytes"],
             "callbacks": c.mine["callbacks"]} for c in calls]}
        for c in calls:
            if c.mine["callbacks"] > c.reference["callbacks"]:
                return self.failed(
                    f"at scripted call {c.index} ({c.label}), your compiled program calls back "
                    f"into Python {c.mine['callbacks']} time(s) (jax.pure_callback, io_callback "
                    f"or a host callback); the reference's does not. Work done there leaves the "
                    f"device, and XLA cannot count it. Usual cause: NumPy or Python code called "
                    f"from the jitted function; write it with jax.numpy.", details=details)
            limit = c.reference["flops"] * self.factor
            if c.mine["flops"] > limit:
                times = c.mine["flops"] / c.reference["flops"] if c.reference["flops"] else None
                ratio = f"{times:.1f} times the reference's" if times else "the reference's"
                factor = f"{self.factor:g} x " if self.factor != 1 else ""
                return self.failed(
                    f"at scripted call {c.index} ({c.label}), your compiled program does "
                    f"{_num(c.mine['flops'])} flops, {ratio} {_num(c.reference['flops'])} "
                    f"(budget: {factor}the reference's, {_num(limit)}). It reads and writes "
                    f"{_num(c.mine['bytes'])} bytes (the reference's: "
                    f"{_num(c.reference['bytes'])}).\n"
                    f"Usual cause: {self.cause}.", details=details)
        worst = max(calls, key=lambda c: c.mine["flops"] / max(c.reference["flops"], 1.0))
        return self.result(
            Status.PASSED,
            f"your compiled program's flops are within {self.factor:g} x the reference's on all "
            f"{len(calls)} scripted calls (closest: call {worst.index}, "
            f"{_num(worst.mine['flops'])} against {_num(worst.reference['flops'])})",
            details=details)
