"""Tasks on several devices: `devices: N` workers, arguments placed on a mesh, results
that say what landed on each device.

Here: the tests that start a worker or a `judge` process; tests/unit/test_devices.py has the
rest."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from judge.bank import Limits
from judge.sandbox import Worker
from judge.session import Session
from judge.worker import wire

from helpers.isolation_modes import MODES

MESH = {"mesh": {"axes": ["data"], "sizes": [8], "types": ["explicit"]}, "spec": [["data"], []]}


ROOT = Path(__file__).resolve().parents[2]


def session(tmp_path: Path, source: str, devices: int | None, isolation: str = "process"):
    """A learner's session in a worker of that isolation mode."""
    path = tmp_path / "learner.py"
    path.write_text(textwrap.dedent(source))
    s = Session(path, "learner.py", "f", Limits(), devices=devices)
    s.worker = Worker(s.limits, isolation=isolation, devices=devices)
    s.worker.start()
    return s


def sharded(n: int, d: int) -> wire.Leaf:
    return wire.Leaf(np.arange(n * d, dtype=np.float32).reshape(n, d), "jax", sharding=MESH)


@pytest.mark.parametrize("isolation", MODES)
def test_a_worker_with_devices_places_arguments_and_reports_where_results_landed(
    tmp_path, isolation
):
    s = session(
        tmp_path,
        """
        import jax

        def f(x):
            return x * 2, str(x.sharding.spec), len(x.sharding.device_set)
    """,
        8,
        isolation,
    )
    try:
        assert s.load().ok
        out = s.call({"x": sharded(16, 3)}, "call")
        assert out.ok, out.message
        doubled, spec, count = out.value
        assert (spec, count) == ("P('data', None)", 8)
        assert doubled.sharding["shards"][:2] == [[0, [[0, 2], [0, 3]]], [1, [[2, 4], [0, 3]]]]
        assert len(doubled.sharding["shards"]) == 8 and doubled.sharding["spec"] == [["data"], []]
        assert s.device_info == {"count": 8, "platform": "cpu"}
    finally:
        s.close()


def test_a_worker_without_devices_pays_nothing(tmp_path):
    s = session(
        tmp_path,
        """
        import sys
        import jax.numpy as jnp

        def f(x):
            return x + 1, any(name.endswith(".devices") for name in sys.modules if "_jj" in name)
    """,
        None,
    )
    try:
        assert s.load().ok
        out = s.call({"x": wire.Leaf(np.ones(3, np.float32), "jax")}, "call")
        value, imported = out.value
        assert not imported and value.sharding is None
        assert s.device_info == {"count": 1, "platform": "cpu"}
        placed = s.call({"x": sharded(8, 1)}, "call")  # nobody to place it: the judge's fault
        assert not placed.ok and placed.verdict == "judge_error"
    finally:
        s.close()


@pytest.mark.parametrize("isolation", MODES)
def test_a_learner_who_patches_jax_cannot_misplace_arguments(tmp_path, isolation):
    # their device_put puts everything on device 0: the worker placed with its own
    s = session(
        tmp_path,
        """
        import jax

        _put = jax.device_put
        jax.device_put = lambda x, *a, **k: _put(x, jax.devices()[0])

        def f(x):
            return x + 1
    """,
        8,
        isolation,
    )
    try:
        assert s.load().ok
        out = s.call({"x": sharded(8, 2)}, "call")
        assert out.ok, out.message
        assert len(out.value.sharding["shards"]) == 8
        assert out.value.sharding["shards"][7] == [7, [[7, 8], [0, 2]]]
    finally:
        s.close()


@pytest.mark.parametrize("isolation", MODES)
def test_a_learner_who_breaks_jaxs_placement_gets_a_runtime_error_not_a_fake_layout(
    tmp_path, isolation
):
    # every sharding now claims device 0 holds all: placing arguments runs their code,
    # so the failure is theirs, and no layout is read through it
    s = session(
        tmp_path,
        """
        import jax

        def whole_on_device_0(self, shape):
            return {jax.devices()[0]: tuple(slice(None) for _ in shape)}
        jax.sharding.Sharding.devices_indices_map = whole_on_device_0
        jax.sharding.NamedSharding.devices_indices_map = whole_on_device_0

        def f(x):
            return x + 1
    """,
        8,
        isolation,
    )
    try:
        assert s.load().ok
        out = s.call({"x": sharded(8, 2)}, "call")
        assert not out.ok and out.verdict == "runtime_error", out.message
        assert "replaced part of jax" in out.message
    finally:
        s.close()


@pytest.mark.parametrize("isolation", MODES)
def test_a_learner_who_patches_jax_during_the_call_cannot_misreport_the_layout(tmp_path, isolation):
    # after the arguments are placed, their function makes every sharding claim that
    # device 0 holds everything: the worker reads layouts with what it bound at start
    s = session(
        tmp_path,
        """
        import jax

        def whole_on_device_0(self, shape):
            return {jax.devices()[0]: tuple(slice(None) for _ in shape)}

        def f(x):
            y = x + 1
            jax.sharding.Sharding.devices_indices_map = whole_on_device_0
            jax.sharding.NamedSharding.devices_indices_map = whole_on_device_0
            return y
    """,
        8,
        isolation,
    )
    try:
        assert s.load().ok
        out = s.call({"x": sharded(8, 2)}, "call")
        assert out.ok, out.message
        assert [d for d, _ in out.value.sharding["shards"]] == list(range(8))
        assert out.value.sharding["shards"][3] == [3, [[3, 4], [0, 2]]]
    finally:
        s.close()


def test_the_device_count_is_set_before_jaxs_first_operation_or_refused():
    # jax_num_cpu_devices raises when it comes too late, where XLA_FLAGS would be ignored
    code = textwrap.dedent(
        """
        import jax, jax.numpy as jnp
        sys_path = __import__("sys").path.insert(0, %r)
        from judge.worker.devices import Devices
        jnp.zeros(1)
        try:
            Devices(jax, 8)
        except RuntimeError as exc:
            print("refused:", len(jax.devices()))
    """
        % str(ROOT)
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={"JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"},
    )
    assert "refused: 1" in out.stdout, out.stderr[-2000:]
