"""``memory``: the bytes the compiled program holds at once (its arguments, its outputs
and its temporaries, from ``memory_analysis()``), on every call of a script, against
the reference's on the same call: at most ``factor`` times as many, plus ``slack``
bytes.  A function that builds a large intermediate where the reference needs none
(a broadcast outer product, a tiled copy that must be sorted) is inefficient.

Nothing of the judge's but its plug-in contract (judge.checks.base) is used."""

from __future__ import annotations

from html import escape

from judge.checks.base import ScriptMeasureCheck, check_kind, instrument
from judge.verdicts import Status


def bind_compile():
    """Worker side, before the learner's file: jax's jit, whatever the file replaces."""
    import jax

    return {"jit": jax.jit}


def measure_memory(ctx, args, kwargs, options):
    """Worker side: compile the call as a function of its array leaves and read what
    the compiled program holds at once; the value it computes is kept (the judge
    compares it with the reference's)."""
    fn, arrays = ctx.traceable(args, kwargs)
    compiled = ctx.bound["jit"](fn).lower(*arrays).compile()
    stats = compiled.memory_analysis()
    if stats is None:
        ctx.unmeasurable("this backend gives no memory analysis")
    ctx.keep(compiled(*arrays))
    held = (
        stats.argument_size_in_bytes
        + stats.output_size_in_bytes
        + stats.temp_size_in_bytes
        - stats.alias_size_in_bytes
    )
    return {"bytes": int(held), "temp": int(stats.temp_size_in_bytes)}


@check_kind("memory")
class MemoryCheck(ScriptMeasureCheck):
    FIELDS = ScriptMeasureCheck.FIELDS + ("factor", "slack")
    INSTRUMENT = instrument(measure_memory, setup=bind_compile)
    doing = "while the judge compiled it and read its memory"
    usual_cause = (
        "a large intermediate array (an outer product, a tiled copy) where the "
        "computation needs none"
    )
    CLASS_SECTION = "Memory: failed checks"

    def __init__(self, r, scripts):
        super().__init__(r, scripts)
        self.factor = float(r.number("factor", 2, low=1))
        self.slack = int(r.number("slack", 1024, low=0))

    def judge(self, grading, calls):
        mine = [c.mine["bytes"] for c in calls]
        theirs = [c.reference["bytes"] for c in calls]
        details = {"bytes": mine, "reference_bytes": theirs, "calls": [c.label for c in calls]}
        over = [
            (c, m, t) for c, m, t in zip(calls, mine, theirs) if m > self.factor * t + self.slack
        ]
        if over:
            c, m, t = over[0]
            return self.failed(
                f"scripted call {c.index} ({c.label}): your compiled program "
                f"holds {m} bytes at once, the reference's {t} (at most "
                f"{self.factor:g} times as many, plus {self.slack} bytes, "
                f"expected); usually: {self.cause}",
                details=details,
            )
        return self.result(
            Status.PASSED,
            f"at most {max(mine, default=0)} bytes held at once "
            f"over {len(calls)} scripted calls (the reference: "
            f"{max(theirs, default=0)})",
            details=details,
        )

    @classmethod
    def html(cls, result) -> str:
        """Bars: the learner's bytes and the reference's, per scripted call."""
        mine, theirs = result.details.get("bytes"), result.details.get("reference_bytes")
        if not mine or not theirs:
            return ""
        top = max(mine + theirs) or 1
        rows = []
        for i, (m, t) in enumerate(zip(mine, theirs)):
            y = 8 + i * 30
            rows.append(
                f'<g class="memory-call" data-call="{i + 1}" data-bytes="{int(m)}" '
                f'data-reference-bytes="{int(t)}">'
                f'<rect x="60" y="{y}" width="{300 * m / top:.1f}" height="10" '
                f'fill="#ef8f00"/><rect x="60" y="{y + 12}" '
                f'width="{300 * t / top:.1f}" height="10" fill="#1565c0"/>'
                f'<text x="0" y="{y + 16}" font-size="12">call {i + 1}</text></g>'
            )
        height = 8 + 30 * len(mine)
        return (
            f'<figure class="memory"><svg xmlns="http://www.w3.org/2000/svg" '
            f'width="380" height="{height}" role="img" aria-label="bytes held">'
            + "".join(rows)
            + "</svg><figcaption>"
            + escape("bytes held at once per scripted call (orange: yours, blue: the reference's)")
            + "</figcaption></figure>"
        )

    @classmethod
    def class_key(cls, result):
        """A failure drawn once per distinct set of figures."""
        if result.status == Status.FAILED and result.details.get("bytes"):
            return tuple(result.details["bytes"])
        return None
