"""Hostile: makes every numpy comparison say "equal", then answers wrongly."""
import numpy as np
import numpy.testing

np.allclose = lambda *a, **k: True
np.array_equal = lambda *a, **k: True
np.isclose = lambda a, b, *r, **k: np.ones(np.broadcast(a, b).shape, dtype=bool)
np.testing.assert_allclose = lambda *a, **k: None
np.testing.assert_array_equal = lambda *a, **k: None
numpy.testing.assert_array_almost_equal = lambda *a, **k: None


def solve(x):
    return x + 1000
