"""The learner-side module both tiers of the check()/hint() tests load."""

from __future__ import annotations

import importlib.util
from pathlib import Path

MODULE = """import jax
import jax.numpy as jnp
import numpy as np

SCALE = 1.0
unrelated = np.ones(3)        # read by nothing the function needs: left out
_sum = jax.jit(jnp.sum)


def helper(v):
    return _sum(v) * SCALE


def my_count(x_a, x_b):
    return helper(x_a) + helper(x_b)


wrapped = jax.jit(my_count)
"""


def load_module(tmp_path: Path, text: str = MODULE):
    path = tmp_path / "mine.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("mine_for_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
