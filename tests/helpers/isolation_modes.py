"""Which isolation modes this machine can test: always process, bubblewrap when usable;
and the bank's known submissions graded in one of them."""

import functools

import pytest

from judge.sandbox import Limits, Worker


def _bwrap_works() -> bool:
    try:
        Worker(Limits(), isolation="bubblewrap")
    except RuntimeError:
        return False
    return True


BWRAP = _bwrap_works()
MODES = ["process"] + (["bubblewrap"] if BWRAP else [])
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap is not installed or not usable")


@functools.lru_cache(maxsize=1)
def _bank():
    from judge.bank import load_bank

    return load_bank()


def grade_known_in(isolation: str, task_id: str, known: str, monkeypatch):
    """The report of the bank's known submission ``known`` of ``task_id``, graded in
    ``isolation`` (that mode itself, not a fallback: the report must say so)."""
    from judge.runner import grade

    monkeypatch.setenv("JUDGE_ISOLATION", isolation)
    task = _bank().get(task_id)
    report = grade(task, task.folder / "known" / known)
    assert report.isolation == isolation
    return report
