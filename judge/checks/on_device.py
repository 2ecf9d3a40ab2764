"""The off-device rule of the kinds whose figure says how little the device did.

A figure of few traces, few flops, a small program or few bytes sent is only worth
something if the answer came from the device.  A function that pulls its inputs to the
host and computes there with NumPy (handing the result back with ``jnp.asarray``) runs
no program that reads them, and every such figure comes out small.  The sync count
sees the pull, but its state can be switched off by the learner's code for a moment
(tests/known_gaps); this rule rests on another record, the programs each call ran
(judge/worker/executions.py), so hiding the pull from one instrument does not pass the
other.

The rule: an input array that a device program of the reference's call read must be
read by a program the learner's call ran (the array itself, its buffers under another
object, a copy of its values sent to the device during the call, a copy laid out anew
by ``device_put``, a jitted closure's captured constant; see ``Executions.inputs_read``).
It is weighed call by call against the reference's record on the same input, so that
an input a right answer need not read (a size-0 array, a scalar taken as static, an
array handed back as it is) is never asked for.  A call with an empty input array is
not weighed at all: its answer may be settled from the shapes alone (``if n == 0:
return jnp.zeros((n, m))``, a product with an inner dimension of 0), and jit leaves an
argument its program does not use out of the program, so a right answer reads nothing
there while the reference's program still takes every input.

What it cannot tell: a token program that uses the whole input and does no work
(``x * 0`` added to a host result) reads it.  The record lives in the worker too,
checked after every call like the other instruments (judge/worker/integrity.py), so a
change made and undone within the call is not seen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..values import leaves
from ..worker.wire import Leaf


@dataclass(frozen=True)
class Unread:
    """What the rule found of one call: ``name``, the input no program of the
    learner's call read where the reference's did; None, the learner's record of what
    was read is missing (the check fails closed: it cannot be made)."""

    name: str | None


def unread_input(args: dict[str, Any], mine: Any, reference: Any) -> Unread | None:
    """The rule on one call: ``mine`` and ``reference``, the two calls' records of the
    programs they ran (a reply's ``measured["executed"]``).  None where every input the
    reference's programs read was read, or where the reference's record does not say
    (a memo written before it was kept: nothing to weigh against)."""
    ref_read = reference.get("inputs_read") if isinstance(reference, dict) else None
    if not isinstance(ref_read, list) or any(_empty(leaf) for leaf in leaves(args)):
        return None
    read = mine.get("inputs_read") if isinstance(mine, dict) else None
    if not isinstance(read, list) or len(read) != len(ref_read):
        return Unread(None)
    names = [
        name for name, value in args.items() for leaf in leaves(value) if isinstance(leaf, Leaf)
    ]
    for j, (r, theirs) in enumerate(zip(read, ref_read)):
        if theirs and r is False:
            return Unread(names[j] if j < len(names) else f"argument {j + 1}")
    return None


def _empty(leaf: Any) -> bool:
    return isinstance(leaf, Leaf) and int(getattr(leaf.array, "size", 1)) == 0


def off_device_message(where: str, label: str, found: Unread, figure: str) -> str:
    """``found`` in a learner's words: ``where`` the call is ("scripted call 2"),
    ``label`` its arguments, ``figure`` what the kind measures ("a figure of few
    flops")."""
    if found.name is None:
        return (
            f"at {where} ({label}), the judge could not record which of your inputs a "
            f"program on the device read (the record is missing), so {figure} cannot be "
            f"trusted and the check fails. Usual cause: code that changes jax's dispatch "
            f"or the judge's recorder."
        )
    return (
        f"at {where} ({label}), no program on the device read your input `{found.name}` "
        f"(the reference's did): the answer was computed on the host (NumPy or plain "
        f"Python, whatever ran on the device after), so {figure} measures nothing; this "
        f"task is about doing it with jax under jit"
    )
