"""Host callbacks: work a traced or compiled program hands back to Python on the host.

A measuring kind measures the program jax traced or XLA compiled.  A host callback
(``jax.pure_callback``, ``jax.experimental.io_callback``, ``jax.debug.callback``) is one
equation there and one custom call, whatever it computes: a double loop in NumPy inside
one reads as "1 equation" and no flops.  So every measuring kind that reads a program
(``jaxpr``, ``cost``, ``collectives``, ``residuals``) treats a callback the reference's
program does not make as what it is, work off the device, and fails, naming it and its
line; a task needs no field for it.  Counted per primitive: a learner may make as many
of each as the reference does (a task whose reference itself calls back is judged on
what the reference does).  In a compiled program, any other ``custom-call`` (an FFI
handler the learner registered, a library kernel) is counted the same way, per target:
its work is just as invisible to XLA's cost analysis.

``jax.debug.print`` is not counted against the learner (the decision, in
docs/authoring.md): it moves to the host only what it prints, its result is nothing the
program can use, and a learner's diagnostic print left in a right program should not
cost a verdict.  ``jax.debug.callback`` is counted: it runs any Python the learner
writes, on the device's values, at every run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# the jax primitives that call back into Python, as the learner's code spells them
SPELLED = {
    "pure_callback": "jax.pure_callback",
    "io_callback": "io_callback",
    "debug_callback": "jax.debug.callback",
    "debug_print": "jax.debug.print",
    "ffi_call": "jax.ffi.ffi_call",
}
# ffi_call (a handler registered through jax.ffi) is not Python, but it is work the
# traced program does not show either: counted, and worded as a custom call
COUNTED = ("pure_callback", "io_callback", "debug_callback", "ffi_call")
NOT_COUNTED = ("debug_print",)

USUAL_CAUSE = (
    "NumPy or Python code called from the traced function (jax.pure_callback, "
    "io_callback, jax.debug.callback): the work leaves the device, so the "
    "program looks small and cheap only because it does not hold the work; "
    "write it with jax.numpy and jax.lax"
)


@dataclass
class Made:
    """The callbacks of one primitive a program makes: how often, and the first line of
    the learner's file that makes one (None where the program does not say)."""

    primitive: str
    times: int
    line: int | None = None
    at_least: bool = False  # inside a loop whose trip count is not known

    def words(self) -> str:
        name = SPELLED.get(self.primitive, self.primitive)
        if self.primitive.startswith("custom_call:"):
            name = f"a custom call to `{self.primitive.split(':', 1)[1]}`, work XLA does not count"
        where = f" at line {self.line}" if self.line else ""
        often = (
            f" ({'at least ' if self.at_least else ''}{self.times} times per run)"
            if self.times > 1 or self.at_least
            else ""
        )
        return f"{name}{where}{often}"


def extra(mine: Sequence[Made], theirs: dict[str, int]) -> list[Made]:
    """The learner's callbacks of each primitive beyond the reference's count (any
    primitive but a debug print: one the judge does not know by name counts too)."""
    return [
        m for m in mine if m.primitive not in NOT_COUNTED and m.times > theirs.get(m.primitive, 0)
    ]


def failure(found: list[Made], theirs: dict[str, int], what: str, also: str = "") -> str:
    """The message: ``what`` is the measured thing ("your program", "your compiled
    program on x float32[4]") that calls back."""
    ref = ", ".join(f"{n} {SPELLED.get(p, p)}" for p, n in theirs.items() if n and p in COUNTED)
    if any(not m.primitive.startswith("custom_call:") and m.primitive != "ffi_call" for m in found):
        head, none, why = (
            "calls back into Python on the host",
            "no host callback",
            "Work done in a callback is off the device: the judge cannot "
            "measure it, and it is not what the lesson asks for.",
        )
        cause = USUAL_CAUSE
    else:
        head, none, why = (
            "hands work to code XLA cannot see into",
            "no such call",
            "The judge cannot measure what such a call does.",
        )
        cause = (
            "an operation compiled to a library call or a registered FFI handler "
            "(jax.ffi) where the reference uses plain jax.numpy and jax.lax; write it "
            "with those"
        )
    return (
        f"{what} {head}: {'; '.join(m.words() for m in found)}. The reference's makes "
        f"{ref or none}. {why}{also}\nUsual cause: {cause}."
    )


def with_lines(made: list[Made], lines: dict[str, Any]) -> list[Made]:
    """Fill in each primitive's line from ``callback_lines`` where the program gave none."""
    for m in made:
        if m.line is None and isinstance(lines.get(m.primitive), int):
            m.line = lines[m.primitive]
    return made


def by_primitive(made: Sequence[Made]) -> dict[str, int]:
    out: dict[str, int] = {}
    for m in made:
        out[m.primitive] = out.get(m.primitive, 0) + m.times
    return out


def callback_lines(bound, fn, arrays, source_file, names):  # type: ignore[no-untyped-def]  # shipped
    """Worker side (an instrument's helper): the first line of the learner's file that
    makes each host callback primitive in ``names``, from the traced program's
    tracebacks.  The compiled program keeps only the innermost frame of each operation,
    and that can be a wrapper around the jax function (the worker's own sync counter),
    so the line is read where the whole traceback is kept.  ``bound`` holds
    ``make_jaxpr``, ``jaxprs_in_params`` and ``realpath``."""
    if not source_file:
        return {}
    realpath = bound["realpath"]
    mine = realpath(source_file)
    closed = bound["make_jaxpr"](fn)(*arrays)
    found, ours = {}, {}

    def walk(jaxpr, depth=0):  # type: ignore[no-untyped-def]  # shipped
        for eqn in jaxpr.eqns:
            name = str(eqn.primitive.name)
            if name in names and name not in found:
                try:
                    for frame in eqn.source_info.traceback.frames:
                        if frame.file_name not in ours:
                            ours[frame.file_name] = realpath(frame.file_name) == mine
                        if ours[frame.file_name]:
                            found[name] = int(frame.line_num)
                            break
                except Exception:
                    pass
            if depth < 100:
                for sub in bound["jaxprs_in_params"](eqn.params):
                    walk(sub, depth + 1)  # type: ignore[no-untyped-call]

    walk(closed.jaxpr)  # type: ignore[no-untyped-call]
    return found
