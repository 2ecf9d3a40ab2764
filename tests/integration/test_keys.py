"""Random keys as arguments: the ``key`` spec type and the ``$key`` literal.  A key crosses
the channel as its raw threefry2x32 data and reaches the function as the typed key
``jax.random.key(seed)`` would be; its bits are not data (no tolerance scales with them).

Here: the tests that start a worker or a `judge` process; tests/unit/test_keys.py has the
rest."""

from __future__ import annotations

import io
import textwrap
from pathlib import Path

from judge.runner import grade
from judge.verdicts import Status, Verdict
from judge.writers.text import write as write_text

from helpers.keys_bank import bank_with


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
