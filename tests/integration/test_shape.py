"""The shape the README promises: imports run one way (the CLI on top, nothing imports
it), no two modules import each other, and `judge run` never loads the batch machinery.

Here: the tests that start a worker or a `judge` process; tests/unit/test_shape.py has the
rest."""

from __future__ import annotations

import subprocess
import sys


def test_judge_run_does_not_load_the_batch_or_the_notebook_helpers():
    code = (
        "import sys, judge.cli; print(sorted(m for m in sys.modules "
        "if m.startswith(('judge.batch', 'judge.learner', 'distributed', 'IPython'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
