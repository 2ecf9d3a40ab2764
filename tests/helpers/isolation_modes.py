"""Which isolation modes this machine can test: always process, bubblewrap when usable."""

import pytest

from judge.sandbox import Limits, Worker


def _bwrap_works() -> bool:
    try:
        Worker(Limits(), isolation="bubblewrap")
    except RuntimeError:
        return False
    return True


BWRAP = _bwrap_works()
MODES = ["process"] + (["bubblewrap"] if BWRAP else [])
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="bubblewrap is not installed or not usable")
