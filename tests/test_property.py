"""The property check: a failure seen once is a failure, a function whose answer for the
same input changes is wrong (in those words), and ``deterministic: true`` gives every
input twice.  A small task of its own keeps these fast."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import DOUBLE_IT_REFERENCE, double_it_bank
from judge.bank import load_bank
from judge.runner import grade

FIELDS = """
tolerance: {mode: elementwise}
checks:
  - {id: property, kind: property, examples: 30, max_shapes: 4, deterministic: DETERMINISTIC}
"""

# wrong the first time it sees an input, right when the input comes again
WRONG_ONCE = """
import jax.numpy as jnp
_seen = set()

def double_it(x):
    key = x.tobytes() if hasattr(x, "tobytes") else None
    if x.size and key not in _seen:
        _seen.add(key)
        return 2 * x + 1
    return 2 * x
"""
# wrong on every other call: hypothesis cannot reproduce its failures while shrinking
ALTERNATING = """
_calls = [0]

def double_it(x):
    _calls[0] += 1
    return 2 * x + (1.0 if x.size and _calls[0] % 2 == 0 else 0.0)
"""
# one unit of rounding of noise on a random half of the calls: within tolerance, not
# the same twice
JITTER = """
import jax.numpy as jnp
import numpy as np
_noise = np.random.default_rng()

def double_it(x):
    y = 2 * x
    return jnp.nextafter(y, jnp.inf) if _noise.random() < 0.5 else y
"""


def bank(tmp_path: Path, deterministic: bool = False) -> Path:
    return double_it_bank(tmp_path, FIELDS.replace("DETERMINISTIC", "true" if deterministic else "false"))


def run(tmp_path, source: str, deterministic: bool = False):
    root = bank(tmp_path, deterministic)
    submission = tmp_path / "submission.py"
    submission.write_text(source)
    report = grade(load_bank(root).get("double_it"), submission)
    (prop,) = [c for c in report.checks if c.id == "property"]
    return report, prop


@pytest.mark.parametrize("source", [WRONG_ONCE, ALTERNATING])
def test_a_failure_seen_once_is_reported_even_when_the_replay_passes(tmp_path, source):
    report, prop = run(tmp_path, source)
    assert report.verdict == "wrong_answer", prop.message
    assert prop.status == "failed"
    assert prop.message.startswith("your function gave different results for the same input: ")
    assert "the first call returned" in prop.message and "the same input again returned" in prop.message
    assert prop.details["problem"] == "nondeterministic"
    assert "expected" in prop.counterexample and "actual" in prop.counterexample


def test_deterministic_gives_every_input_twice(tmp_path):
    report, prop = run(tmp_path, JITTER)
    assert report.verdict == "accepted", prop.message    # within tolerance of the reference
    report, prop = run(tmp_path, JITTER, deterministic=True)
    assert report.verdict == "wrong_answer"
    assert prop.message.startswith("your function gave different results for the same input")
    assert "element" in prop.message


def test_deterministic_passes_a_pure_function(tmp_path):
    report, prop = run(tmp_path, DOUBLE_IT_REFERENCE, deterministic=True)
    assert report.verdict == "accepted", prop.message
    assert prop.message.endswith("each giving the same result twice")
