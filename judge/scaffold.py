"""`judge new`: a complete task skeleton that `judge validate` can guide from the start;
`judge init`: an empty bank of a course's own, in a folder of its own.

Nothing existing is overwritten: the new entry is appended to tasks.yaml (and taken
back if the file no longer loads), and every new file is created exclusively.  The
bank shipped inside an installed package is never written to: the next upgrade would
delete the task.
"""

from __future__ import annotations

import json
from pathlib import Path

from .bank import TASK_ID, Bank, BankError, installed_with_the_package, load_bank


class ScaffoldError(Exception):
    pass


ENTRY = """
  # ---- {id}: written by `judge new`; docs/tasks-yaml.md explains every field ----
  - id: {id}
    title: {title_yaml}          # one line for people
    step: {step}                    # course step number (`judge list` groups by it)
    difficulty: medium         # easy | medium | hard
    tags: [todo]
    entrypoint: {id}   # the function learners define
    dims:                      # symbolic sizes, [low, high]; 0 means empty inputs are tried
      n: [0, 16]
    args:                      # name -> spec, in signature order
      x: {{type: array, kind: jax, dtype: float32, shape: [n], values: [-10, 10]}}
    result: {{type: array, dtype: same}}   # scalar | array | any; dtype same | float | any
    tolerance: {{mode: elementwise}}       # elementwise | reduction | exact
    examples:                  # the statement's worked examples, checked literally
      - args: {{x: {{$array: [1.0, 2.0]}}}}
        # expect: ...          # TODO: the answer your statement gives; omit to use the reference's
    scripts: {{}}                # call sequences for retrace/sync checks (see docs)
    checks:
      - {{id: examples, kind: example}}
      - {{id: property, kind: property, examples: 100}}
      # - {{id: retrace, kind: retrace, script: NAME, budget: reference}}
    limits: {{call_timeout_s: 10, run_timeout_s: 60, memory_mb: 2048}}
    seed: {seed}
"""

STATEMENT = """# {title}

*Course step {step}*

## Why it matters

TODO: the idea this task practises, in two or three sentences.

## Your task

Write `{id}(x)`: TODO what it returns.

**Example:** `x = [1, 2]` returns TODO.

## Pitfalls

- TODO: the mistake most learners make, and why it is one.

## What the judge checks

- **examples**: the example above.
- **property**: generated inputs (empty ones included) compared with the reference.
"""

STARTER = """import jax
import jax.numpy as jnp


def {id}(x):
    raise NotImplementedError("write {id}")
"""

REFERENCE = """import jax
import jax.numpy as jnp


def {id}(x):
    # TODO: the reference solution, written the way the course teaches it.
    raise NotImplementedError("the reference for {id} is not written yet")
"""

KNOWN = """# expect: wrong_answer via property
# why: TODO: a plausible mistake the checks must catch; add several, each labelled.
import jax.numpy as jnp


def {id}(x):
    return jnp.zeros_like(x)
"""


BANK_YAML = """# A jax-judge task bank: tasks.yaml (every task's metadata), tasks/<id>/ (statement,
# starter, hints, known submissions) and reference/<id>.py (the reference solutions).
# Add a task:    judge --bank {root} new TASK_ID --step N --title "..."
# Prove it:      judge --bank {root} validate
# docs/tasks-yaml.md in jax-judge explains every field.
course: {course}
steps: {{}}                      # step number -> title, for `judge list`
tasks:
"""


def yaml_string(text: str) -> str:
    """``text`` as a YAML scalar that loads back as the same string: quoted, so that
    ``: ``, `` #`` and a leading ``*`` or ``[`` stay part of it."""
    return json.dumps(text, ensure_ascii=False)


def init_bank(root: Path, course: str) -> list[Path]:
    """An empty bank at ``root`` (created; an existing tasks.yaml is left alone)."""
    root = Path(root)
    if (root / "tasks.yaml").exists():
        raise ScaffoldError(f"{root / 'tasks.yaml'} already exists; nothing was changed")
    made = []
    for folder in (root / "tasks", root / "reference"):
        folder.mkdir(parents=True, exist_ok=True)
        made.append(folder)
    with open(root / "tasks.yaml", "x", encoding="utf-8") as f:
        f.write(BANK_YAML.format(root=root, course=yaml_string(course)))
    load_bank(root)  # what it wrote must load
    return [root / "tasks.yaml"] + made


def create_task(bank: Bank, task_id: str, step: int, title: str) -> list[Path]:
    if installed_with_the_package(bank.root):
        raise ScaffoldError(
            f"the bank in use ({bank.root}) is the one installed with jax-judge, and the next "
            "install or upgrade replaces it: your task would be lost. Start a bank of your "
            "own with `judge init DIR`, then `judge --bank DIR new ...` (or set JUDGE_BANK=DIR)"
        )
    if not TASK_ID.match(task_id):
        raise ScaffoldError(
            f"'{task_id}' is not a valid Python identifier (letters, digits, underscores)"
        )
    if task_id in bank.tasks:
        raise ScaffoldError(f"task '{task_id}' already exists in {bank.file}")
    folder = bank.root / "tasks" / task_id
    reference = bank.root / "reference" / f"{task_id}.py"
    for path in (folder, reference):
        if path.exists():
            raise ScaffoldError(f"{path} already exists; nothing was changed")
    values = {
        "id": task_id,
        "title": title,
        "title_yaml": yaml_string(title),
        "step": step,
        "seed": 1000 + step,
    }
    original = bank.file.read_text(encoding="utf-8")
    with open(bank.file, "a", encoding="utf-8") as f:
        f.write(("" if original.endswith("\n") else "\n") + ENTRY.format(**values))
    try:
        load_bank(bank.root)
    except BankError as exc:
        bank.file.write_text(original, encoding="utf-8")
        raise ScaffoldError(
            f"the new entry would not load ({exc}); tasks.yaml is unchanged. "
            "Is `tasks:` the last key of the file?"
        ) from None
    made = []
    for path, template in (
        (folder / "statement.md", STATEMENT),
        (folder / "starter.py", STARTER),
        (folder / "known" / "returns_zeros.py", KNOWN),
        (reference, REFERENCE),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as f:
            f.write(template.format(**values))
        made.append(path)
    return [bank.file] + made
