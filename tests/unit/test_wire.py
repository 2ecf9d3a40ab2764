"""The channel's value codec: exact round trips, and untrusted bytes refused."""

import threading

import ml_dtypes
import numpy as np
import pytest

from judge.worker import wire

ARRAYS = [
    np.float32(3),
    np.zeros((0,), np.float32),
    np.arange(6.0).reshape(2, 3),
    np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    np.array([True, False]),
    np.ones((2, 3, 4), np.int8),
    np.array([1 + 2j], np.complex64),
    np.array([1.5, np.nan], ml_dtypes.bfloat16),
    np.arange(5, dtype=np.uint32),
    np.ones((1,) * 10, np.float16),
]


@pytest.mark.parametrize("arr", ARRAYS, ids=lambda a: f"{np.asarray(a).dtype}{np.shape(a)}")
def test_arrays_round_trip_exactly(arr):
    arr = np.asarray(arr)
    name, data = wire.array_to_npy(arr)
    back = wire.npy_to_array(data, name)
    assert back.dtype == arr.dtype and back.shape == arr.shape
    assert back.tobytes() == np.ascontiguousarray(arr).tobytes()


def test_value_trees_round_trip():
    blobs = []
    value = {
        "a": (1, 2.5, float("inf")),
        "b": [wire.Leaf(np.ones(2, np.float32), "jax", True), None, "text", np.float32(2)],
    }
    back = wire.decode(wire.encode(value, blobs), blobs)
    assert back["a"] == (1, 2.5, float("inf")) and back["b"][1:3] == [None, "text"]
    leaf = back["b"][0]
    assert leaf.kind == "jax" and leaf.weak and leaf.array.dtype == np.float32
    assert back["b"][3].kind == "npscalar"


@pytest.mark.parametrize(
    "forge",
    [
        lambda d: d.replace(b"(3,)", b"(99999999999,)"),  # a huge claimed shape
        lambda d: d.replace(b"'<f4'", b"'|O8'"),  # an object array
        lambda d: d[:-4],  # bytes missing
        lambda d: b"\x93NUMPY\x09\x00" + d[8:],  # unknown version
        lambda d: d.replace(b"'fortran_order'", b"'fortran_orderx'"),
    ],
)
def test_forged_npy_is_refused_before_allocating(forge):
    name, data = wire.array_to_npy(np.ones(3, np.float32))
    with pytest.raises(wire.WireError):
        wire.npy_to_array(forge(data), name)


def test_decode_refuses_malformed_nodes():
    for node in (
        {"t": "array", "i": 5, "dtype": "float32", "kind": "jax"},
        {"t": "int", "v": "1"},
        {"t": "dict", "k": [1], "v": [{"t": "none"}]},
        {"t": "nope"},
        [1],
    ):
        with pytest.raises(wire.WireError):
            wire.decode(node, [])


def test_parsing_from_threads_at_once():
    name, data = wire.array_to_npy(np.ones((4, 4), np.float32))
    errors = []

    def work():
        try:
            for _ in range(500):
                wire.npy_to_array(data, name)
        except Exception as exc:  # noqa: BLE001 - any failure is the finding
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
