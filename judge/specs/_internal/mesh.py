"""Arguments placed on a device mesh: the task's ``mesh``, a spec's ``partition``
bound to it, and placing a scripted call's values."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from ...worker.wire import Leaf
from .core import Spec
from .shapes import Dim

# ---------------------------------------------------------------- arguments on a mesh


@dataclass(frozen=True)
class MeshSpec:
    """The mesh a task's sharded arguments are placed on: ``{axes: {data: 8},
    axis_types: explicit}`` (``axis_types`` one of explicit, auto, manual for every
    axis, or a mapping per axis; explicit is what jax.make_mesh makes by default)."""

    axes: tuple[str, ...]
    sizes: tuple[int, ...]
    types: tuple[str, ...]

    FIELDS = ("axes", "axis_types", "doc")
    TYPES = ("explicit", "auto", "manual")

    @classmethod
    def parse(cls, r, devices: int | None) -> "MeshSpec":
        import re

        r.only(cls.FIELDS)
        if not devices:
            r.fail("a mesh needs the task's `devices: N`")
        axes_r = r.child("axes")
        if not axes_r.data:
            r.fail("needs at least one axis, as {name: size}", "axes")
        axes, sizes = [], []
        for name, size in axes_r.data.items():
            if not (isinstance(name, str) and re.match(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$", name)):
                axes_r.fail(f"an axis name is an identifier, got {name!r}")
            if not (isinstance(size, int) and not isinstance(size, bool) and size >= 1):
                axes_r.fail("an axis size is a whole number of devices, at least 1", str(name))
            axes.append(name)
            sizes.append(size)
        total = math.prod(sizes)
        if total > devices:
            r.fail(f"the axes need {total} devices and the task has {devices}", "axes")
        raw = r.get("axis_types", (str, dict), "explicit")
        kinds = raw if isinstance(raw, dict) else {a: raw for a in axes}
        for a in kinds:
            if a not in axes:
                r.fail(f"'{a}' is not an axis of the mesh", "axis_types")
        types = [kinds.get(a, "explicit") for a in axes]
        for t in types:
            if t not in cls.TYPES:
                r.fail(f"an axis type is one of {', '.join(cls.TYPES)}, got {t!r}", "axis_types")
        return cls(tuple(axes), tuple(sizes), tuple(types))

    def size_of(self, axes: list[str]) -> int:
        return math.prod(self.sizes[self.axes.index(a)] for a in axes)

    def describe(self) -> str:
        shape = ", ".join(f"{a}: {n}" for a, n in zip(self.axes, self.sizes))
        return f"{{{shape}}} ({'/'.join(dict.fromkeys(self.types))} axes)"


def _partition(r) -> list[list[str]] | None:
    """``sharding: [data, null]``: per dimension, the mesh axes it is split over (a name,
    a list of names, or null for none); [] places a scalar on every device."""
    raw = r.get("sharding", list, None)
    if raw is None:
        return None
    out: list[list[str]] = []
    for entry in raw:
        if entry is None:
            out.append([])
        elif isinstance(entry, str):
            out.append([entry])
        elif isinstance(entry, list) and entry and all(isinstance(a, str) for a in entry):
            out.append(list(entry))
        else:
            r.fail(
                f"each entry is an axis name, a list of names or null, got {entry!r}", "sharding"
            )
    return out


def _bind_partition(partition, shape, kind, mesh, r, steps) -> dict:
    if mesh is None:
        r.fail("a sharded argument needs the task's `mesh`", "sharding")
    if kind != "jax":
        r.fail("only a JAX array can be placed on a mesh (kind: jax)", "sharding")
    if len(partition) != len(shape):
        r.fail(f"gives {len(partition)} entries for an argument of rank {len(shape)}", "sharding")
    used = [a for axes in partition for a in axes]
    for a in used:
        if a not in mesh.axes:
            r.fail(f"'{a}' is not an axis of the mesh ({', '.join(mesh.axes)})", "sharding")
    if len(set(used)) != len(used):
        r.fail("an axis can split only one dimension", "sharding")
    for axes, dim in zip(partition, shape):
        factor = mesh.size_of(axes) if axes else 1
        if isinstance(dim, str):
            steps[dim] = math.lcm(steps.get(dim, 1), factor)
        elif dim % factor:
            r.fail(f"a dimension of {dim} cannot be split over {factor} devices", "sharding")
    return {
        "mesh": {"axes": list(mesh.axes), "sizes": list(mesh.sizes), "types": list(mesh.types)},
        "spec": [list(a) for a in partition],
    }


def _placed(value, layout, fail):
    if layout is None:
        return value
    mesh = layout["mesh"]
    sizes = dict(zip(mesh["axes"], mesh["sizes"]))
    # a Leaf ($array), or a $random placeholder (literals.RandomArray, a dataclass with
    # a shape and a sharding: not imported, literals imports this module)
    drawn = dataclasses.is_dataclass(value) and hasattr(value, "sharding")
    shape = value.shape if drawn else value.array.shape if isinstance(value, Leaf) else None
    if shape is None:
        fail("a sharded argument takes an array ($array or $random)")
    for axes, n in zip(layout["spec"], shape):
        factor = math.prod(sizes[a] for a in axes)
        if n % factor:
            fail(
                f"a dimension of {n} cannot be split over {factor} devices (axes {', '.join(axes)})"
            )
    if drawn:
        return dataclasses.replace(value, kind="jax", sharding=layout)
    return Leaf(value.array, "jax", value.weak, layout)


def _placement_words(layout) -> str:
    if layout is None:
        return ""
    split = [
        f"dimension {i} over {', '.join(axes)}" for i, axes in enumerate(layout["spec"]) if axes
    ]
    return ", " + ("split: " + "; ".join(split) if split else "on every device of the mesh")


def place_on_mesh(args: dict[str, Spec], dims: dict[str, Dim], mesh, readers) -> dict[str, Dim]:
    """Check every argument's ``sharding`` against the mesh; the dims with the multiples
    the sharded ones must be (a dimension split over 8 devices takes 0, 8, 16, ...)."""
    steps: dict[str, int] = {}
    for name, spec in args.items():
        spec.bind_mesh(mesh, readers(name), steps)
    out = dict(dims)
    for name, step in steps.items():
        if step > 1 and name in dims:
            d = dims[name]
            if d.lo % step or d.hi % step:
                readers(None).fail(
                    f"dimension '{name}' is split over {step} devices, so its "
                    f"bounds must be multiples of {step}, got [{d.lo}, {d.hi}]",
                    f"dims.{name}",
                )
            out[name] = dataclasses.replace(d, step=step)
    return out


def place_call(args: dict[str, Spec], values: dict[str, Any], fail) -> dict[str, Any]:
    """A literal call's arguments, each placed as its spec says."""
    return {k: args[k].place(v, fail) if k in args else v for k, v in values.items()}
