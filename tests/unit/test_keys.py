"""Random keys as arguments: the ``key`` spec type and the ``$key`` literal.  A key crosses
the channel as its raw threefry2x32 data and reaches the function as the typed key
``jax.random.key(seed)`` would be; its bits are not data (no tolerance scales with them).

Here: the tests that start no process; tests/integration/test_keys.py has those that
grade in a worker."""

from __future__ import annotations

import numpy as np
import pytest

from judge.bank import BankError
from judge.compare import Tolerance
from judge.specs import Inputs, key_leaf
from judge.values import display, numeric_leaves, render
from judge.worker import wire

from helpers.keys_bank import BANK, bank_with


def test_a_key_is_its_seed_as_jax_stores_it():
    leaf = key_leaf(42)
    assert leaf.kind == "key" and leaf.array.dtype == np.uint32
    assert leaf.array.tolist() == [0, 42]  # what jax.random.key_data(jax.random.key(42)) gives
    assert render(leaf) == "jax.random.key(42)"
    assert display(leaf) == {"kind": "key", "key": "jax.random.key(42)"}


def test_keys_cross_the_channel_and_scale_no_tolerance():
    blobs: list[bytes] = []
    node = wire.encode({"key": key_leaf(2**31 - 1), "x": 1.0}, blobs)
    back = wire.decode(node, blobs)
    assert back["key"].kind == "key" and back["key"].array.tolist() == [0, 2**31 - 1]
    # a key's bits are not data: only x scales the tolerance
    assert [a.tolist() for a in numeric_leaves(back)] == [1.0]
    atol, _ = Tolerance(mode="elementwise").bounds(np.dtype("float32"), numeric_leaves(back))
    assert atol == pytest.approx(8 * np.finfo(np.float32).eps)


def test_drawn_keys_are_seeded_and_within_the_declared_seeds(tmp_path):
    task = bank_with(tmp_path, ", values: [5, 9]").get("noisy")
    inputs = Inputs(task.args, task.dims)
    pool = inputs.pool(task.seed, 8)
    first = [inputs.sample(a, np.random.default_rng(1))["key"].array.tolist() for a in pool]
    again = [inputs.sample(a, np.random.default_rng(1))["key"].array.tolist() for a in pool]
    assert first == again
    assert all(hi == 0 and 5 <= lo <= 9 for hi, lo in first)


@pytest.mark.parametrize(
    "fields, body, words",
    [
        (", values: [-1, 3]", BANK, "seeds are integers"),
        ("", BANK.replace("{$key: 42}", "{$key: -2}"), "a key's seed"),
        ("", BANK.replace("{$key: 42}", "{$key: 42, dtype: uint32}"), "dtype"),
    ],
)
def test_bad_keys_are_named(tmp_path, fields, body, words):
    with pytest.raises(BankError, match=words):
        bank_with(tmp_path, fields, body)
