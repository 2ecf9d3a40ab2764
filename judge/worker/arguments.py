"""A call's arguments: the wire's values decoded into what the learner's function
receives (NumPy or jax arrays, keys, arrays placed on a mesh), and, after the call,
whether the function changed any of them in place."""

from __future__ import annotations


class _LearnersFault(Exception):
    """The learner's code failed outside their function (``error``: the protocol's dict)."""

    def __init__(self, error: dict):
        super().__init__(error.get("message", ""))
        self.error = error


def _to_argument(value, devices=None):
    """Decoded wire values -> what the learner's function receives (``devices``: the
    worker's ``devices.Devices``, for arguments placed on a mesh)."""
    from .wire import Leaf

    if isinstance(value, Leaf):
        return _leaf_value(value, devices)
    if type(value) is list:
        return [_to_argument(v, devices) for v in value]
    if type(value) is tuple:
        return tuple(_to_argument(v, devices) for v in value)
    if type(value) is dict:
        return {k: _to_argument(v, devices) for k, v in value.items()}
    return value


def _leaf_value(leaf, devices=None):
    if leaf.kind == "npscalar":
        return leaf.array[()]
    if leaf.kind == "numpy":
        return leaf.array
    # from a Python scalar: weakly typed
    value = leaf.array.item() if leaf.weak and leaf.array.ndim == 0 else leaf.array
    if leaf.sharding is not None:
        if devices is None:
            raise RuntimeError("an argument placed on a mesh, in a worker started without devices")
        return devices.place(value, leaf.sharding)
    import jax

    if leaf.kind == "key":  # what jax.random.key(seed) makes, from its raw data
        return jax.random.wrap_key_data(jax.device_put(leaf.array), impl="threefry2x32")

    # device_put, not jnp.asarray: the same array (dtype, weak type, placement), but
    # asarray compiles a conversion for every new shape, on the learner's clock
    return jax.device_put(value)


class _Arguments:
    """A call's arguments as the learner's function receives them, and what they were
    before the call: JAX code is pure, so a function that changes its caller's NumPy
    array or list in place (``x -= x[0]``) gives a wrong answer, even when the value it
    returns is right."""

    def __init__(self, args: list, kwargs: dict, names: list[str]):
        self.args, self.kwargs = args, kwargs
        self.names = [
            names[i] if i < len(names) else f"argument {i + 1}" for i in range(len(self.args))
        ]
        self._before = [_snapshot(v) for v in self.args] + [
            _snapshot(v) for v in self.kwargs.values()
        ]

    def changed(self) -> str | None:
        """How the call changed an argument in place, in a learner's words; None if not."""
        values = self.args + list(self.kwargs.values())
        names = self.names + list(self.kwargs)
        for name, value, before in zip(names, values, self._before):
            what = _change(value, before, name)
            if what:
                return (
                    f"your function changed its argument {what}. The caller's data is "
                    f"corrupted even when the value returned is right: JAX code is pure, "
                    f"so compute new values (`x = x - x[0]`, not `x -= x[0]`; "
                    f"`sorted(x)`, not `x.sort()`)"
                )
        return None


def _snapshot(value, depth: int = 0):
    """What a mutable argument holds now (None for what cannot change in place)."""
    import numpy as np

    if depth > 50:
        return None
    if isinstance(value, np.ndarray):
        return ("array", value.copy())
    if type(value) in (list, tuple, dict):
        items = list(value.items()) if type(value) is dict else list(enumerate(value))
        return (type(value), [(k, v, _snapshot(v, depth + 1)) for k, v in items])
    return None


def _same_item(a, b) -> bool:
    if isinstance(b, (bool, int, float, complex, str, type(None))):
        return type(a) is type(b) and (a == b or (a != a and b != b))
    return a is b


def _change(value, before, path: str) -> str | None:
    import numpy as np

    if before is None:
        return None
    if before[0] == "array":
        old = before[1]
        if value.shape != old.shape or value.dtype != old.dtype:
            return (
                f"`{path}` (a NumPy array) in place: it was {old.dtype}{list(old.shape)} "
                f"before the call and {value.dtype}{list(value.shape)} after"
            )
        same = (value == old) | ((value != value) & (old != old))
        if not np.all(same):
            idx = tuple(int(i) for i in np.argwhere(~np.asarray(same))[0])
            where = f"[{', '.join(map(str, idx))}]" if idx else ""
            return (
                f"`{path}` (a NumPy array) in place: {path}{where} was {old[idx].item()!r} "
                f"before the call and {value[idx].item()!r} after"
            )
        return None
    kind, items = before
    noun = {list: "a list", tuple: "a tuple", dict: "a dict"}[kind]
    if kind is dict:
        if list(value.keys()) != [k for k, _, _ in items]:
            return f"`{path}` ({noun}) in place: its keys were {[k for k, _, _ in items]} and are {list(value)} after"
    elif len(value) != len(items):
        return f"`{path}` ({noun}) in place: it had {len(items)} items and has {len(value)} after"
    for key, item, sub in items:
        now = value[key]
        inner = f"{path}[{key!r}]"
        if not _same_item(now, item):
            if isinstance(item, (bool, int, float, complex, str, type(None))):
                return f"`{path}` ({noun}) in place: {inner} was {item!r} before the call and {now!r} after"
            return f"`{path}` ({noun}) in place: {inner} was replaced"
        what = _change(now, sub, inner)
        if what:
            return what
    return None
