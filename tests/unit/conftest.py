"""The unit tier starts no process: no worker, no `judge` command, no interpreter.  A
test here that tries fails at once with the way out (tests/README.md)."""

from __future__ import annotations

import os
import subprocess

import pytest


class StartsAProcess(AssertionError):
    pass


def _refuse(*args, **kwargs):
    raise StartsAProcess(
        "the unit tier starts no process (a worker, `judge`, python): this "
        "test belongs in tests/integration (tests/README.md)"
    )


# module scope: set up before the module's own module-scoped fixtures (autouse first),
# which a function-scoped guard would let through
@pytest.fixture(scope="module", autouse=True)
def no_process():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subprocess.Popen, "_execute_child", _refuse)
        for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
            patch.setattr(os, name, _refuse)
        for name in [n for n in dir(os) if n.startswith(("execv", "spawn"))]:
            patch.setattr(os, name, _refuse)
        yield
