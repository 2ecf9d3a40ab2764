# expect: inefficient via sync; examples passed, property passed
# why: the whole loop runs in NumPy inside a ctypes function registered as an XLA custom-call target (jax.ffi.register_ffi_target, ffi_call): a host callback that the sync counter (which wraps only jax's own callback impls) never sees, found by review-perf; counted since: every compiled program is read for custom-call targets jax did not register
# dodge: host_callback
import ctypes
import numpy as np
import jax
import jax.numpy as jnp

_PROTO = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_new = ctypes.pythonapi.PyCapsule_New
_new.restype = ctypes.py_object
_new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
_keep = {}


def _target(n):
    name = f"collatz_host_{n}"
    if name not in _keep:
        def handler(out, ins):
            v = np.ctypeslib.as_array(ctypes.cast(ins[0], ctypes.POINTER(ctypes.c_int32)), (n,)).astype(np.int64)
            o = np.ctypeslib.as_array(ctypes.cast(out, ctypes.POINTER(ctypes.c_int32)), (n,))
            steps = np.zeros(n, np.int64)
            while (v != 1).any():
                act = v != 1
                v = np.where(act, np.where(v % 2 == 0, v // 2, 3 * v + 1), v)
                steps += act
            o[:] = steps
        cb = _PROTO(handler)
        _keep[name] = cb
        jax.ffi.register_ffi_target(name, _new(ctypes.cast(cb, ctypes.c_void_p).value, b"xla._CUSTOM_CALL_TARGET", None),
                                    platform="cpu", api_version=0)
    return name


@jax.jit
def collatz_steps(n):
    if n.shape[0] == 0:
        return jnp.zeros((0,), jnp.int32)
    return jax.ffi.ffi_call(_target(n.shape[0]), jax.ShapeDtypeStruct(n.shape, jnp.int32),
                            custom_call_api_version=1)(n)
