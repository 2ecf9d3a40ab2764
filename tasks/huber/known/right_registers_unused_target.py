# expect: accepted
# why: the reference's jnp.where program; the file also registers a ctypes FFI target
# at import that no program calls: registering is not work, a program calling it is.
import ctypes

import jax
import jax.numpy as jnp

_PROTO = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_new = ctypes.pythonapi.PyCapsule_New
_new.restype = ctypes.py_object
_new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
_unused = _PROTO(lambda out, ins: None)
jax.ffi.register_ffi_target("huber_unused", _new(ctypes.cast(_unused, ctypes.c_void_p).value,
                                                 b"xla._CUSTOM_CALL_TARGET", None),
                            platform="cpu", api_version=0)


@jax.jit
def huber(x, delta):
    a = jnp.abs(x)
    return jnp.where(a <= delta, 0.5 * x * x, delta * (a - 0.5 * delta))
