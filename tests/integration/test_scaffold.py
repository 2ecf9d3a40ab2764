"""Authors: `judge init` starts a bank of a course's own, `judge new` writes YAML that
loads whatever the title says, and neither writes into an installed package.

Here: the tests that start a worker or a `judge` process; tests/unit/test_scaffold.py has the
rest."""

from __future__ import annotations

from judge.bank import load_bank
from judge.scaffold import init_bank

from helpers import run_judge as judge


def test_init_starts_a_bank_that_validate_accepts_and_new_can_fill(tmp_path):
    bank = tmp_path / "course-bank"
    made = judge("init", bank, "--course", "JAX: the hard parts # 2026")
    assert made.returncode == 0, made.stderr
    assert {p.name for p in bank.iterdir()} == {"tasks.yaml", "tasks", "reference"}
    assert load_bank(bank).course == "JAX: the hard parts # 2026"
    valid = judge("--bank", bank, "validate")
    assert valid.returncode == 0 and "0 of 0 tasks valid" in valid.stdout, (
        valid.stdout + valid.stderr
    )
    assert judge("--bank", bank, "new", "double_it", "--step", "2").returncode == 0
    assert list(load_bank(bank).tasks) == ["double_it"]
    again = judge("init", bank)
    assert again.returncode == 2 and "already exists" in again.stderr


def test_new_without_a_title_writes_yaml_that_loads(tmp_path):
    init_bank(tmp_path, "course")
    made = judge("--bank", tmp_path, "new", "double_it")
    assert made.returncode == 0, made.stderr
    assert load_bank(tmp_path).get("double_it").title == "TODO: a one-line title"
