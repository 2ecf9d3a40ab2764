"""The service's parts on their own, without a server process: the store, who may call,
the rate limit, the loopback rule, what `judge run` does not import.

Here: the tests that start a worker or a `judge` process; tests/unit/test_serve_parts.py has the
rest."""

from __future__ import annotations


def test_serve_is_not_imported_by_judge_run():
    import subprocess
    import sys

    code = (
        "import sys, judge.cli; "
        "sys.exit(any(m.startswith(('judge.serve', 'starlette', 'uvicorn', 'httpx')) "
        "for m in sys.modules))"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
