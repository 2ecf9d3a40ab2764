"""Authors: `judge init` starts a bank of a course's own, `judge new` writes YAML that
loads whatever the title says, and neither writes into an installed package.

Here: the tests that start no process; tests/integration/test_scaffold.py has those that
grade in a worker."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest

from judge.bank import installed_with_the_package, load_bank
from judge.scaffold import ScaffoldError, create_task, init_bank

from helpers import ROOT


@pytest.mark.parametrize(
    "title",
    [
        "TODO: a one-line title",
        "Sums: fast and right",
        "Pad # then mask",
        "*starred* [bracketed] {braced}",
        "quote \" and 'apostrophe'",
    ],
)
def test_new_writes_a_title_that_loads_back_as_written(tmp_path, title):
    init_bank(tmp_path, "course")
    create_task(load_bank(tmp_path), "double_it", 3, title)
    assert load_bank(tmp_path).get("double_it").title == title


def test_new_refuses_the_bank_installed_in_site_packages(tmp_path, monkeypatch):
    site = tmp_path / "site-packages"
    installed = site / "judge" / "_bank"
    init_bank(installed, "shipped")
    paths = dict(sysconfig.get_paths(), purelib=str(site), platlib=str(site))
    monkeypatch.setattr(sysconfig, "get_paths", lambda *a, **k: paths)
    with pytest.raises(
        ScaffoldError, match=r"installed with jax-judge.*judge init DIR.*--bank DIR"
    ):
        create_task(load_bank(installed), "double_it", 1, "Double it")
    assert not (installed / "tasks" / "double_it").exists()
    assert load_bank(installed).tasks == {}


def test_the_real_site_packages_counts_as_installed_and_a_checkout_does_not():
    purelib = Path(sysconfig.get_paths()["purelib"])
    assert installed_with_the_package(purelib / "judge" / "_bank")
    assert not installed_with_the_package(ROOT)  # a source checkout is the author's
