"""Fixtures every tier shares, and the suite's own options.  Helpers imported by name
live in tests/helpers/; nothing here runs at import."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-goldens",
        action="store_true",
        default=False,
        help="rewrite tests/golden/ from this run instead of comparing with it "
        "(or JUDGE_UPDATE_GOLDENS=1); read git diff tests/golden after",
    )


@pytest.fixture(scope="session", autouse=True)
def judge_environment(tmp_path_factory):
    """The environment every grading of this test process sees, the judge's own and the
    `judge` commands it starts:

    - the reference's memo (judge.memo), new for every session: what a test sees cannot
      depend on what an earlier session, or the user's own runs, left in ~/.cache.  It is
      on, as it is for a user: tests that grade a task twice use it;
    - no JUDGE_SERVER (or token) from the caller's environment, which would send check()
      and hint() to that service: the suite grades here unless a test names one."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JUDGE_MEMO", str(tmp_path_factory.mktemp("memo")))
        for name in ("JUDGE_SERVER", "JUDGE_TOKEN"):
            env.delenv(name, raising=False)
        yield
