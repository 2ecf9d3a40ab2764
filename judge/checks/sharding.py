"""``sharding``: the result lives on the devices as the reference's does.

A value check: a task that asks for rows split over a mesh is answered wrongly by an
array that every device holds whole.  Two layouts are the same when the same part of
the array lands on each device; how the learner spelled it (``P("data")`` or
``P("data", None)``, an Auto or an Explicit mesh, a NamedSharding or another kind) does
not matter.  An array with nothing in it lands nowhere: every empty layout is the same.

The layouts come with the results themselves: a worker with several devices reports,
for each jax array it sends, what landed on each device (``wire.check_layout``).
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..specs import Inputs
from ..values import kind_phrase, leaves
from ..verdicts import Status
from ..worker.wire import Leaf
from .base import CheckSpec, Phase, ResultAfterCalls, check_kind
from .outcome import call_text, counterexample, failed_call, replay

if TYPE_CHECKING:
    from ..bank import FieldReader
    from ..report import CheckResult
    from ..session import CallOutcome
    from .base import GradingView

SHOWN_DEVICES = 3


def replay_note(devices: int | None) -> str:
    """What a replay of a failure says above its call: the values are right, their
    places are not, and where to look (on as many devices as the task's workers had)."""
    where = (
        f"\non {devices} devices: on a CPU-only machine, run "
        f'jax.config.update("jax_num_cpu_devices", {devices}) before any jax operation'
        if devices and devices > 1
        else ""
    )
    return (
        "the sharding check compares where the result lands with the reference's: "
        "look at result.sharding, or [(s.device.id, s.index) for s in "
        "result.addressable_shards]" + where
    )


@check_kind("sharding")
class ShardingCheck(CheckSpec):
    phase = Phase.GENERATED
    FIELDS = CheckSpec.FIELDS + ("examples", "max_shapes")

    def __init__(self, r: FieldReader, scripts: dict[str, Any]) -> None:
        super().__init__(r, scripts)
        self.examples = int(r.number("examples", 6, low=1))
        self.max_shapes = int(r.number("max_shapes", 8, low=3))

    def pool_size(self) -> int:
        return self.max_shapes

    def planned_calls(self, grading: GradingView) -> int:
        return self.examples

    def inputs(self, grading: GradingView) -> list[dict[str, Any]]:
        """The pool's edges (empty, smallest, largest), then seeded draws from the pool."""
        task = grading.task
        inputs = Inputs(task.args, task.dims)
        pool = inputs.pool(grading.seed, self.max_shapes)
        calls = inputs.edge_cases(pool, grading.seed)[: self.examples]
        rng = np.random.default_rng([grading.seed, 23])
        while len(calls) < self.examples:
            calls.append(inputs.sample(pool[int(rng.integers(0, len(pool)))], rng))
        # an empty array lands nowhere, so says nothing about a layout: those go last
        return sorted(calls, key=_empty)

    def run(self, grading: GradingView) -> CheckResult | ResultAfterCalls:
        calls = self.inputs(grading)
        expected = grading.expected_all(calls)
        outcomes: list[CallOutcome] = []
        for args in calls:
            outcomes.append(grading.learner_call(args, "sharding"))
            if not outcomes[-1].ok:
                break
        return ResultAfterCalls(functools.partial(self.judge, grading, calls, expected, outcomes))

    def judge(
        self,
        grading: GradingView,
        calls: list[dict[str, Any]],
        expected: list[Any],
        outcomes: list[CallOutcome],
    ) -> CheckResult:
        for args, pending, out in zip(calls, expected, outcomes):
            if not out.ok:
                return failed_call(self, grading, args, out)
            problem = difference(out.value, pending.result())
            if problem:
                return self.failed(
                    f"{call_text(grading.task.entrypoint, args)}: {problem}",
                    counterexample=counterexample(args),
                    details={
                        "layout": _layouts(out.value),
                        "reference_layout": _layouts(pending.result()),
                        **replay(grading, args, replay_note(grading.task.devices)),
                    },
                )
        layouts = sorted(
            {
                describe(l.sharding, l.array.shape)
                for l in leaves(expected[0].result())
                if isinstance(l, Leaf) and l.sharding and l.array.size
            }
        )
        shown = f": {'; '.join(layouts)}" if layouts else ""
        return self.result(
            Status.PASSED,
            f"{len(outcomes)} results laid out on the devices like the reference's{shown}",
            details={"calls": len(outcomes)},
        )


# ---------------------------------------------------------------- layouts, compared and in words


def difference(actual: Any, expected: Any) -> str | None:
    """Why ``actual`` is laid out differently from ``expected``, leaf by leaf; None when
    every leaf the reference placed on the devices is placed the same way."""
    mine, theirs = list(leaves(actual)), list(leaves(expected))
    if len(mine) != len(theirs):
        return (
            f"the result has {len(mine)} leaves and the reference's {len(theirs)}: their "
            "layouts cannot be compared (the value checks say what differs)"
        )
    for i, (a, e) in enumerate(zip(mine, theirs)):
        if not (isinstance(e, Leaf) and e.sharding is not None):
            continue
        where = f" (leaf {i + 1} of {len(theirs)})" if len(theirs) > 1 else ""
        want = describe(e.sharding, e.array.shape)
        if not isinstance(a, Leaf) or a.sharding is None:
            got = (
                f"{kind_phrase(a)}, which lives on the host, not on the devices"
                if not isinstance(a, Leaf) or a.kind != "jax"
                else f"{kind_phrase(a)} whose layout the worker could not read"
            )
            return f"your result{where} is {got}; expected a jax array with {want}"
        if a.array.shape != e.array.shape:
            return (
                f"your result{where} has shape {tuple(a.array.shape)} and the reference's "
                f"{tuple(e.array.shape)}: their layouts cannot be compared"
            )
        if same_layout(a.sharding, e.sharding, e.array.shape):
            continue
        got = describe(a.sharding, a.array.shape)
        if got == want:  # the same split, other devices
            return (
                f"your result{where} has {got}, as expected, but its blocks are on other "
                f"devices: {_placement(a.sharding, a.array.shape)}; the reference's: "
                f"{_placement(e.sharding, e.array.shape)}"
            )
        return f"your result{where} has {got}; expected {want}"
    return None


def _empty(args: dict[str, Any]) -> bool:
    arrays = [l.array for l in leaves(args) if isinstance(l, Leaf)]
    return bool(arrays) and all(a.size == 0 for a in arrays if a.ndim)


def _blocks(layout: dict[str, Any]) -> dict[int, tuple[Any, ...]]:
    return {int(d): tuple(tuple(b) for b in blocks) for d, blocks in layout.get("shards", [])}


def same_layout(a: dict[str, Any], b: dict[str, Any], shape: tuple[int, ...]) -> bool:
    """The same part of the array on each device (an empty array lands nowhere)."""
    if math.prod(shape) == 0:
        return True
    return _blocks(a) == _blocks(b)


def _dim_word(k: int, rank: int) -> str:
    if rank == 1:
        return "elements"
    if rank == 2:
        return ("rows", "columns")[k]
    return f"dimension {k}"


def _range_words(k: int, rank: int, block: tuple[int, int]) -> str:
    """ "rows 0-7", "row 7", "no rows" """
    word = _dim_word(k, rank)
    start, stop = block
    if stop <= start:
        return f"no {word}"
    if stop - start == 1:
        one = word[:-1] if word.endswith("s") else f"index {start} of"
        return f"{one} {start}" if word.endswith("s") else f"{one} {word}"
    return f"{word} {start}-{stop - 1}"


def _over(axes: list[str], sizes: dict[str, Any]) -> str:
    names = ", ".join(f"`{a}`" for a in axes)
    return (
        f"over the {math.prod(sizes[a] for a in axes)} devices of "
        f"{'axis' if len(axes) == 1 else 'axes'} {names}"
    )


def describe(layout: dict[str, Any], shape: tuple[int, ...]) -> str:
    """The layout in words: "rows split over the 8 devices of axis `data`",
    "every device holding the whole array (replicated on 8 devices)", ..."""
    spec = layout.get("spec") or []
    mesh = layout.get("mesh") or {}
    sizes = dict(zip(mesh.get("axes", []), mesh.get("sizes", [])))
    if math.prod(shape) == 0:  # nothing landed anywhere: say what the spelling asks
        split = [
            f"{_dim_word(k, len(shape))} split {_over(axes, sizes)}"
            for k, axes in enumerate(spec)
            if axes and all(a in sizes for a in axes)
        ]
        return "an empty array" + (f" ({' and '.join(split)})" if split else "")
    blocks = _blocks(layout)
    if not blocks:
        return "no device holding any of it"
    whole = tuple((0, int(n)) for n in shape)
    if len(blocks) == 1:
        device = next(iter(blocks))
        return (
            f"one device (device {device}) holding the whole array"
            if blocks[device] == whole
            else f"only part of the array, on device {device}"
        )
    if all(b == whole for b in blocks.values()):
        return f"every device holding the whole array (replicated on {len(blocks)} devices)"
    parts, pieces = [], 1
    for k in range(len(shape)):
        distinct = {b[k] for b in blocks.values() if k < len(b)}
        if len(distinct) < 2:
            continue
        pieces *= len(distinct)
        axes = spec[k] if k < len(spec) else []
        over = (
            _over(axes, sizes)
            if axes and all(a in sizes for a in axes)
            else f"in {len(distinct)} blocks"
        )
        parts.append(f"{_dim_word(k, len(shape))} split {over}")
    copies = len(blocks) // max(pieces, 1)
    text = " and ".join(parts) if parts else f"the array on {len(blocks)} devices"
    return f"{text}, each block on {copies} devices" if copies > 1 else text


def _placement(layout: dict[str, Any], shape: tuple[int, ...]) -> str:
    """Which part each of the first few devices holds: "device 0 rows 0-7, device 1 ..."."""
    blocks = sorted(_blocks(layout).items())
    shown = []
    for device, block in blocks[:SHOWN_DEVICES]:
        split = [(k, b) for k, b in enumerate(block) if b != (0, int(shape[k]))]
        what = ", ".join(_range_words(k, len(shape), b) for k, b in split) or "all of it"
        shown.append(f"device {device} {what}")
    more = ", ..." if len(blocks) > SHOWN_DEVICES else ""
    return ", ".join(shown) + more


def _layouts(value: Any) -> list[Any]:
    return [l.sharding if isinstance(l, Leaf) else None for l in leaves(value)]
