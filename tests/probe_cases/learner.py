"""A learner-like module for tests/test_probe.py.

Each ``scenario_*`` function is run alone in a fresh process by run_case.py, because
jax's caches are global and keyed on objects such as ``jnp.sum``.  ``call(label, fn,
*args)`` runs one probed call.  Tests find lines by the ``# L:name`` markers.
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

LENGTHS = (8, 16, 32, 8)

sum_jit = jax.jit(jnp.sum)


def entry_module_level(x):
    return sum_jit(x)


def entry_fresh_wrapper(x):
    return jax.jit(jnp.sum)(x)  # L:fresh_wrapper


def entry_fresh_lambda(x):
    return jax.jit(lambda v: jnp.sum(v))(x)  # L:fresh_lambda


def scaled_sum(k, v):  # L:scaled_sum
    return k * jnp.sum(v)


def entry_fresh_partial(x):
    return jax.jit(partial(scaled_sum, 2.0))(x)


def make_step(scale):
    def inner(v):  # L:inner
        return jnp.sum(v) * scale
    return inner


def entry_factory(x):
    return jax.jit(make_step(2.0))(x)


@jax.jit
def scale(x, s):
    return x * s


@jax.jit
def pair_sum(t):
    if isinstance(t, dict):
        return t["a"] + t["b"]
    return t[0] + t[1]


@partial(jax.jit, static_argnums=1)
def power_sum(x, degree):
    return jnp.sum(x ** degree)


helper_jit = jax.jit(lambda v: jnp.sum(v))


@jax.jit
def outer(v):
    return helper_jit(v) * 2


def entry_eager_add(a, b):
    return sum_jit(a) + sum_jit(b)  # L:eager_add


@jax.jit
def weighted(x_a, w):
    return jnp.sum(x_a) * w


warm_jit = jax.jit(lambda v: v * 2)
WARMED = warm_jit(np.ones(2, np.float32))  # a learner compile while importing


def _ones(n):
    return np.ones(n, np.float32)


def _over_lengths(entry):
    """A scenario: ``entry`` called on LENGTHS, new and repeated lengths."""
    def scenario(call):
        for n in LENGTHS:
            call("retrace", entry, _ones(n))
    return scenario


scenario_module_level = _over_lengths(entry_module_level)
scenario_fresh_wrapper = _over_lengths(entry_fresh_wrapper)
scenario_fresh_lambda = _over_lengths(entry_fresh_lambda)
scenario_fresh_partial = _over_lengths(entry_fresh_partial)
scenario_factory = _over_lengths(entry_factory)


def scenario_strong_then_weak(call):
    x = _ones(8)
    for s in (jnp.float32(2.0), 2.0, jnp.float32(3.0), 3.0):
        call("retrace", scale, x, s)


def scenario_seed_chapter(call):
    x = jnp.ones(4)
    for s in (jnp.float32(2.0), jnp.float32(2.0), np.float32(2.0), 2.0, 2):
        call("retrace", scale, x, s)


def scenario_pytrees(call):
    x = _ones(3)
    for t in ((x, x), [x, x], {"a": x, "b": x}, {"b": x, "a": x}):
        call("retrace", pair_sum, t)


def scenario_static(call):
    x = _ones(4)
    for degree in (3, 3, 5):
        call("retrace", power_sum, x, degree)


def scenario_nested_helper(call):
    call("retrace", outer, _ones(4))
    call("retrace", helper_jit, _ones(4))


def scenario_eager_add(call):
    call("retrace", entry_eager_add, _ones(4), _ones(4))


def scenario_named_argument(call):
    for n in (8, 16):
        call("retrace", weighted, _ones(n), 1.0)


def scenario_numpy_scalar(call):
    x = jnp.ones(4)
    for s in (jnp.float32(2.0), jnp.float32(2.0), np.float32(2.0)):
        call("retrace", scale, x, s)


def scenario_cleared(call):
    call("retrace", entry_module_level, _ones(8))
    jax.clear_caches()
    call("retrace", entry_module_level, _ones(8))


def scenario_transforms(call):
    call("retrace", jax.vmap(sum_jit), np.ones((3, 4), np.float32))
    call("retrace", jax.grad(lambda w: jnp.sum(w * w)), _ones(4))


def entry_tree_map_partial(tree, factor):
    return jax.tree.map(jax.jit(partial(jnp.multiply, factor)), tree)  # L:tree_map_partial


def entry_exec_jit(tree):
    namespace = {"jax": jax}
    exec("double = jax.jit(lambda v: v * 2)", namespace)  # L:exec_jit
    return jax.tree.map(namespace["double"], tree)


def entry_private_jit(x):
    from jax._src import api as _api
    return jax.tree.map(_api.jit(partial(jnp.sum)), x)  # L:private_jit


def entry_private_pjit(x):
    from jax._src import pjit as _pjit
    return jax.tree.map(_pjit.pjit(partial(jnp.sum)), x)  # L:private_pjit


def entry_jit_built_by_tree_map(x):
    from jax._src import api as _api
    (built,) = jax.tree.map(_api.jit, [partial(jnp.sum)])  # L:jit_built_by_tree_map
    return jax.tree.map(built, x)


def entry_eager_fori(x, c):
    return lax.fori_loop(0, 3, lambda i, v: v + c, x)  # L:eager_fori


def _add_one(i, v):
    return v + 1.0


def entry_eager_fori_fixed(x):
    return lax.fori_loop(0, 3, _add_one, x)


def entry_library(x):
    return jnp.clip(x, 0, 1) + jax.nn.relu(x) + jnp.cumsum(x)


def scenario_tree_map_partial(call):
    for factor in (2.0, 3.0, 2.0):
        call("retrace", entry_tree_map_partial, {"a": _ones(4), "b": _ones(4)}, factor)


def scenario_exec_jit(call):
    for _ in range(3):
        call("retrace", entry_exec_jit, [_ones(4)])


def scenario_private_jit(call):
    for _ in range(3):
        call("retrace", entry_private_jit, _ones(4))


def scenario_private_pjit(call):
    for _ in range(3):
        call("retrace", entry_private_pjit, _ones(4))


def scenario_jit_built_by_tree_map(call):
    for _ in range(3):
        call("retrace", entry_jit_built_by_tree_map, _ones(4))


def scenario_eager_fori(call):
    for c in (1.0, 2.0, 3.0):
        call("retrace", entry_eager_fori, _ones(4), c)


def scenario_eager_fori_fixed(call):
    for _ in range(3):
        call("retrace", entry_eager_fori_fixed, _ones(4))


def scenario_library(call):
    for _ in range(3):
        call("retrace", entry_library, _ones(4))
