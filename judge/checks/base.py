"""What every check kind shares: parsing from tasks.yaml and the registry."""

from __future__ import annotations

import difflib
import functools
import importlib

from ..report import CheckResult

CHECK_KINDS: dict[str, type["CheckSpec"]] = {}


def check_kind(name: str):
    def register(cls):
        CHECK_KINDS[name] = cls
        cls.kind = name
        return cls
    return register


class Later:
    """A check result that waits for the reference: ``finish()`` gives the CheckResult."""

    def __init__(self, finish):
        self.finish = finish


class CheckSpec:
    """One check of a task.  ``phase`` orders execution: checks that need the worker's
    caches untouched (scripted calls) run before the ones that fill them."""

    kind = "?"
    phase = 1
    FIELDS: tuple[str, ...] = ("id", "kind", "required", "doc")
    performance = False          # a failure means "inefficient", not "wrong_answer"

    def __init__(self, r, scripts: dict):
        self.id = r.get("id", str, self.kind)
        self.required = r.get("required", bool, True)
        self.doc = r.get("doc", str, "")

    def prepare(self, grading):
        """Work that needs no worker, done in a thread while the workers start; its
        result is ``grading.prepared(self.id)``.  None: nothing to prepare."""
        return None

    def run(self, grading) -> "CheckResult | Later":
        """The learner's calls, then the result; or, where the result needs reference
        values still being computed, ``Later(finish)``: the grading calls ``finish()``
        once every check has made its learner calls, so the learner's worker never waits
        idle for the reference's."""
        raise NotImplementedError

    def result(self, status: str, message: str, **kw) -> CheckResult:
        return CheckResult(id=self.id, kind=self.kind, required=self.required,
                           status=status, message=message, **kw)


@functools.lru_cache(maxsize=1)
def _load_kinds() -> None:
    # every kind module, even when one was imported on its own before
    from . import KIND_MODULES

    for name in KIND_MODULES:
        importlib.import_module(f"{__package__}.{name}")


def parse_check(r, scripts: dict) -> CheckSpec:
    _load_kinds()
    kind = r.get("kind", str)
    if kind not in CHECK_KINDS:
        close = difflib.get_close_matches(kind, list(CHECK_KINDS), n=1)
        r.fail(f"unknown check kind '{kind}'" + (f" (did you mean '{close[0]}'?)" if close else
               f" (known: {', '.join(sorted(CHECK_KINDS))})"), "kind")
    cls = CHECK_KINDS[kind]
    r.only(cls.FIELDS)
    return cls(r, scripts)
