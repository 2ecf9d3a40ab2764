"""Argument specs -> hypothesis strategies: edges always there, few distinct shapes.

Here: the tests that start a worker or a `judge` process; tests/unit/test_specs.py has the
rest."""

import os

from helpers import ROOT

DRAW = """
import hashlib, sys
sys.path.insert(0, sys.argv[1])
import local_module                 # hypothesis would mine a local module's constants
from judge.bank import load_bank
from judge.runner import Grading, args_key
for task_id in sys.argv[2:]:
    task = load_bank().get(task_id)
    check = next(c for c in task.checks if c.kind == "property")
    drawn = check.prepare(Grading(task, "x.py"))
    print(task_id, hashlib.sha256("".join(args_key(a) for a in drawn).encode()).hexdigest())
"""


def test_a_seed_draws_the_same_inputs_in_every_process(tmp_path):
    """Same task and seed, same inputs: whatever the process's hash seed, addresses, or
    local modules (hypothesis mixes constants from local modules' source into its draws,
    and groups what it mutates by strategy labels that can hash addresses)."""
    import os
    import subprocess
    import sys

    root = ROOT
    script = tmp_path / "draw.py"
    script.write_text(DRAW)
    digests = []
    for i, constants in enumerate(["", "VALUES = [12.5, -33.25, 7.75, 41.0, 3, 17, 29]\n"] * 2):
        local = tmp_path / f"local{i}"
        local.mkdir()
        (local / "local_module.py").write_text(constants)
        env = dict(os.environ, PYTHONPATH=str(root), PYTHONHASHSEED=str(i))
        out = subprocess.run(
            [sys.executable, str(script), str(local), "cache_independent_count", "tree_sgd"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        digests.append(out.stdout)
    assert len(digests[0].splitlines()) == 2
    assert digests == [digests[0]] * 4


def test_hypothesis_plugins_of_other_packages_do_not_run(tmp_path):
    """A package may register a plugin that runs when hypothesis is imported (trio does:
    it imports trio and pytest); the judge's draws must not depend on what else is
    installed, so the judge imports hypothesis without them."""
    import subprocess
    import sys

    dist = tmp_path / "spy_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: spy-plugin\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[hypothesis]\nspy = spy_plugin:_hypothesis_setup_hook\n"
    )
    (tmp_path / "spy_plugin.py").write_text(
        "import os\ndef _hypothesis_setup_hook():\n    open(os.environ['SPY'], 'w').close()\n"
    )
    marker = tmp_path / "plugin-ran"
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "SPY": str(marker)}
    env.pop("HYPOTHESIS_NO_PLUGINS", None)
    plain = subprocess.run([sys.executable, "-c", "import hypothesis"], env=env)
    assert plain.returncode == 0 and marker.exists(), "the spy plugin is not installed right"
    marker.unlink()
    judged = subprocess.run(
        [
            sys.executable,
            "-c",
            "from judge.specs import import_hypothesis, st\n"
            "import_hypothesis(); st.integers()\nimport os\n"
            "assert 'HYPOTHESIS_NO_PLUGINS' not in os.environ",
        ],
        env=env,
    )
    assert judged.returncode == 0
    assert not marker.exists()
