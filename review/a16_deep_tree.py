# target 1: a tree 20000 folders deep (far past PATH_MAX) with a link to the canary
# folder at the bottom and a fifo beside it, made with directory descriptors; the judge's
# size walk and its removal of scratch must cope (no crash, no judge_error, nothing left
# behind, the canary untouched).
import os
import jax.numpy as jnp
home = os.environ.get("TMPDIR", "/tmp")
fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY)
for i in range(20000):
    try:
        os.mkdir("d", dir_fd=fd)
        nfd = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
    except OSError as e:
        print("stopped at", i, e)
        break
    os.close(fd)
    fd = nfd
try:
    os.symlink("/tmp/rt_canary", "canary", dir_fd=fd)
    os.mkfifo("pipe", dir_fd=fd)
except OSError as e:
    print("bottom:", e)
def safe_mean(x):
    return jnp.where(x.size == 0, jnp.float32(0), jnp.mean(x.astype(jnp.float32)))
