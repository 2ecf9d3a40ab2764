"""The collectives check: reading compiled HLO, counting per kind and per trip, naming
what each collective carries, and grading submissions by what they send.

Here: the tests that start a worker or a `judge` process; tests/unit/test_collectives.py has the
rest."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge.bank import load_bank
from judge.checks.collectives import Tally
from judge.runner import grade
from judge.verdicts import Status, Verdict

from helpers.isolation_modes import MODES

PROGRAMS = """
import json, sys
import jax
jax.config.update("jax_num_cpu_devices", 8)
import jax.numpy as jnp, numpy as np
from jax import lax
from jax.sharding import NamedSharding, PartitionSpec as P

mesh = jax.make_mesh((8,), ("data",))
x = jax.device_put(np.ones((64,), np.float32), NamedSharding(mesh, P("data")))
ring = [(i, (i + 1) % 8) for i in range(8)]

def on_blocks(body):
    return lambda x: jax.shard_map(body, mesh=mesh, in_specs=P("data"), out_specs=P("data"))(x)

def unrolled(b):
    for _ in range(7):
        b = lax.ppermute(b, "data", ring)
    return b

programs = {
    "psum": on_blocks(lambda b: lax.psum(b, "data")),
    "unrolled": on_blocks(unrolled),
    "looped": on_blocks(lambda b: lax.fori_loop(0, 7, lambda i, v: lax.ppermute(v, "data", ring), b)),
    "gathered": on_blocks(lambda b: lax.all_gather(b, "data").sum(0)),
    "scattered": on_blocks(lambda b: lax.psum_scatter(jnp.tile(b, 8), "data", tiled=True)),
    "sum": lambda x: jnp.sum(x),
}
print(json.dumps({k: jax.jit(f).lower(x).compile().as_text() for k, f in programs.items()}))
"""


ROOT = Path(__file__).resolve().parents[2]


BANK = load_bank()


def submit(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "submission.py"
    path.write_text(textwrap.dedent(body))
    return path


def collectives_of(report):
    return next(c for c in report.checks if c.id == "collectives")


PSUM = """
    import jax
    from jax import lax
    from jax.sharding import PartitionSpec as P

    MESH = jax.make_mesh((8,), ("data",))


    @jax.jit
    def ring_allreduce(x):
        return jax.shard_map(lambda b: lax.psum(b, "data"), mesh=MESH, in_specs=P("data"),
                             out_specs=P("data"))(x)
"""


def test_a_psum_for_a_ring_is_inefficient_and_the_message_says_the_task_asks_for_the_ring(tmp_path):
    report = grade(BANK.get("ring_allreduce"), submit(tmp_path, PSUM))
    check = collectives_of(report)
    assert report.verdict == Verdict.INEFFICIENT, check.message
    assert "1 all-reduce where the budget is 0" in check.message
    assert "from lax.psum at line 11" in check.message and "asks for the ring" in check.message
    assert check.details["mine"]["counts"]["all-reduce"] == 1
    assert check.details["reference"]["counts"]["collective-permute"] == 7


@pytest.mark.parametrize("isolation", MODES)
def test_a_learner_who_patches_jax_cannot_hide_what_their_program_sends(
    tmp_path, isolation, monkeypatch
):
    # jax.jit, Lowered.compile and Compiled.as_text replaced at import: the instrument
    # bound its own in setup, before the file ran
    monkeypatch.setenv("JUDGE_ISOLATION", isolation)  # what the learner's worker gets
    report = grade(
        BANK.get("ring_allreduce"),
        submit(
            tmp_path,
            PSUM
            + """
    import jax.stages
    _jit = jax.jit
    jax.stages.Compiled.as_text = lambda self: "HloModule nothing"
    jax.stages.Lowered.compile = lambda self, *a, **k: None
    """,
        ),
    )
    assert report.isolation == isolation
    assert report.verdict == Verdict.INEFFICIENT, collectives_of(report).message
    assert collectives_of(report).details["mine"]["counts"]["all-reduce"] == 1


def test_a_function_that_needs_the_host_is_a_gather_through_the_host(tmp_path):
    report = grade(
        BANK.get("col_mean"),
        submit(
            tmp_path,
            """
        import jax
        import numpy as np
        from jax.sharding import NamedSharding, PartitionSpec as P

        MESH = jax.make_mesh((8,), ("data",))


        def col_mean(x):
            m = np.asarray(x).sum(axis=0) / max(x.shape[0], 1)
            return jax.device_put(m.astype(np.float32), NamedSharding(MESH, P()))
    """,
        ),
    )
    check = collectives_of(report)
    assert report.verdict == Verdict.INEFFICIENT, check.message
    assert "values on the host at line 10" in check.message
    assert "TracerArrayConversionError" in check.message


def test_the_learners_own_error_under_jit_is_their_runtime_error(tmp_path):
    # it raises only when traced: the value checks pass, the instrument meets the error
    report = grade(
        BANK.get("col_mean"),
        submit(
            tmp_path,
            """
        import jax
        import jax.numpy as jnp

        def col_mean(x):
            if isinstance(x, jax.core.Tracer):
                raise ValueError("no tracing for me")
            return jnp.sum(x, axis=0) / max(x.shape[0], 1)
    """,
        ),
    )
    check = collectives_of(report)
    assert report.verdict == Verdict.RUNTIME_ERROR
    assert check.status == Status.ERROR and check.verdict == Verdict.RUNTIME_ERROR
    assert "no tracing for me" in check.message and "compiles your whole function" in check.message


def test_a_reference_without_a_compiled_program_is_the_tasks_fault(tmp_path):
    import shutil

    import yaml

    data = yaml.safe_load((ROOT / "tasks.yaml").read_text())
    data["tasks"] = [t for t in data["tasks"] if t["id"] == "col_mean"]
    data["tasks"][0]["checks"] = [c for c in data["tasks"][0]["checks"] if c["id"] == "collectives"]
    (tmp_path / "bank" / "reference").mkdir(parents=True)
    shutil.copytree(ROOT / "tasks" / "col_mean", tmp_path / "bank" / "tasks" / "col_mean")
    (tmp_path / "bank" / "tasks.yaml").write_text(yaml.safe_dump(data))
    (tmp_path / "bank" / "reference" / "col_mean.py").write_text(
        textwrap.dedent("""
        import numpy as np, jax
        def col_mean(x):
            return jax.numpy.asarray(np.asarray(x).mean(axis=0))
    """)
    )
    task = load_bank(tmp_path / "bank").get("col_mean")
    report = grade(task, ROOT / "tasks" / "col_mean" / "known" / "gather_first.py")
    assert report.verdict == Verdict.JUDGE_ERROR, collectives_of(report).message
    assert "the task is at fault" in collectives_of(report).message


@pytest.fixture(scope="module")
def compiled_programs():
    out = subprocess.run(
        [sys.executable, "-c", PROGRAMS],
        capture_output=True,
        text=True,
        timeout=300,
        env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout)


@pytest.mark.parametrize(
    "name, kind, count",
    [
        ("psum", "all-reduce", 1),
        ("unrolled", "collective-permute", 7),
        ("looped", "collective-permute", 7),
        ("gathered", "all-gather", 1),
        ("scattered", "reduce-scatter", 1),
        ("sum", "all-reduce", 1),
    ],
)
def test_what_jax_compiles_today_reads_as_measured(compiled_programs, name, kind, count):
    # fails when the pinned jax's compiled text changes shape under the reader
    tally = Tally.of({"hlo": compiled_programs[name]})
    assert tally.counts[kind] == count, tally.details()
    assert sum(tally.counts.values()) == count
    assert all(s.sources == ["x"] for s in tally.sites), tally.details()
