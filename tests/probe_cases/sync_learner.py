"""A learner-like module for tests/test_syncs.py; ``# S:name`` marks a sync's line."""

import jax
import jax.experimental
import jax.numpy as jnp
import numpy as np
from jax import lax


def pull_float(x):
    return float(jnp.sum(x))  # S:float


def pull_int(x):
    return int(jnp.sum(x))  # S:int


def pull_bool(x):
    if jnp.sum(x) > 0:  # S:bool
        return 1
    return 0


def pull_item(x):
    return jnp.sum(x).item()  # S:item


def pull_tolist(x):
    return x.tolist()  # S:tolist


def pull_asarray(x):
    return np.asarray(x)  # S:asarray


def pull_array(x):
    return np.array(x)  # S:array


def pull_print(x):
    print(x)  # S:print


def pull_format(x):
    return f"{jnp.sum(x):.3f}"  # S:format


def pull_device_get(x):
    return jax.device_get({"a": x, "b": x})  # S:device_get


def pull_index(x):
    return [10, 20, 30, 40][jnp.argmax(x)]  # S:index


def wait_block(x):
    return (x * 2).block_until_ready()  # S:block


def pull_in_loop(x):
    total = 0.0
    for i in range(3):
        total += float(x[i])  # S:loop
    return total


def pull_twice(x):
    a = np.asarray(x)  # S:twice_a
    b = np.asarray(x)  # S:twice_b
    return a, b


def on_device_loop(x):
    return lax.fori_loop(0, 10, lambda i, acc: acc + jnp.sum(x) * i, 0.0)


def on_device_ops(x):
    y = jnp.asarray(x) + 1
    z = jnp.stack([y, y])[0, 1:]
    w = jax.device_put(z).at[0].set(3.0)
    return jnp.concatenate([w, jnp.array([1.0])]) * jnp.linspace(0.0, 1.0, w.shape[0] + 1)


CONSTANT = jnp.arange(4.0)


@jax.jit
def uses_constant(x):
    return x + CONSTANT


@jax.jit
def printing(x):
    jax.debug.print("x = {}", x)  # S:debug_print
    return x * 2


def host_double(v):  # S:host_double
    return np.asarray(v) * 2


@jax.jit
def with_pure_callback(x):
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.pure_callback(host_double, shape, x)  # S:pure_callback


def apply(fn, x):
    return fn(x)


def log_value(v):
    pass


def eager_callbacks(x):
    jax.debug.callback(log_value, x)  # S:debug_callback
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return jax.experimental.io_callback(host_double, shape, x)  # S:io_callback


def numpy_where(x):
    return np.where(x > 2, x, 0)  # S:np_where


def numpy_tanh(x):
    return np.tanh(x)  # S:np_tanh


def numpy_maximum(x):
    return np.maximum(x, 0)  # S:np_maximum


def numpy_copy(x):
    return np.copy(x)  # S:np_copy


def numpy_add_zero(x):
    return np.add(x, 0)  # S:np_add


def numpy_concatenate(x):
    return np.concatenate([x, x])  # S:np_concatenate


def numpy_sum_delegates(x):
    return np.sum(x), np.mean(x)     # numpy calls x.sum(), x.mean(): jax's, on the device


def numpy_add_reduce(x):
    return np.add.reduce(x)  # S:np_add_reduce


def buffer_memoryview(x):
    return bytes(memoryview(x))  # S:memoryview


def buffer_setitem(x):
    host = np.zeros(4, np.float32)
    host[:] = x  # S:setitem
    return host


def numpy_dlpack(x):
    return np.from_dlpack(x)  # S:dlpack


def numpy_metadata_only(x):
    return np.shape(x), np.ndim(x), np.size(x)


# ---- pulls made on other threads: the learner's, whatever the thread's stack says

def pool_pull(x):
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(bool, x[0] > 0).result()  # S:pool_submit


def pool_map_pull(x):
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        return list(pool.map(float, [x[0], x[1]]))  # S:pool_map


def thread_copyto(x):
    import threading
    host = np.zeros(4, np.float32)
    worker = threading.Thread(target=np.copyto, args=(host, x))
    worker.start()  # S:thread_start
    worker.join()
    return host


def low_level_thread_item(x):
    import _thread
    import threading
    done = threading.Event()
    out = []

    def item_then_done(value, box):
        try:
            box.append(value.item())  # S:low_level_body
        finally:
            done.set()
    _thread.start_new_thread(item_then_done, (x[0], out))
    done.wait(60)
    return out


def thread_target_of_mine(x):
    import threading
    out = []

    def body():
        out.append(float(x[0]))  # S:thread_body
    worker = threading.Thread(target=body, name="mine")
    worker.start()
    worker.join()
    return out


def thread_without_reads(x):
    import threading
    out = []
    worker = threading.Thread(target=lambda: out.append(sum(range(10))))
    worker.start()
    worker.join()
    return jnp.sum(x) + out[0]


FORGED = {}
exec(compile("def forged_pull(x):\n    return bool(x[0] > 0)\n",
             "/usr/lib/python3.11/functools.py", "exec"), FORGED)
