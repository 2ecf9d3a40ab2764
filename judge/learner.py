"""The import path of ``judge/learner_api.py`` before 2026-12-02 (``check``, ``hint``),
kept so notebooks and course tools written against it still run."""

from .learner_api import CheckedReport, CheckError, Hint, assemble, check, hint  # noqa: F401
