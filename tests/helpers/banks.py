"""A bank written from a tasks.yaml text, with empty tasks/ and reference/ folders: for
tests of the loader and of what reads tasks.yaml."""

from __future__ import annotations

import textwrap
from pathlib import Path

MINIMAL = """
tasks:
  - id: add_one
    title: Add one
    step: 1
    args:
      x: {type: array, dtype: float32, shape: [n]}
    dims: {n: [0, 4]}
    checks:
      - {id: property, kind: property}
"""


def write_bank(tmp_path: Path, text: str) -> Path:
    (tmp_path / "tasks.yaml").write_text(textwrap.dedent(text))
    (tmp_path / "tasks").mkdir()
    (tmp_path / "reference").mkdir()
    return tmp_path
