"""``donation``: the learner's function hands the buffers of a named argument to its
results instead of allocating new ones.

After each call of a script, every leaf of ``argument`` (zero-size ones included) must
be donated: deleted (``is_deleted()``: the caller can no longer use it) and its device
buffer reused by one of the results (the same buffer pointer).  The leaves are handed
over in buffers jax owns (a copy made before the call): jax's ``device_put`` of a NumPy
array may share the NumPy buffer, which XLA cannot write into, and then copies instead
of reusing it, depending on the buffer's alignment.  Measured on jax 0.10 CPU, with
owned buffers reuse is certain (50 of 50 runs, zero-size leaves included); a donated
leaf whose buffer XLA cannot use (another shape or dtype) is left alive, and JAX may
warn "Some donated buffers were not usable" (reported with the leaf); a leaf deleted by
hand (``x.delete()``) is deleted but not reused, so it does not pass.  What else the learner donates is their business: a warning about other
arguments' buffers, with every leaf of ``argument`` reused, passes.

The judge never touches an input after handing it over: each call's arrays are fresh
in the worker, so donation cannot break the other checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..verdicts import Status
from .base import ScriptMeasureCheck, bind_tracing, check_kind, instrument
from .outcome import plural

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ..bank import FieldReader, Task
    from ..report import CheckResult
    from .base import GradingView, Measured
    from .shipped import Context


def measure_donation(
    ctx: "Context",
    args: "Sequence[Any]",
    kwargs: "dict[str, Any]",
    options: "dict[str, Any]",
    catch_warnings: "Any" = __import__("warnings").catch_warnings,
    simplefilter: "Any" = __import__("warnings").simplefilter,
) -> "dict[str, Any]":
    """Runs in the worker: calls the function once and reports, for each leaf of the
    named argument, whether it was deleted and whether a result now holds its buffer;
    the result is kept."""
    block_until_ready, device_put = ctx.bound["block_until_ready"], ctx.bound["device_put"]
    index, name = int(options["argument"]), str(options["name"])

    def walk(value: "Any", path: str, depth: int = 0) -> "Iterator[tuple[str, Any]]":
        if depth > 50:
            return
        if type(value) in (list, tuple):
            for i, v in enumerate(value):
                yield from walk(v, f"{path}[{i}]", depth + 1)
        elif type(value) is dict:
            for k, v in value.items():
                yield from walk(v, f"{path}[{k!r}]", depth + 1)
        else:
            yield path, value

    def buffers(leaf: "Any") -> "list[int] | None":
        try:
            return [int(s.data.unsafe_buffer_pointer()) for s in leaf.addressable_shards]
        except Exception:
            return None

    def result_leaves(value: "Any", depth: int = 0) -> "Iterator[Any]":
        if depth > 50:
            return
        if isinstance(value, (list, tuple)):
            for v in value:
                yield from result_leaves(v, depth + 1)
        elif isinstance(value, dict):
            for v in value.values():
                yield from result_leaves(v, depth + 1)
        else:
            yield value

    def owned(value: "Any", depth: int = 0) -> "Any":
        # device_put may hand jax a NumPy buffer without copying it, and XLA cannot write
        # into a buffer jax does not own: it copies, and whether it must depends on the
        # buffer's alignment.  Arrays made by jax, as parameters are in training, are
        # what donation is for.
        if type(value) in (list, tuple) and depth <= 50:
            return type(value)(owned(v, depth + 1) for v in value)
        if type(value) is dict and depth <= 50:
            return {k: owned(v, depth + 1) for k, v in value.items()}
        return device_put(value, may_alias=False) if hasattr(value, "is_deleted") else value

    args = list(args)
    args[index] = owned(args[index])
    watched = [
        (path, leaf, buffers(leaf))
        for path, leaf in walk(args[index], name)
        if hasattr(leaf, "is_deleted")
    ]
    others = {
        i: [leaf for _, leaf in walk(value, "") if hasattr(leaf, "is_deleted")]
        for i, value in enumerate(args)
        if i != index
    }
    with catch_warnings(record=True) as caught:
        simplefilter("always")
        result = ctx.function(*args, **kwargs)
        try:
            block_until_ready(result)
        except Exception:
            pass  # non-array leaves: nothing to wait for
    held: "set[int]" = set()
    for leaf in result_leaves(result):
        if hasattr(leaf, "is_deleted") and not leaf.is_deleted():
            held.update(buffers(leaf) or [])
    ctx.keep(result)
    warned = [
        str(w.message).split("\n")[0][:300]
        for w in caught
        if "donated buffers were not usable" in str(w.message)
    ]
    return {
        "leaves": [
            {
                "path": path,
                "shape": list(leaf.shape),
                "dtype": str(leaf.dtype),
                "deleted": bool(leaf.is_deleted()),
                "reused": bool(ptrs and set(ptrs) <= held),
            }
            for path, leaf, ptrs in watched
        ],
        "warnings": warned,
        # other arguments the function donated instead (their positions)
        "others_donated": sorted(
            i for i, leaves in others.items() if any(leaf.is_deleted() for leaf in leaves)
        ),
    }


@check_kind("donation")
class DonationCheck(ScriptMeasureCheck):
    FIELDS = ScriptMeasureCheck.FIELDS + ("argument",)
    INSTRUMENT = instrument(measure_donation, setup=bind_tracing)
    doing = "called to see which buffers it donates"
    usual_cause = (
        "the function is jitted without donating the argument "
        "(jax.jit(f, donate_argnums=...) or donate_argnames=...), so XLA writes the "
        "results into new buffers while the old ones stay alive: twice the memory. "
        "Donate it, and return results of the same shapes and dtypes so XLA can "
        "write them in place"
    )

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.argument = r.get("argument", str)
        if self.argument not in self.arg_names:
            r.fail(
                f"'{self.argument}' is not an argument of the script's calls "
                f"({', '.join(self.arg_names)})",
                "argument",
            )

    def options(self, task: Task) -> dict[str, Any]:
        return {"argument": list(task.args).index(self.argument), "name": self.argument}

    def judge(self, grading: GradingView, calls: list[Measured]) -> CheckResult:
        details = {
            "argument": self.argument,
            "calls": [
                {
                    "call": c.label,
                    "leaves": c.mine["leaves"],
                    "warnings": c.mine["warnings"],
                    "reference_donated": sum(
                        1 for l in c.reference["leaves"] if l["deleted"] and l["reused"]
                    ),
                }
                for c in calls
            ],
        }
        for c in calls:
            leaves = c.mine["leaves"]
            kept = [l for l in leaves if not (l["deleted"] and l["reused"])]
            if kept:
                return self.failed(self.failure(c, leaves, kept), details=details)
        total = sum(len(c.mine["leaves"]) for c in calls)
        text = (
            f"every leaf of `{self.argument}` was donated to the results on all "
            f"{len(calls)} scripted calls ({plural(total, 'leaf', 'leaves')} "
            f"in all, zero-size ones included)"
        )
        other = sorted({w for c in calls for w in c.mine["warnings"]})
        if other:
            text += (
                f"; JAX warned about other donated buffers it could not use "
                f"({other[0]}): donating them is harmless but gains nothing"
            )
        return self.result(Status.PASSED, text, details=details)

    def failure(
        self, call: Measured, leaves: list[dict[str, Any]], kept: list[dict[str, Any]]
    ) -> str:
        ref = sum(1 for l in call.reference["leaves"] if l["deleted"] and l["reused"])
        lines = [
            f"after scripted call {call.index} ({call.label}), "
            f"{len(kept)} of the {len(leaves)} leaves of `{self.argument}` were not donated "
            f"(the reference donates {ref} of {len(call.reference['leaves'])}):"
        ]
        names = list(call.args)
        instead = [names[i] for i in call.mine.get("others_donated", []) if i < len(names)]
        for leaf in kept[:6]:
            what = f"{leaf['dtype']}{leaf['shape']}"
            if leaf["deleted"]:
                why = (
                    "deleted, but no result holds its buffer: deleting an input by hand "
                    "frees it only after new buffers were allocated for the results"
                )
            elif instead:
                why = (
                    f"still alive: the results went into the buffers of "
                    f"{' and '.join(f'`{n}`' for n in instead)}, donated instead"
                )
            elif call.mine["warnings"]:
                why = "still alive: JAX could not use its buffer for a result"
            else:
                why = "still alive: a new buffer was allocated for the result"
            lines.append(f"  {leaf['path']} {what}: {why}")
        if len(kept) > 6:
            lines.append(f"  ... and {len(kept) - 6} more")
        for warning in call.mine["warnings"][:2]:
            lines.append(f"JAX warned: {warning}")
        lines.append(f"Usual cause: {self.cause}.")
        return "\n".join(lines)
