"""Specs made of other specs: ``list``, ``tuple``, ``dict`` and ``one_of``."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...values import numeric_leaves
from .core import MAX_DIM, Spec, _prefixed, _reorder, _spread_enough, parse_spec, spec_type, st


class _Container(Spec):
    """A container's numbers are data as its items say; ``data`` on the container itself
    is not read."""

    def _children(self) -> list[Spec]:
        raise NotImplementedError

    def _parts(self, value) -> list[tuple[Spec, Any]] | None:
        """(item spec, item value) pairs, or None when ``value`` is not shaped like this
        spec (an example written another way): then all its numbers count."""
        raise NotImplementedError

    def data_leaves(self, value) -> list[np.ndarray]:
        parts = self._parts(value)
        if parts is None:
            return numeric_leaves(value)
        return [a for spec, v in parts for a in spec.data_leaves(v)]

    def _label(self, child: Spec) -> str:
        """How a child's edges are named inside this container's."""
        raise NotImplementedError

    def edges(self):
        return [e for c in self._children() for e in _prefixed(self._label(c), c.edges())]

    def reached(self, value):
        return {
            e for c, v in self._parts(value) or [] for e in _prefixed(self._label(c), c.reached(v))
        }

    def variables(self):
        return [v for c in self._children() for v in c.variables()]

    def bind_mesh(self, mesh, r, steps):
        for c in self._children():
            c.bind_mesh(mesh, r, steps)

    def dims_used(self):
        return (
            set().union(*(c.dims_used() for c in self._children())) if self._children() else set()
        )


@spec_type("list")
class ListSpec(_Container):
    """A Python list of ``items``, its length an int or a dimension name."""

    FIELDS = Spec.FIELDS + ("items", "length", "min_spread")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.min_spread = float(r.number("min_spread", 0.0, low=0))
        self.items = parse_spec(r.child("items"), dims, f"{name}[]")
        self.length = r.get("length", (int, str))
        if isinstance(self.length, str) and self.length not in dims:
            r.fail(f"'{self.length}' is not declared in dims", "length")
        if isinstance(self.length, int) and not 0 <= self.length <= MAX_DIM:
            r.fail(f"must be between 0 and {MAX_DIM}, got {self.length}", "length")
        self.dims = dims

    def _children(self):
        return [self.items]

    def matches(self, value) -> bool:
        return isinstance(value, list) and all(self.items.matches(v) for v in value)

    def _parts(self, value):
        return [(self.items, v) for v in value] if isinstance(value, (list, tuple)) else None

    def _label(self, child):
        return "an item"

    def _length_edges(self) -> list[int]:
        if isinstance(self.length, int):
            return []
        dim = self.dims[self.length]
        return list(dict.fromkeys((dim.lo, dim.hi)))

    def edges(self):
        return [f"length {n}" for n in self._length_edges()] + super().edges()

    def reached(self, value):
        return (
            ({f"length {len(value)}"} | super().reached(value))
            if isinstance(value, list)
            else set()
        )

    def dims_used(self):
        return super().dims_used() | ({self.length} if isinstance(self.length, str) else set())

    def _n(self, assign):
        return assign[self.length] if isinstance(self.length, str) else self.length

    def strategy(self, assign, drawn):
        lists = st.lists(
            self.items.strategy(assign, drawn), min_size=self._n(assign), max_size=self._n(assign)
        )
        if self.min_spread:
            lists = lists.filter(functools.partial(_spread_enough, spread=self.min_spread))
        return lists

    def sample(self, assign, drawn, rng, edge=None):
        n = self._n(assign)
        # the first item at the low end and the last at the high end, like an array's
        out = [
            self.items.sample(
                assign,
                drawn,
                rng,
                edge and edge.at("low" if i == 0 and n > 1 else "high" if i == n - 1 else None),
            )
            for i in range(n)
        ]
        if self.min_spread and len(out) >= 2 and not _spread_enough(out, self.min_spread):
            out[0], out[-1] = out[0] - self.min_spread, out[-1] + self.min_spread
        return out

    def place(self, value, fail):
        return [self.items.place(v, fail) for v in value] if isinstance(value, list) else value

    def describe(self):
        return f"list of {self.length} x {self.items.describe()}"


@spec_type("tuple")
class TupleSpec(_Container):
    """A Python tuple (or, with ``as: list``, a list) of fixed items."""

    FIELDS = Spec.FIELDS + ("items", "as")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        raw = r.get("items", list)
        self.items = [
            parse_spec(r.reader_at(f"{r.path}.items[{i}]", it), dims, f"{name}[{i}]")
            for i, it in enumerate(raw)
        ]
        self.container = tuple if r.get("as", str, "tuple") == "tuple" else list

    def _children(self):
        return self.items

    def matches(self, value) -> bool:
        return (
            isinstance(value, self.container)
            and len(value) == len(self.items)
            and all(s.matches(v) for s, v in zip(self.items, value))
        )

    def _parts(self, value):
        # an example may write a tuple as a list: its items still pair by position
        fits = isinstance(value, (tuple, list)) and len(value) == len(self.items)
        return list(zip(self.items, value)) if fits else None

    def _label(self, child):
        return f"item {self.items.index(child)}"

    def strategy(self, assign, drawn):
        return st.tuples(*(i.strategy(assign, drawn) for i in self.items)).map(self.container)

    def sample(self, assign, drawn, rng, edge=None):
        return self.container(i.sample(assign, drawn, rng, edge) for i in self.items)

    def place(self, value, fail):
        if not isinstance(value, (list, tuple)) or len(value) != len(self.items):
            return value
        return type(value)(i.place(v, fail) for i, v in zip(self.items, value))

    def describe(self):
        name = "tuple" if self.container is tuple else "list"
        return f"{name}({', '.join(i.describe() for i in self.items)})"


@spec_type("dict")
class DictSpec(_Container):
    """A dict with fixed string keys; ``key_orders: true`` also varies the insertion order."""

    FIELDS = Spec.FIELDS + ("fields", "key_orders")

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        fr = r.child("fields")
        self.fields = {str(k): parse_spec(fr.child(str(k)), dims, f"{name}.{k}") for k in fr.data}
        self.key_orders = r.get("key_orders", bool, False)

    def _children(self):
        return list(self.fields.values())

    def matches(self, value) -> bool:
        return (
            isinstance(value, dict)
            and set(value) == set(self.fields)
            and all(self.fields[k].matches(v) for k, v in value.items())
        )

    def _parts(self, value):
        fits = isinstance(value, dict) and set(value) == set(self.fields)
        return [(self.fields[k], v) for k, v in value.items()] if fits else None

    def _label(self, child):
        return f"key {next(k for k, s in self.fields.items() if s is child)!r}"

    def edges(self):
        return super().edges() + (
            ["keys in another order"] if self.key_orders and len(self.fields) > 1 else []
        )

    def reached(self, value):
        found = super().reached(value)
        if self.matches(value) and list(value) != list(self.fields):
            found.add("keys in another order")
        return found

    def strategy(self, assign, drawn):
        base = st.fixed_dictionaries({k: s.strategy(assign, drawn) for k, s in self.fields.items()})
        if not self.key_orders:
            return base
        return st.tuples(base, st.permutations(list(self.fields))).map(_reorder)

    def sample(self, assign, drawn, rng, edge=None):
        out = {k: s.sample(assign, drawn, rng, edge) for k, s in self.fields.items()}
        if self.key_orders and edge is not None and edge.end == "high":
            out = dict(reversed(out.items()))
        return out

    def place(self, value, fail):
        if not isinstance(value, dict):
            return value
        return {
            k: self.fields[k].place(v, fail) if k in self.fields else v for k, v in value.items()
        }

    def describe(self):
        return "dict(" + ", ".join(f"{k}: {s.describe()}" for k, s in self.fields.items()) + ")"


@spec_type("one_of")
class OneOfSpec(_Container):
    """Any one of ``options`` (e.g. a Python float, a NumPy scalar or a JAX scalar)."""

    FIELDS = Spec.FIELDS + ("options",)

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        raw = r.get("options", list)
        if not raw:
            r.fail("needs at least one option", "options")
        self.options = [
            parse_spec(r.reader_at(f"{r.path}.options[{i}]", o), dims, name)
            for i, o in enumerate(raw)
        ]

    def _children(self):
        return self.options

    def matches(self, value) -> bool:
        return any(o.matches(value) for o in self.options)

    def _parts(self, value):
        option = next((o for o in self.options if o.matches(value)), None)
        return [(option, value)] if option is not None else None

    def _label(self, child):
        return f"option {self.options.index(child) + 1} ({child.describe()})"

    def edges(self):
        # each option drawn, and the argument's edges over all options together (an
        # empty array of some option, both signs in some option, ...)
        return [self._label(o) for o in self.options] + list(
            dict.fromkeys(e for o in self.options for e in o.edges())
        )

    def reached(self, value):
        found = set()
        for option, _ in self._parts(value) or []:
            found |= {self._label(option)} | option.reached(value)
        return found

    def strategy(self, assign, drawn):
        return st.one_of(*(o.strategy(assign, drawn) for o in self.options))

    def sample(self, assign, drawn, rng, edge=None):
        pick = edge.option % len(self.options) if edge else int(rng.integers(0, len(self.options)))
        return self.options[pick].sample(assign, drawn, rng, edge)

    def describe(self):
        return " or ".join(o.describe() for o in self.options)
