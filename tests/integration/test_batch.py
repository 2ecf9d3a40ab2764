"""judge batch, the parts that need no worker: discovery, the results store, the class
views, progress, and the command's usage errors.  End to end: test_batch_e2e.py.

Here: the usage errors, which the command reaches after its isolation probe (a
process); tests/unit/test_batch.py has the rest."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from judge.batch.store import ResultStore
from judge.cli import main

from helpers import put


@pytest.mark.parametrize(
    "args, says",
    [
        (["--tasks", "cache_independent_cont"], "Did you mean: cache_independent_count"),
        (["--emit", "tap"], "--emit: unknown format tap"),
    ],
)
def test_usage_errors_exit_2(tmp_path, args, says):
    put(tmp_path / "class" / "ann" / "cache_independent_count.py")
    result = CliRunner().invoke(
        main, ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out"), *args]
    )
    assert result.exit_code == 2 and says in result.output


def test_an_empty_class_says_it_found_nothing(tmp_path):
    (tmp_path / "class").mkdir()
    result = CliRunner().invoke(
        main, ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2 and "found no submissions in" in result.output
    put(tmp_path / "class" / "ann" / "cache_independant_count.py")
    result = CliRunner().invoke(
        main, ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 2 and "did you mean cache_independent_count?" in result.output
    assert "none of the 1 files above is named after a task" in result.output


def test_a_folder_in_use_is_a_usage_error(tmp_path):
    put(tmp_path / "class" / "ann" / "cache_independent_count.py")
    held = ResultStore(tmp_path / "out").open()
    result = CliRunner().invoke(
        main, ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out")]
    )
    held.close()
    assert result.exit_code == 2 and "another judge batch" in result.output
