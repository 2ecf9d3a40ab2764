"""safe_mean, right when called, that raises when the judge's jaxpr instrument traces
it; defined through exec under another file's name, so no frame of the exception is in
the learner's file.  The failure is still the learner's, not the judge's."""
import jax

_SOURCE = '''
import jax, jax.numpy as jnp
def safe_mean(x):
    if isinstance(x, jax.core.Tracer):
        raise RuntimeError("no tracing today")
    x = jnp.asarray(x, jnp.float32)
    return jnp.where(x.size == 0, 0.0, jnp.sum(x) / max(x.size, 1)).astype(jnp.float32)
'''
exec(compile(_SOURCE, "/usr/lib/python3.11/innocent.py", "exec"), globals())
