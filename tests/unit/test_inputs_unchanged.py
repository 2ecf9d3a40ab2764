"""A function that changes its caller's arguments in place answers wrongly, whatever it
returns (judge/worker/main.py: _Arguments, checked after every call)."""

import numpy as np
import pytest

from judge.worker import wire
from judge.worker.main import _Arguments, _to_argument
from judge.worker.wire import Leaf


def arguments(*values, names=("x", "y")):
    """The arguments as the worker hands them to the learner: through the wire."""
    blobs: list[bytes] = []
    nodes = [wire.encode(v, blobs) for v in values]
    return _Arguments([_to_argument(wire.decode(n, blobs)) for n in nodes], {}, list(names))


def test_a_numpy_array_changed_in_place_is_named_with_the_element():
    a = arguments(Leaf(np.array([2.0, 3.0, 5.0], np.float32), "numpy"))
    x = a.args[0]
    x -= x[0]
    message = a.changed()
    assert message.startswith(
        "your function changed its argument `x` (a NumPy array) in place: "
        "x[0] was 2.0 before the call and 0.0 after"
    )
    assert "x -= x[0]" in message


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda v: v.sort(), "x[0] was 3.0 before the call and 1.0 after"),
        (lambda v: v.append(1.0), "it had 3 items and has 4 after"),
    ],
)
def test_a_list_changed_in_place(mutate, words):
    a = arguments([3.0, 1.0, 2.0])
    mutate(a.args[0])
    assert f"your function changed its argument `x` (a list) in place: {words}" in a.changed()


def test_a_dict_losing_a_key_and_an_array_inside_a_tuple():
    a = arguments(
        {"w": Leaf(np.ones(2, np.float32), "numpy"), "b": 1.0}, (Leaf(np.zeros(3), "numpy"),)
    )
    a.args[0].pop("b")
    assert "`x` (a dict) in place: its keys were ['w', 'b'] and are ['w'] after" in a.changed()
    b = arguments((Leaf(np.zeros(3), "numpy"),), names=("pair",))
    b.args[0][0][2] = 7.0
    assert (
        "`pair[0]` (a NumPy array) in place: pair[0][2] was 0.0 before the call and 7.0 after"
        in b.changed()
    )


def test_untouched_arguments_and_rebinding_are_fine():
    a = arguments(Leaf(np.array([1.0, np.nan]), "numpy"), [1.0, float("nan")])
    x, y = a.args
    x = x - 1.0  # a new array: the caller's is untouched
    y = sorted(y)
    assert a.changed() is None
