"""The small bank both tiers of the key tests grade against."""

from __future__ import annotations

from pathlib import Path

from judge.bank import load_bank

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
