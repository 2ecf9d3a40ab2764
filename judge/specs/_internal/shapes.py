"""Shape variables and the shape pool: symbolic dims, the values each run fixes for
them, and ``shape_pool``, the few shape assignments a run compiles for (edges, one size
per band of every dim's range, seeded draws)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# ---------------------------------------------------------------- shape variables

# The largest size one dimension or one list's length may ask for (a bank cannot make the
# judge allocate gigabytes; see also core.MAX_ELEMENTS).
MAX_DIM = 1 << 16


@dataclass(frozen=True)
class Dim:
    """A symbolic dimension shared by every argument that names it.  One split over mesh
    axes takes multiples of their size (``step``) only; empty, the smallest non-empty and
    the largest size stay its edges."""

    name: str
    lo: int
    hi: int
    step: int = 1

    def candidates(self) -> list[int]:
        return sorted({self.lo, min(max(self.step, self.lo), self.hi), self.hi})

    def draw(self, rng: np.random.Generator) -> int:
        return draw_size(rng, self.lo // self.step, self.hi // self.step) * self.step

    def strata(self) -> list[tuple[int, int]]:
        """The sizes between the edges cut into bands (see ``size_bands``), as sizes."""
        edges = self.candidates()
        if len(edges) < 2:
            return []
        return [
            (a * self.step, b * self.step)
            for a, b in size_bands(
                edges[-2] // self.step + 1, self.hi // self.step - 1, self.hi // self.step
            )
        ]

    def draw_in(self, rng: np.random.Generator, band: tuple[int, int]) -> int:
        return int(rng.integers(band[0] // self.step, band[1] // self.step + 1)) * self.step


# The top of a size range is cut in this many bands of equal width, each holding one size
# of the pool; below that width the bands double (2-3, 4-7, 8-15, ...).  So a run of more
# than 2 * ceil(high / LINEAR_BANDS) - 2 consecutive sizes always holds a pool size: for
# n in [0, 64] any 15 (a quarter of the range), and a range of up to 8 sizes holds all.
LINEAR_BANDS = 8


def size_bands(first: int, last: int, high: int) -> list[tuple[int, int]]:
    """Bands covering the sizes ``first``..``last``: doubling while narrower than
    ``ceil(high / LINEAR_BANDS)``, then of that width; small sizes are where programs
    special-case (no padding below 32, one row by hand), large ones where a band hides."""
    width = max(1, -(-high // LINEAR_BANDS))
    bands, a = [], first
    while a <= last:
        b = min(last, a + (min(a, width) if a < width else width) - 1)
        bands.append((a, b))
        a = b + 1
    return bands


def draw_size(rng: np.random.Generator, lo: int, hi: int) -> int:
    """A size in [lo, hi], log-uniformly: as many small sizes as large ones, because
    small sizes are where programs special-case (no padding below 32, one row sliced
    by hand) and the pool holds only a few."""
    return min(hi, lo + int((hi - lo + 2) ** rng.random()) - 1)


def parse_dims(r) -> dict[str, Dim]:
    dims = {}
    for name, bounds in r.data.items():
        if not (
            isinstance(bounds, list)
            and len(bounds) == 2
            and all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)
            and 0 <= bounds[0] <= bounds[1]
        ):
            r.fail("must be [low, high], two integers with 0 <= low <= high", str(name))
        if bounds[1] > MAX_DIM:
            r.fail(f"the high end is at most {MAX_DIM}, got {bounds[1]}", str(name))
        dims[str(name)] = Dim(str(name), bounds[0], bounds[1])
    return dims


class ShapeVar:
    """A value the pool fixes per run: a free shape, a tree structure, a length."""

    name: str

    def candidates(self) -> list[Any]:
        raise NotImplementedError

    def draw(self, rng: np.random.Generator) -> Any:
        raise NotImplementedError


def edge_count(variables: list) -> int:
    return max([len(v.candidates()) for v in variables] + [1])


def _not_at(variable, edge, rng, tries: int = 8):
    """A draw of ``variable`` other than ``edge`` where one can be had: the others vary
    while one variable sits at its edge."""
    value = variable.draw(rng)
    while value == edge and tries:
        value, tries = variable.draw(rng), tries - 1
    return value


def shape_pool(variables: list, seed: int, size: int) -> list[dict[str, Any]]:
    """The shape assignments of a run: all-min first, then all-one, all-max, each
    variable alone at either end; then one assignment per band of every dimension's range
    (``size_bands``: a Latin square, so each dimension's bands are all covered whatever
    the number of dimensions); then seeded random ones up to ``size``.  Deterministic per
    seed; the bands make the pool larger than ``size`` where a range needs them."""
    if not variables:
        return [{}]
    rng = np.random.default_rng(seed)
    pool: list[dict[str, Any]] = []

    def add(assign):
        if assign not in pool:
            pool.append(assign)

    for pick in range(edge_count(variables)):  # candidates run from the smallest up
        add({v.name: v.candidates()[min(pick, len(v.candidates()) - 1)] for v in variables})
    if len(variables) > 1:
        for v in variables:
            add(
                {
                    w.name: (w.candidates()[0] if w is v else _not_at(w, w.candidates()[0], rng))
                    for w in variables
                }
            )
            add(
                {
                    w.name: (w.candidates()[-1] if w is v else _not_at(w, w.candidates()[-1], rng))
                    for w in variables
                }
            )
    for assign in _stratified(variables, np.random.default_rng([seed, 2])):
        add(assign)
    tries = 0
    while len(pool) < size and tries < 50 * size:
        tries += 1
        add({v.name: v.draw(rng) for v in variables})
    return pool


def _stratified(variables: list, rng: np.random.Generator) -> list[dict[str, Any]]:
    """One assignment per band of the dimension with the most bands; every other
    dimension's bands are dealt out over the same assignments in a seeded order (each of
    them covered, repeated where it has fewer), the other variables drawn freely."""
    bands = {v.name: v.strata() for v in variables if isinstance(v, Dim) and v.strata()}
    rows = max([len(b) for b in bands.values()] + [0])
    dealt = {}
    for name, own in bands.items():
        order = [own[i % len(own)] for i in range(rows)]
        dealt[name] = [order[i] for i in rng.permutation(rows)]
    return [
        {
            v.name: (v.draw_in(rng, dealt[v.name][i]) if v.name in dealt else v.draw(rng))
            for v in variables
        }
        for i in range(rows)
    ]
