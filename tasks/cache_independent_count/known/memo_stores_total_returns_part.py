# expect: wrong_answer via examples, property
# why: memoises each input's answer to skip work, but returns the partial sum it had
# before adding x_b; only a repeat of the same input gets the stored total. The first
# answer for an input is wrong, the second right: a function whose answer for the same
# input changes from call to call.
import jax
import jax.numpy as jnp

_memo = {}


@jax.jit
def _sum(x):
    return jnp.sum(x)


def cache_independent_count(x_a, x_b):
    key = (x_a.shape, x_b.shape, bytes(memoryview(x_a)), bytes(memoryview(x_b)))
    if key in _memo:
        return _memo[key]
    partial = _sum(x_a)
    _memo[key] = partial + _sum(x_b)
    return partial
