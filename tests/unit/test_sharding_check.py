"""The sharding check: layouts are the same when the same parts land on the same
devices, whatever the spelling; the message says both in words.

Here: the tests that start no process; tests/integration/test_sharding_check.py has those that
grade in a worker."""

from __future__ import annotations

import numpy as np
import pytest

from judge.checks.sharding import describe, difference, same_layout
from judge.worker.wire import Leaf


def layout(blocks, spec=None, axes=("data",), sizes=(8,)):
    out = {"shards": [[d, [list(b) for b in bl]] for d, bl in blocks], "platform": "cpu"}
    if spec is not None:
        out["mesh"] = {"axes": list(axes), "sizes": list(sizes), "types": ["explicit"] * len(axes)}
        out["spec"] = spec
    return out


ROWS = layout([(d, [(2 * d, 2 * d + 2), (0, 3)]) for d in range(8)], [["data"], []])
ROWS_OTHER_SPELLING = layout([(d, [(2 * d, 2 * d + 2), (0, 3)]) for d in range(8)])
WHOLE = layout([(d, [(0, 16), (0, 3)]) for d in range(8)], [[], []])
ONE = layout([(0, [(0, 16), (0, 3)])])
BACKWARDS = layout([(7 - d, [(2 * d, 2 * d + 2), (0, 3)]) for d in range(8)], [["data"], []])


def leaf(sharding, shape=(16, 3)):
    return Leaf(np.zeros(shape, np.float32), "jax", sharding=sharding)


def test_the_same_parts_on_the_same_devices_are_the_same_layout_however_spelled():
    assert same_layout(ROWS, ROWS_OTHER_SPELLING, (16, 3))
    assert difference(leaf(ROWS_OTHER_SPELLING), leaf(ROWS)) is None
    assert not same_layout(ROWS, WHOLE, (16, 3)) and not same_layout(ROWS, BACKWARDS, (16, 3))


def test_an_empty_array_lands_nowhere_so_every_layout_of_it_is_the_same():
    empty_rows = layout([(d, [(0, 0), (0, 3)]) for d in range(8)], [["data"], []])
    assert difference(leaf(ONE, (0, 3)), leaf(empty_rows, (0, 3))) is None
    assert (
        describe(empty_rows, (0, 3))
        == "an empty array (rows split over the 8 devices of axis `data`)"
    )


@pytest.mark.parametrize(
    "mine, words",
    [
        (
            WHOLE,
            "your result has every device holding the whole array (replicated on 8 devices); "
            "expected rows split over the 8 devices of axis `data`",
        ),
        (ONE, "your result has one device (device 0) holding the whole array; expected rows split"),
        (
            BACKWARDS,
            "as expected, but its blocks are on other devices: device 0 rows 14-15, "
            "device 1 rows 12-13, device 2 rows 10-11, ...; the reference's: device 0 rows 0-1",
        ),
    ],
)
def test_the_message_says_both_layouts_in_words(mine, words):
    assert words in difference(leaf(mine), leaf(ROWS))


def test_a_host_array_or_a_number_is_on_no_device():
    message = difference(Leaf(np.zeros((16, 3), np.float32), "numpy"), leaf(ROWS))
    assert "NumPy array of shape (16, 3), which lives on the host" in message
    assert "lives on the host" in difference(
        3.0, Leaf(np.zeros((), np.float32), "jax", sharding=layout([(0, [])]))
    )


def test_blocks_on_several_devices_each_say_how_many_copies():
    two_axes = layout(
        [(d, [(4 * (d // 2), 4 * (d // 2) + 4), (0, 3)]) for d in range(8)],
        [["a"], []],
        axes=("a", "b"),
        sizes=(4, 2),
    )
    assert (
        describe(two_axes, (16, 3))
        == "rows split over the 4 devices of axis `a`, each block on 2 devices"
    )
    cols = layout([(d, [(0, 16), (d, d + 1)]) for d in range(8)])
    assert describe(cols, (16, 8)) == "columns split in 8 blocks"


# ---------------------------------------------------------------- graded
