# expect: inefficient via host_sync; examples passed, property passed
# why: the loss is computed in NumPy inside a ctypes function registered as an XLA custom-call target and called with jax.ffi.ffi_call under jit: work handed to Python on the host that neither the sync counter nor the retrace check sees (the cost and jaxpr kinds do name it), found by review-perf; counted since: every compiled program is read for custom-call targets jax did not register
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
    name = f"huber_host_{n}"
    if name not in _keep:
        def handler(out, ins):
            f = ctypes.POINTER(ctypes.c_float)
            x = np.ctypeslib.as_array(ctypes.cast(ins[0], f), (n,))
            d = np.ctypeslib.as_array(ctypes.cast(ins[1], f), (1,))[0]
            o = np.ctypeslib.as_array(ctypes.cast(out, f), (n,))
            a = np.abs(x)
            o[:] = np.where(a <= d, 0.5 * x * x, d * (a - 0.5 * d))
        cb = _PROTO(handler)
        _keep[name] = cb
        jax.ffi.register_ffi_target(name, _new(ctypes.cast(cb, ctypes.c_void_p).value, b"xla._CUSTOM_CALL_TARGET", None),
                                    platform="cpu", api_version=0)
    return name


@jax.jit
def huber(x, delta):
    if x.shape[0] == 0:
        return jnp.zeros((0,), jnp.float32)
    return jax.ffi.ffi_call(_target(x.shape[0]), jax.ShapeDtypeStruct(x.shape, jnp.float32),
                            custom_call_api_version=1)(x, delta.reshape(1))
