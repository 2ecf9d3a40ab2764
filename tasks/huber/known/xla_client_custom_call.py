# expect: inefficient via host_sync; examples passed, property passed
# dodge: host_callback
# why: the same ctypes handler as review_h04, registered through jaxlib's own
# xla_client.register_custom_call_target instead of jax.ffi, and called by a primitive
# of the learner's whose lowering emits the custom call (a custom lowering): no ffi_call
# in the jaxpr, no pull; the compiled program names the target jax did not register.
import ctypes

import numpy as np
import jax
import jax.numpy as jnp
from jax.extend.core import Primitive
from jax._src.lib import xla_client
from jax.interpreters import mlir as public_mlir

_PROTO = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_new = ctypes.pythonapi.PyCapsule_New
_new.restype = ctypes.py_object
_new.argtypes = (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)
_keep = {}
_p = Primitive("huber_host")


def _target(n):
    name = f"huber_xc_{n}"
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
        xla_client.register_custom_call_target(
            name, _new(ctypes.cast(cb, ctypes.c_void_p).value, b"xla._CUSTOM_CALL_TARGET", None),
            platform="cpu", api_version=0)
    return name


_p.def_abstract_eval(lambda x, d: jax.core.ShapedArray(x.shape, x.dtype))


def _lower(ctx, x, d):
    return jax.ffi.ffi_lowering(_target(ctx.avals_out[0].shape[0]), api_version=1)(ctx, x, d)


public_mlir.register_lowering(_p, _lower, platform="cpu")


@jax.jit
def huber(x, delta):
    if x.shape[0] == 0:
        return jnp.zeros((0,), jnp.float32)
    return _p.bind(x, delta.reshape(1))
