"""The bank both tiers of the validate tests build."""

from __future__ import annotations

from pathlib import Path

from helpers import double_it_bank

FIELDS = """
    tolerance: TOLERANCE
    examples:
      - args: {x: {$array: [1, 2]}}
        expect: {$array: EXPECT}
    scripts:
      lens:
        - {args: {x: {$random: {shape: [4]}}}}
        - {args: {x: {$random: {shape: [4]}}}, repeat: 2}
        - {args: {x: {$random: {shape: [6]}}}}
    checks:
      - {id: examples, kind: example}
      - {id: property, kind: property, examples: 20, max_shapes: 4}
      - {id: retrace, kind: retrace, script: lens, budget: BUDGET}
"""


FILES = {
    "tasks/double_it/known/plus_two.py": "# expect: wrong_answer via property\ndef double_it(x):\n    return x + 2\n",
    "tasks/double_it/known/fresh_lambda.py": "# expect: inefficient via retrace\nimport jax\n\n"
    "def double_it(x):\n    return jax.jit(lambda v: 2 * v)(x)\n",
}


def make_bank(
    tmp_path: Path,
    *,
    expect="[2, 4]",
    budget="reference",
    tolerance="{mode: elementwise}",
    drop=(),
    extra=None,
) -> Path:
    fields = (
        FIELDS.replace("EXPECT", expect).replace("BUDGET", budget).replace("TOLERANCE", tolerance)
    )
    return double_it_bank(tmp_path, fields, {**FILES, **(extra or {})}, drop=drop)
