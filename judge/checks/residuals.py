"""``residuals``: what the learner's function keeps for its backward pass.

At each call of a script the worker traces ``jax.vjp`` of the function (with respect to
every array argument; Python numbers static) with ``jax.make_jaxpr``: the outputs of
that program beyond the function's own are its residuals, the values the backward pass
reads.  Those that are the function's arguments are dropped (they are kept anyway, and
would drown the difference); each remaining distinct value counts, with its bytes.

This is what jax's ``jax.ad_checkpoint.print_saved_residuals`` (public, text) and
``jax._src.ad_checkpoint.saved_residuals`` (private, a list) compute, built here on the
public ``make_jaxpr`` and ``vjp`` so no private name or printed text is relied upon;
``tests/unit/test_measure_kinds.py`` pins it against both.  Measured on jax 0.10.2: four
tanh layers save 9 values without ``jax.checkpoint`` and 5 with it on each layer, their
arguments included (5 of them).

The budget is the reference's count and bytes on the same call, plus ``slack`` values
and ``slack_bytes`` bytes; the traced program's primal value is kept and compared.
A host callback the reference does not make fails first (``callbacks.py``): a forward
pass computed in Python can keep what the backward pass needs on the host, where no
residual shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..verdicts import Status
from . import callbacks as host
from .base import ScriptMeasureCheck, bind_tracing, check_kind, instrument, run_traced
from .outcome import plural

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..bank import FieldReader, Task
    from ..report import CheckResult
    from .base import GradingView, Measured
    from .shipped import Context


def measure_residuals(
    ctx: "Context",
    args: "Sequence[Any]",
    kwargs: "dict[str, Any]",
    options: "dict[str, Any]",
    shown: int = 12,
) -> "dict[str, Any]":
    """Runs in the worker: the residuals of ``jax.vjp`` of the call that are not its
    arguments (count, bytes, and the largest, with where they come from)."""
    bound = ctx.bound
    make_jaxpr, vjp, tree_structure = bound["make_jaxpr"], bound["vjp"], bound["tree_structure"]
    getline, realpath, Literal = bound["getline"], bound["realpath"], bound["Literal"]
    fn, arrays = ctx.traceable(args, kwargs)

    def forward_and_residuals(*values: "Any") -> "tuple[Any, Any]":
        out, backward = vjp(fn, *values)
        return out, backward

    closed, (out_shape, backward_shape) = make_jaxpr(forward_and_residuals, return_shape=True)(
        *arrays
    )
    jaxpr = closed.jaxpr
    primal = tree_structure(out_shape).num_leaves
    residual_vars = jaxpr.outvars[primal:]
    arguments = set(map(id, jaxpr.invars))
    constants = set(map(id, jaxpr.constvars))

    mine = realpath(ctx.source_file) if ctx.source_file else None
    ours: "dict[str, bool]" = {}

    def line_of(eqn: "Any") -> "int | None":
        """The innermost line of the learner's file in the equation's traceback."""
        if mine is None:
            return None
        try:
            for frame in eqn.source_info.traceback.frames:
                if frame.file_name not in ours:
                    ours[frame.file_name] = realpath(frame.file_name) == mine
                if ours[frame.file_name]:
                    return int(frame.line_num)
        except Exception:
            pass
        return None

    def producer(var: "Any", program: "Any", depth: int = 0) -> "tuple[str | None, int | None]":
        """(primitive, learner's line) of the equation that made ``var``, looking into
        jitted functions for the equation inside."""
        for eqn in program.eqns:
            for k, out in enumerate(eqn.outvars):
                if out is var:
                    if eqn.primitive.name == "reduce_precision" and depth < 20:
                        # a checkpoint policy's marker: the value comes from its input
                        # (jax's own accounting looks through it too)
                        found = producer(eqn.invars[0], program, depth + 1)
                        if found[0]:
                            return found
                    inner = eqn.params.get("jaxpr")
                    inner = getattr(inner, "jaxpr", inner)
                    if eqn.primitive.name == "jit" and inner is not None and depth < 20:
                        found = producer(inner.outvars[k], inner, depth + 1)
                        if found[0]:
                            return found
                    return str(eqn.primitive.name), line_of(eqn)
        return None, None

    seen: "set[int]" = set()
    saved: "list[dict[str, Any]]" = []
    origin: "tuple[str | None, int | None]"  # (primitive, learner's line) that made it
    for var in residual_vars:
        if isinstance(var, Literal):
            aval, origin = var.aval, ("a literal", None)
        elif id(var) in arguments or id(var) in seen:
            continue
        else:
            seen.add(id(var))
            aval = var.aval
            origin = ("a constant", None) if id(var) in constants else producer(var, jaxpr)
        shape = [int(d) for d in getattr(aval, "shape", ())]
        size = 1
        for d in shape:
            size *= d
        itemsize = int(getattr(getattr(aval, "dtype", None), "itemsize", 0) or 0)
        saved.append(
            {
                "shape": shape,
                "dtype": str(getattr(aval, "dtype", "?")),
                "bytes": size * itemsize,
                "from": origin[0],
                "line": origin[1],
            }
        )
    # host callbacks anywhere in the program (a forward computed in Python keeps its
    # values on the host, where no residual shows them): count and first line of each
    wanted = set(options.get("callbacks", ()))
    callbacks: "dict[str, dict[str, Any]]" = {}
    jaxprs_in_params = bound["jaxprs_in_params"]

    def find(program: "Any", depth: int = 0) -> None:
        for eqn in program.eqns:
            name = str(eqn.primitive.name)
            if name in wanted:
                found = callbacks.setdefault(name, {"times": 0, "line": line_of(eqn)})
                found["times"] += 1
            if depth < 100:
                for sub in jaxprs_in_params(eqn.params):
                    find(sub, depth + 1)

    find(jaxpr)
    # the traced program's own value (base.py's shipped helper, still untyped)
    flat = run_traced(bound, closed, arrays)  # type: ignore[no-untyped-call]
    if flat is not None:
        ctx.keep(tree_structure(out_shape).unflatten(list(flat)[:primal]))
    largest = sorted(saved, key=lambda r: -r["bytes"])[:shown]
    for r in largest:
        if r["line"] and ctx.source_file:
            r["code"] = getline(ctx.source_file, r["line"]).strip()[:160]
    return {
        "count": len(saved),
        "bytes": sum(r["bytes"] for r in saved),
        "largest": largest,
        "arguments_saved": sum(1 for v in residual_vars if id(v) in arguments),
        "callbacks": callbacks,
    }


@check_kind("residuals")
class ResidualsCheck(ScriptMeasureCheck):
    FIELDS = ScriptMeasureCheck.FIELDS + ("slack", "slack_bytes")
    INSTRUMENT = instrument(measure_residuals, setup=bind_tracing, helpers=(run_traced,))
    DODGES = ("host_callback",)
    doing = "differentiated with jax.vjp"
    error_hint = (
        "The judge measures what jax.vjp of your function keeps for the backward "
        "pass: code that cannot be differentiated or traced (np.asarray(x), "
        "float(x), an `if` on an array's value) fails here."
    )
    usual_cause = (
        "without jax.checkpoint (jax.remat) every intermediate value the backward "
        "pass needs is kept from the forward pass; wrap each layer (or the whole "
        "stack) in jax.checkpoint so its insides are recomputed instead"
    )

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.slack = int(r.number("slack", 0, low=0))
        self.slack_bytes = int(r.number("slack_bytes", 0, low=0))

    def options(self, task: Task) -> dict[str, Any]:
        return {"callbacks": list(host.COUNTED)}

    def judge(self, grading: GradingView, calls: list[Measured]) -> CheckResult:
        details = {
            "slack": self.slack,
            "slack_bytes": self.slack_bytes,
            "calls": [
                {
                    "call": c.label,
                    "count": c.mine["count"],
                    "bytes": c.mine["bytes"],
                    "reference_count": c.reference["count"],
                    "reference_bytes": c.reference["bytes"],
                    "largest": c.mine["largest"],
                }
                for c in calls
            ],
        }
        for c in calls:
            theirs = {p: int(v["times"]) for p, v in c.reference["callbacks"].items()}
            made = [
                host.Made(p, int(v["times"]), v.get("line")) for p, v in c.mine["callbacks"].items()
            ]
            found = host.extra(made, theirs)
            if found:
                return self.failed(
                    host.failure(
                        found,
                        theirs,
                        f"at scripted call {c.index} ({c.label}), your function",
                        " Values a callback keeps on the host for the backward pass are "
                        "residuals the judge cannot see.",
                    ),
                    details=details,
                )
        for c in calls:
            count, size = c.mine["count"], c.mine["bytes"]
            ref_count, ref_size = c.reference["count"], c.reference["bytes"]
            if count > ref_count + self.slack or size > ref_size + self.slack_bytes:
                return self.failed(self.failure(c), details=details)
        figures = "; ".join(
            f"{plural(c.mine['count'], 'value')}, {c.mine['bytes']} bytes "
            f"(the reference's: {c.reference['count']}, {c.reference['bytes']})"
            for c in calls
        )
        return self.result(
            Status.PASSED,
            f"beyond its arguments, your function saves for the "
            f"backward pass {figures} on the {len(calls)} scripted calls",
            details=details,
        )

    def budget_words(self) -> str:
        slack = [f"{plural(self.slack, 'value')}"] if self.slack else []
        slack += [f"{self.slack_bytes} bytes"] if self.slack_bytes else []
        return f" plus a slack of {' and '.join(slack)}" if slack else ""

    def failure(self, call: Measured) -> str:
        m, r = call.mine, call.reference
        lines = [
            f"at scripted call {call.index} ({call.label}), your function saves "
            f"{plural(m['count'], 'value')} ({m['bytes']} bytes) for the backward pass "
            f"beyond its arguments; the reference saves {r['count']} ({r['bytes']} bytes), "
            f"and the budget is the reference's{self.budget_words()}. The largest:"
        ]
        for res in m["largest"][:5]:
            where = (
                f"from `{res['from']}`"
                if res["from"] and not res["from"].startswith("a ")
                else f"from {res['from'] or 'somewhere jax does not say'}"
            )
            if res.get("line"):
                where += f" at line {res['line']} of your file" + (
                    f": `{res['code']}`" if res.get("code") else ""
                )
            lines.append(f"  {res['dtype']}{res['shape']} ({res['bytes']} bytes) {where}")
        if m["count"] > 5:
            lines.append(f"  ... and {m['count'] - 5} more")
        lines.append(f"Usual cause: {self.cause}.")
        return "\n".join(lines)
