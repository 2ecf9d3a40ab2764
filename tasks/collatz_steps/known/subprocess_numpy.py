# expect: runtime_error via examples
# dodge: host_compute
# why: the loop in NumPy in a fresh Python started with subprocess.run, the input passed
# as bytes: work in another process no instrument of the worker sees; the worker starts
# no process once the learner's file runs, and the refusal names the route.
import subprocess
import sys

import numpy as np
import jax.numpy as jnp

_CODE = ("import sys, numpy as np\n"
         "v = np.frombuffer(sys.stdin.buffer.read(), np.int32).astype(np.int64)\n"
         "s = np.zeros_like(v)\n"
         "while (v != 1).any():\n"
         "    a = v != 1\n"
         "    v = np.where(a, np.where(v % 2 == 0, v // 2, 3 * v + 1), v)\n"
         "    s += a\n"
         "sys.stdout.buffer.write(s.astype(np.int32).tobytes())\n")


def collatz_steps(n):
    out = subprocess.run([sys.executable, "-c", _CODE], input=np.asarray(n).tobytes(),
                         capture_output=True, check=True).stdout
    return jnp.asarray(np.frombuffer(out, np.int32))
