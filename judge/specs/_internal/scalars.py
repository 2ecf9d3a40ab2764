"""Python scalars: ``float``, ``int`` and ``bool``."""

from __future__ import annotations

import numpy as np

from .core import Spec, _bound_dim, _range, _resolve, _value_edges, _values_reached, spec_type, st


@spec_type("float")
class FloatSpec(Spec):
    """A Python float."""

    FIELDS = Spec.FIELDS + ("values",)

    def matches(self, value) -> bool:
        return isinstance(value, float)

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.values = _range(r, "values", [-10.0, 10.0], dims)

    def strategy(self, assign, drawn):
        lo, hi = (_resolve(b, assign) for b in self.values)
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False, allow_subnormal=False)

    def sample(self, assign, drawn, rng, edge=None):
        lo, hi = (_resolve(b, assign) for b in self.values)
        if edge is not None:
            return float(lo if edge.end == "low" else hi)
        return float(round(rng.uniform(lo, hi), 2))

    def edges(self):
        return _value_edges(self.values)

    def reached(self, value):
        return _values_reached(self.values, np.asarray(value)) if self.matches(value) else set()

    def describe(self):
        return f"Python float in [{self.values[0]}, {self.values[1]}]"


@spec_type("int")
class IntSpec(Spec):
    """A Python int: a count, a size or a static parameter unless it says ``data: true``."""

    FIELDS = Spec.FIELDS + ("values",)
    DATA = False

    def matches(self, value) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    def __init__(self, r, dims, name):
        super().__init__(r, dims, name)
        self.values = _range(r, "values", [0, 10], dims)

    def dims_used(self):
        return {_bound_dim(b) for b in self.values if isinstance(b, str)}

    def strategy(self, assign, drawn):
        lo, hi = (int(_resolve(b, assign)) for b in self.values)
        return st.integers(lo, hi)

    def sample(self, assign, drawn, rng, edge=None):
        lo, hi = (int(_resolve(b, assign)) for b in self.values)
        if edge is not None:
            return lo if edge.end == "low" else hi
        return int(rng.integers(lo, hi + 1))

    def edges(self):
        return _value_edges(self.values)

    def reached(self, value):
        return _values_reached(self.values, np.asarray(value)) if self.matches(value) else set()

    def describe(self):
        return f"Python int in [{self.values[0]}, {self.values[1]}]"


@spec_type("bool")
class BoolSpec(Spec):
    FIELDS = Spec.FIELDS
    DATA = False

    def matches(self, value) -> bool:
        return isinstance(value, bool)

    def strategy(self, assign, drawn):
        return st.booleans()

    def sample(self, assign, drawn, rng, edge=None):
        if edge is not None:
            return edge.end == "high"
        return bool(rng.integers(0, 2))

    def edges(self):
        return ["True", "False"]

    def reached(self, value):
        return {str(value)} if isinstance(value, bool) else set()

    def describe(self):
        return "Python bool"
