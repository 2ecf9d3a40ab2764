"""One version: pyproject.toml writes it, the installed package's metadata carries it,
and the judge reads it from there (judge.__version__, every report's judge_version)."""

from __future__ import annotations

import importlib.metadata
import tomllib

import judge
from judge.report import Report

from helpers import ROOT


def test_the_version_is_pyprojects_read_from_the_package_metadata():
    written = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert importlib.metadata.version("jax-judge") == written
    assert judge.__version__ == written


def test_no_module_of_the_judge_writes_a_version_of_its_own():
    for path in (ROOT / "judge").rglob("*.py"):
        text = path.read_text()
        assert '__version__ = "' not in text and "__version__ = '" not in text, path


def test_reports_carry_that_version():
    from judge.runner import no_task_report

    report: Report = no_task_report("nothing", "x.py", "no such task", 1, False)
    assert report.judge_version == judge.__version__
