"""Inside the worker of a task with ``devices: N``: N devices, arguments placed on a mesh,
and where each part of a result landed.

``Devices`` is made while the worker warms up, before jax's first operation and before
the learner's file runs: it gives the CPU backend N devices and binds the jax functions
it uses then, so what the learner's code replaces later (``jax.device_put``, the
``sharding`` property of arrays, ...) cannot misplace an argument or misreport a
result.  A worker of a task without ``devices`` never imports this module.

Why ``jax_num_cpu_devices`` and not ``XLA_FLAGS=--xla_force_host_platform_device_count``
(both work when set before the first operation; measured on jax 0.10.2): the config
raises when it comes too late, where the flag is silently ignored; it wins when both are
set; it is one typed setting, not a string shared with every other XLA flag (in which
an unknown flag aborts the process).  Neither touches an accelerator: where the default
platform has N devices of its own, the tasks' meshes use those.
"""

from __future__ import annotations

AXIS_TYPE_NAMES = ("explicit", "auto", "manual")


class DeviceCountError(RuntimeError):
    """The platform has another number of devices than the task asks for."""


class Devices:
    def __init__(self, jax, count: int):
        import numpy as np

        jax.config.update("jax_num_cpu_devices", count)  # before any operation
        found = jax.devices()
        self.platform = found[0].platform
        if len(found) != count:
            raise DeviceCountError(
                f"the task needs {count} devices and the {self.platform} platform here has "
                f"{len(found)} (the CPU gets as many as a task asks for; an accelerator "
                f"platform must have exactly that many)"
            )
        self.count = count
        self._devices = list(found)
        self._device_put = jax.device_put
        self._make_mesh = jax.make_mesh
        self._named_sharding = jax.sharding.NamedSharding
        self._partition_spec = jax.sharding.PartitionSpec
        self._indices_map = jax.sharding.Sharding.devices_indices_map
        types = jax.sharding.AxisType
        self._axis_types = {"explicit": types.Explicit, "auto": types.Auto, "manual": types.Manual}
        self._array_type = type(jax.device_put(np.zeros((), np.float32)))
        self._sharding_of = self._array_type.__dict__["sharding"].__get__
        self._meshes: dict = {}
        self._fingerprint = _fingerprint()

    def tampered(self) -> list[str]:
        """The jax functions that place and describe arrays which the learner's code
        replaced since the worker started (empty when none was): a placement that fails
        with one of them changed failed because of it."""
        now = _fingerprint()
        return sorted(name for name, ident in self._fingerprint.items() if now.get(name) != ident)

    # -- arguments

    def place(self, value, layout: dict):
        """``value`` (a NumPy array or a Python scalar) on the layout's mesh, split as
        its spec says."""
        mesh = self._mesh(layout["mesh"])
        spec = self._partition_spec(
            *[
                tuple(axes) if len(axes) > 1 else (axes[0] if axes else None)
                for axes in layout.get("spec", [])
            ]
        )
        return self._device_put(value, self._named_sharding(mesh, spec))

    def _mesh(self, desc: dict):
        key = (tuple(desc["axes"]), tuple(desc["sizes"]), tuple(desc["types"]))
        if key not in self._meshes:
            size = 1
            for s in desc["sizes"]:
                size *= s
            if size > self.count:
                raise DeviceCountError(f"a mesh of {size} devices in a worker with {self.count}")
            self._meshes[key] = self._make_mesh(
                key[1],
                key[0],
                axis_types=tuple(self._axis_types[t] for t in key[2]),
                devices=self._devices[:size],
            )
        return self._meshes[key]

    # -- results

    def layout(self, value) -> dict | None:
        """What landed on each device (and, for a NamedSharding, its mesh and spec): a
        layout as ``wire.check_layout`` reads it; None for anything but a jax array."""
        if type(value) is not self._array_type:
            return None
        sharding = self._sharding_of(value)
        shape = tuple(value.shape)
        shards = []
        for device, index in self._indices_map(sharding, shape).items():
            shards.append([int(device.id), [list(_bounds(i, n)) for i, n in zip(index, shape)]])
        out = {"shards": sorted(shards), "platform": self.platform}
        if isinstance(sharding, self._named_sharding):
            mesh = sharding.mesh
            out["mesh"] = {
                "axes": [str(a) for a in mesh.axis_names],
                "sizes": [int(s) for s in mesh.axis_sizes],
                "types": [_type_name(t) for t in mesh.axis_types],
            }
            spec = [_axes(entry) for entry in tuple(sharding.spec)]
            out["spec"] = spec + [[] for _ in range(len(shape) - len(spec))]
        return out


def _bounds(index, size: int) -> tuple[int, int]:
    start, stop, _ = index.indices(size) if isinstance(index, slice) else (index, index + 1, 1)
    return int(start), int(max(start, stop))


def _axes(entry) -> list[str]:
    if entry is None:
        return []
    if isinstance(entry, (tuple, list)):
        return [str(a) for a in entry]
    return [str(entry)]


def _type_name(axis_type) -> str:
    name = str(getattr(axis_type, "name", axis_type)).lower()
    return name if name in AXIS_TYPE_NAMES else "auto"


# the modules whose functions placing an array on a mesh and reading its layout go through
_PLACEMENT_MODULES = (
    "jax",
    "jax.sharding",
    "jax._src.api",
    "jax._src.array",
    "jax._src.dispatch",
    "jax._src.sharding",
    "jax._src.sharding_impls",
    "jax._src.named_sharding",
    "jax._src.mesh",
    "jax._src.partition_spec",
    "jax._src.pjit",
    "jax._src.interpreters.pxla",
    "jax._src.xla_bridge",
)


def _fingerprint() -> dict[str, int]:
    """id() of every function and class in those modules, and of what their classes
    define: what a learner replacing any of them changes."""
    import sys

    out = {}
    for module_name in _PLACEMENT_MODULES:
        module = sys.modules.get(module_name)
        for name, value in list(vars(module).items()) if module is not None else []:
            if callable(value):
                out[f"{module_name}.{name}"] = id(value)
            if isinstance(value, type) and value.__module__.startswith(("jax", "jaxlib")):
                for attr, member in list(vars(value).items()):
                    out[f"{module_name}.{name}.{attr}"] = id(member)
    return out
