"""The types an instrument (a check kind's worker-side half, shipped to the worker as
source: see ``base.Instrument``) is annotated with, for mypy and for readers.

The worker compiles an instrument's source alone, without the judge's imports, so an
annotation it would evaluate may name only builtins (``compile`` there happens to inherit
``from __future__ import annotations`` from the worker's own module; an instrument does
not count on it, and the registration's self-containedness check does not know it).  An instrument therefore writes its annotations as strings
(``ctx: "Context"``, ``-> "dict[str, Any]"``): Python keeps a string annotation as it
is and never evaluates it, ``symtable`` (the self-containedness check) sees no name in
it, and mypy reads it as the type it names, imported under ``TYPE_CHECKING`` in the
kind's module.  ``tests/unit/test_shipped_instruments.py`` compiles every kind's
instrument alone, as the worker does, so an unquoted name fails there.

Nothing here runs in the worker, and nothing here imports jax.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NoReturn, Protocol


class Context(Protocol):
    """What an instrument is given as ``ctx`` (``judge.worker.measure.MeasureContext``,
    as ``base.Instrument`` describes it)."""

    function: Callable[..., Any]  # the learner's (or the reference's) entrypoint
    source_file: str | None  # the file the entrypoint came from
    bound: Any  # what the instrument's setup returned (a dict of jax's functions)

    def keep(self, value: Any) -> None:
        """Send ``value`` back with the measurement, encoded like a call's result."""

    def wrong(self, why: str) -> NoReturn:
        """What the learner's function gave cannot be measured: their wrong answer."""

    def unmeasurable(self, why: str) -> NoReturn:
        """The figure cannot be had here: a judge error, never the learner's fault."""

    def traceable(
        self, args: Sequence[Any], kwargs: dict[str, Any]
    ) -> tuple[Callable[..., Any], list[Any]]:
        """``fn, arrays``: the call as a function of its array leaves alone."""


__all__ = ["Context"]
