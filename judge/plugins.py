"""Finding plug-ins: the modules of one of the judge's own plug-in packages
(``judge/checks/``, ``judge/writers/``), found by scanning the package, and a course's
own, named by the entry points of an installed distribution (``jax_judge.checks``,
``jax_judge.writers``), so a course adds a check kind or a report format without
forking the judge.

Only what is installed is read (``importlib.metadata``): nothing is fetched, and the
scan of installed distributions happens once per process."""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass
from types import ModuleType
from typing import Any


class PluginError(Exception):
    """A check kind or a report writer that does not keep its plug-in contract, or does
    not load; the message names it (and the distribution it came from) and says what
    to fix."""


@dataclass(frozen=True)
class EntryPoint:
    """One plug-in named by an installed distribution."""

    group: str
    name: str
    value: str  # "package.module" or "package.module:attribute"
    dist: str  # "name version" of the distribution that declares it

    def where(self) -> str:
        return f"entry point '{self.name} = {self.value}' of {self.dist} (group {self.group})"

    def load(self) -> Any:
        from importlib import metadata

        return metadata.EntryPoint(self.name, self.value, self.group).load()


@functools.lru_cache(maxsize=1)
def _installed():
    # one scan of the installed distributions for every group (about 20 ms with a
    # hundred of them; each group scanned apart would pay it again), and importlib's
    # metadata imported only then
    from importlib import metadata

    return metadata.entry_points()


@functools.lru_cache(maxsize=None)
def entry_points(group: str) -> tuple[EntryPoint, ...]:
    """The installed entry points of ``group``, in a stable order (by name)."""
    found = []
    seen = set()
    for ep in _installed().select(group=group):
        dist = getattr(ep, "dist", None)
        label = f"{dist.metadata['Name']} {dist.version}" if dist is not None else "a distribution"
        if (ep.name, ep.value) in seen:  # one distribution seen twice on sys.path
            continue
        seen.add((ep.name, ep.value))
        found.append(EntryPoint(group, ep.name, ep.value, label))
    return tuple(sorted(found, key=lambda e: (e.name, e.value)))


def package_modules(package: str, skip: frozenset[str] = frozenset()) -> list[ModuleType]:
    """Every module of ``package`` (not its subpackages), imported, by name."""
    pkg = importlib.import_module(package)
    names = sorted(
        info.name
        for info in pkgutil.iter_modules(pkg.__path__)
        if not info.ispkg and info.name not in skip
    )
    return [importlib.import_module(f"{package}.{name}") for name in names]
