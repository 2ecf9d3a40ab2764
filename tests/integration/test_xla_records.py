"""A learner's xla_dump_* compiler options cannot move XLA's compile records away from
the folder the judge watches (judge/worker/xla_records.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT, run_judge
from helpers.isolation_modes import MODES

ROUTES = """
import jax, jax.numpy as jnp
jax.devices()
from judge.worker.xla_records import pin_dumps
pin_dumps()
elsewhere = {"xla_dump_to": ELSEWHERE, "xla_enable_dumping": "false"}
jax.jit(lambda a: jnp.sum(a) * 3, compiler_options=elsewhere)(jnp.ones(3))
jax.jit(lambda a: jnp.sum(a) * 4).lower(jnp.ones(3)).compile(elsewhere)
from jax._src import api
api.jit(lambda a: jnp.sum(a) * 5, compiler_options={"xla_dump_hlo_module_re": "nothing"})(jnp.ones(3))
"""


def test_dump_options_of_every_route_are_overridden(tmp_path):
    watched, elsewhere = tmp_path / "watched", tmp_path / "elsewhere"
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={watched}", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", ROUTES.replace("ELSEWHERE", repr(str(elsewhere)))],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    records = [n for n in os.listdir(watched) if n.endswith(".before_optimizations.txt")]
    assert sum("lambda" in n for n in records) == 3, records
    assert not elsewhere.exists()


@pytest.mark.slow
@pytest.mark.parametrize("mode", MODES)
def test_a_jit_dumping_elsewhere_under_blinded_instruments_is_tampering(mode):
    known = ROOT / "tasks" / "cache_independent_count" / "known" / "review_blind_all_instruments.py"
    proc = run_judge(
        "run",
        "cache_independent_count",
        known,
        "--format",
        "json",
        "--isolation",
        mode,
        "--examples",
        "30",
    )
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    report = json.loads(proc.stdout)
    assert report["verdict"] == "runtime_error"
    instruments = next(c for c in report["checks"] if c["id"] == "instruments")
    assert "XLA compiled" in instruments["message"], instruments
