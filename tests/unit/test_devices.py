"""Tasks on several devices: `devices: N` workers, arguments placed on a mesh, results
that say what landed on each device.

Here: the tests that start no process; tests/integration/test_devices.py has those that
grade in a worker."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from judge.bank import BankError, load_bank
from judge.specs import Dim, draw_size
from judge.worker import wire

MESH = {"mesh": {"axes": ["data"], "sizes": [8], "types": ["explicit"]}, "spec": [["data"], []]}


# ---------------------------------------------------------------- the wire


def test_layouts_cross_the_channel_both_ways():
    blobs: list[bytes] = []
    result = dict(MESH, shards=[[0, [[0, 2], [0, 3]]], [1, [[2, 4], [0, 3]]]], platform="cpu")
    node = wire.encode([wire.Leaf(np.ones((4, 3), np.float32), "jax", sharding=result)], blobs)
    back = wire.decode(node, blobs)[0]
    assert back.sharding == result
    assert wire.decode(wire.encode(np.ones(2), blobs), blobs).sharding is None


@pytest.mark.parametrize(
    "layout",
    [
        {"mesh": {"axes": ["data"], "sizes": [8]}},  # no types
        {"mesh": {"axes": ["data"], "sizes": [0], "types": ["explicit"]}},  # 0 devices
        {"mesh": {"axes": ["da ta"], "sizes": [8], "types": ["explicit"]}},  # not a name
        dict(MESH, spec=[["other"]]),  # unknown axis
        {"shards": [[0, [[3, 1]]]]},  # stop < start
        {"shards": [[0, [[0, 2]]]] * (wire.MAX_SHARDS + 1)},  # too many
        {"shards": [[True, [[0, 2]]]]},  # a bool id
        {"extra": 1},
    ],
)
def test_forged_layouts_are_refused(layout):
    blobs: list[bytes] = []
    node = wire.encode(np.ones(2, np.float32), blobs)
    node["sharding"] = layout
    with pytest.raises(wire.WireError):
        wire.decode(node, blobs)


# ---------------------------------------------------------------- specs and tasks.yaml


def test_a_dimension_split_over_devices_takes_multiples_of_their_count():
    dim = Dim("n", 0, 64, step=8)
    assert dim.candidates() == [0, 8, 64]
    rng = np.random.default_rng(0)
    drawn = {dim.draw(rng) for _ in range(200)}
    assert drawn <= set(range(0, 65, 8)) and {0, 64} <= drawn
    plain = Dim("n", 0, 64)  # a step of one: the plain (log-uniform) draws
    mine, before = np.random.default_rng(5), np.random.default_rng(5)
    assert [plain.draw(mine) for _ in range(9)] == [draw_size(before, 0, 64) for _ in range(9)]


TASK = """
tasks:
  - id: twice
    title: twice
    step: 23
    devices: 8
    mesh: {axes: {data: 8}, axis_types: explicit}
    dims: {n: [0, 64], d: [1, 4]}
    args:
      x: {type: array, dtype: float32, shape: [n, d], sharding: [data, null]}
      s: {type: scalar, dtype: float32, sharding: []}
    result: {type: array, dtype: float32}
    examples:
      - args: {x: {$array: [[1], [2], [3], [4], [5], [6], [7], [8]], dtype: float32},
               s: {$scalar: 2.0, dtype: float32}}
    scripts:
      one: [{args: {x: {$random: {shape: [16, 2]}}, s: {$scalar: 1.0, dtype: float32}}}]
    checks:
      - {id: property, kind: property, examples: 3}
"""


def bank_with(
    tmp_path: Path, text: str = TASK, reference: str = "def twice(x, s):\n    return x * s\n"
):
    (tmp_path / "reference").mkdir(exist_ok=True)
    (tmp_path / "tasks" / "twice").mkdir(parents=True, exist_ok=True)
    (tmp_path / "reference" / "twice.py").write_text(reference)
    (tmp_path / "tasks.yaml").write_text(text)
    return load_bank(tmp_path)


def test_sharded_arguments_are_placed_everywhere_they_are_given(tmp_path):
    task = bank_with(tmp_path).get("twice")
    assert task.devices == 8 and task.mesh.axes == ("data",)
    assert task.dims["n"].step == 8 and task.dims["d"].step == 1
    want = {"mesh": {"axes": ["data"], "sizes": [8], "types": ["explicit"]}, "spec": [["data"], []]}
    assert task.examples[0].args["x"].sharding == want
    assert task.examples[0].args["s"].sharding == dict(want, spec=[])
    assert task.scripts["one"][0]["x"].sharding == want
    assert task.args["x"].sample({"n": 8, "d": 2}, {}, np.random.default_rng(0)).sharding == want


@pytest.mark.parametrize(
    "change, words",
    [
        (("    devices: 8\n", ""), "needs the task's `devices: N`"),
        (("    mesh: {axes: {data: 8}, axis_types: explicit}\n", ""), "needs the task's `mesh`"),
        (("sharding: [data, null]", "sharding: [model, null]"), "'model' is not an axis"),
        (("sharding: [data, null]", "sharding: [data]"), "rank 2"),
        (("n: [0, 64]", "n: [0, 61]"), "multiples of 8"),
        (("axis_types: explicit", "axis_types: spmd"), "an axis type is one of"),
        (("devices: 8", "devices: 4"), "need 8 devices and the task has 4"),
        (("shape: [n, d], sharding", "kind: numpy, shape: [n, d], sharding"), "only a JAX array"),
        (
            ("[[1], [2], [3], [4], [5], [6], [7], [8]]", "[[1], [2], [3]]"),
            "3 cannot be split over 8",
        ),
    ],
)
def test_mesh_mistakes_name_the_field(tmp_path, change, words):
    with pytest.raises(BankError, match=words.replace("(", r"\(").replace(")", r"\)")):
        bank_with(tmp_path, TASK.replace(*change))


# ---------------------------------------------------------------- the worker
