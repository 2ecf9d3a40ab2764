"""Puts the public part of the bank into the wheel, as ``judge/_bank/``: tasks.yaml and,
for every task, the files a learner may read (judge.bank.PUBLIC_TASK_FILES).

The wheel is what a learner installs to call ``check()`` from a notebook, so it must
hold no reference solution, no known submission and nothing else an author keeps beside
a task: the files are chosen by name, never by copying a folder (an author's stray file
in ``tasks/<id>/`` stays out too).  The full bank stays in the repository checkout, for
the instructor's `judge --bank DIR` (README, "Two installs").  tests/test_public_bank.py
checks the built wheel holds exactly these files.
"""

from __future__ import annotations

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# The same names as judge.bank.PUBLIC_TASK_FILES (this hook runs where the judge's own
# dependencies are not installed, so it cannot import them); the test compares the two.
PUBLIC_TASK_FILES = ("statement.md", "starter.py", "hints.md")


class PublicBankHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        shipped = build_data.setdefault("force_include", {})
        shipped[str(root / "tasks.yaml")] = "judge/_bank/tasks.yaml"
        for folder in sorted((root / "tasks").iterdir()):
            for name in PUBLIC_TASK_FILES:
                path = folder / name
                if path.is_symlink():  # what it points at could be a reference
                    raise ValueError(
                        f"{path.relative_to(root)} is a symbolic link: the "
                        "wheel ships a task's public files themselves, never "
                        "what a link points at; put the file itself there"
                    )
                if path.is_file():
                    shipped[str(path)] = f"judge/_bank/tasks/{folder.name}/{name}"
