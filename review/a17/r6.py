# target 3: an odd return value (jax.ShapeDtypeStruct((), jnp.float32)); must be a verdict for the learner, never judge_error
import numpy as np, jax, jax.numpy as jnp
class Evil:
    def __array__(self, *a, **k): raise SystemExit("bye")
    def __float__(self): return 2.5
    def __eq__(self, o): return True
    def __reduce__(self): return (print, ("pickled",))
class Sub(np.ndarray):
    def __eq__(self, o): return np.True_
class RecursionList(list):
    def __iter__(self): return iter([self])
    def __len__(self): return 1
def safe_mean(x):
    return jax.ShapeDtypeStruct((), jnp.float32)
