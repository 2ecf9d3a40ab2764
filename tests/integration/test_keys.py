"""Random keys as arguments: the ``key`` spec type and the ``$key`` literal.  A key crosses
the channel as its raw threefry2x32 data and reaches the function as the typed key
``jax.random.key(seed)`` would be; its bits are not data (no tolerance scales with them).

Here: the tests that start a worker or a `judge` process; tests/unit/test_keys.py has the
rest."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

from judge.bank import load_bank
from judge.runner import grade
from judge.verdicts import Status, Verdict
from judge.writers.text import write as write_text

BANK = """
tasks:
  - id: noisy
    title: Add noise drawn from a key
    step: 4
    dims: {n: [0, 6]}
    args:
      key: {type: key KEY_FIELDS}
      x: {type: array, dtype: float32, shape: [n], values: [-1, 1]}
    result: {type: array, dtype: float32}
    tolerance: {mode: elementwise}
    # the submissions here read the key back on the host to check what they were given
    host_syncs: allowed
    examples:
      - args: {key: {$key: 42}, x: {$array: [0, 0], dtype: float32}}
    scripts:
      keys:
        - {args: {key: {$key: 1}, x: {$random: {shape: [4]}}}}
        - {args: {key: {$key: 2}, x: {$random: {shape: [4]}}}}
    checks:
      - {id: examples, kind: example}
      - {id: property, kind: property, examples: 20}
      - {id: retrace, kind: retrace, script: keys, budget: reference}
"""

REFERENCE = """
import jax

@jax.jit
def noisy(key, x):
    return x + jax.random.normal(key, x.shape)
"""


def bank_with(tmp_path: Path, key_fields: str = "", body: str = BANK):
    (tmp_path / "reference").mkdir(exist_ok=True)
    (tmp_path / "tasks" / "noisy").mkdir(parents=True, exist_ok=True)
    (tmp_path / "reference" / "noisy.py").write_text(REFERENCE)
    (tmp_path / "tasks.yaml").write_text(body.replace(" KEY_FIELDS", key_fields))
    return load_bank(tmp_path)


def run(tmp_path: Path, submission: str):
    task = bank_with(tmp_path).get("noisy")
    path = tmp_path / "submission.py"
    path.write_text(textwrap.dedent(submission))
    report = grade(task, path)
    return report, {c.id: c for c in report.checks}


def test_the_function_gets_a_typed_key_equal_to_jax_random_key(tmp_path):
    report, checks = run(
        tmp_path,
        """
        import jax
        import jax.numpy as jnp

        def noisy(key, x):
            assert jnp.issubdtype(key.dtype, jax.dtypes.prng_key), key.dtype
            assert (jax.random.key_data(key) == jax.random.key_data(
                jax.random.key(int(jax.random.key_data(key)[1])))).all()
            return x + jax.random.normal(key, x.shape)
    """,
    )
    assert report.verdict == Verdict.ACCEPTED, [c.message for c in report.checks]
    assert checks["retrace"].status == Status.PASSED


def test_another_stream_is_a_wrong_answer_shown_with_the_key_as_code(tmp_path):
    report, checks = run(
        tmp_path,
        """
        import jax

        def noisy(key, x):
            _, sub = jax.random.split(key)
            return x + jax.random.normal(sub, x.shape)
    """,
    )
    assert report.verdict == Verdict.WRONG_ANSWER
    assert "noisy(key=jax.random.key(42)" in checks["examples"].message
    assert checks["examples"].counterexample["args"]["key"] == {
        "kind": "key",
        "key": "jax.random.key(42)",
    }
    text = io.StringIO()
    write_text(report, text)
    assert "key = jax.random.key(42)\n" in text.getvalue()
