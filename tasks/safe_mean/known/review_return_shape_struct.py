# expect: wrong_answer via examples, property
# why: review-trust: returns a jax.ShapeDtypeStruct (no value) instead of a scalar.  The
#   examples and property checks say so, but the jaxpr instrument then traces the function
#   and jax refuses the struct as a constant inside the judge's own make_jaxpr: the
#   instrument's TypeError becomes judge_error (exit 3, "not your fault"), in both modes,
#   so a batch grades it again on every rerun.  A bad return value is the learner's.
import jax
import jax.numpy as jnp


def safe_mean(x):
    return jax.ShapeDtypeStruct((), jnp.float32)
