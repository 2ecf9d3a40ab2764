"""The unit tier's one rule holds: no process is started here, not from a test and not
from a module's own fixtures (which pytest sets up before function-scoped ones)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

REFUSED = "the unit tier starts no process"


@pytest.fixture(scope="module")
def started_from_a_module_fixture():
    try:
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    except AssertionError as exc:
        return str(exc)
    return None


def test_a_test_cannot_start_a_process():
    with pytest.raises(AssertionError, match=REFUSED):
        subprocess.run([sys.executable, "-c", "pass"])
    with pytest.raises(AssertionError, match=REFUSED):
        os.system("true")


def test_a_module_fixture_cannot_either(started_from_a_module_fixture):
    assert started_from_a_module_fixture and REFUSED in started_from_a_module_fixture
