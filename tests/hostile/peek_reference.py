"""Hostile: looks for the judge and the reference solutions from inside the worker.

``roots``: folders the test knows hold the `judge` package or a bank; the code puts them
on sys.path itself before importing.  ``hidden``: bank folders to list by absolute path.
Returns what it found; the test decides what must have failed.
"""
import glob
import os
import sys


def _try_import(name):
    try:
        __import__(name)
    except ImportError:
        return "ImportError"
    except Exception as exc:
        return type(exc).__name__
    return "imported"


def _listing(path):
    try:
        return sorted(os.listdir(path))
    except OSError as exc:
        return type(exc).__name__


def solve(x, roots=(), hidden=()):
    sys.path[:0] = list(roots)
    relative = []
    for pattern in ("../reference/*", "../../reference/*", "reference/*", "../tasks/*",
                    "../../tasks/*"):
        relative += glob.glob(pattern)
    return {
        "reference": _try_import("reference"),
        "judge": _try_import("judge"),
        "judge.worker.wire": _try_import("judge.worker.wire"),
        "tasks": _try_import("tasks"),
        "relative": relative,
        "hidden": {path: _listing(path) for path in hidden},
    }
