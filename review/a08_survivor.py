# target 4: outlive the run: double fork + setsid + a new name, SIGTERM/SIGHUP ignored,
# the parent-death signal cleared, in a fresh process group; also a child that execs
# sleep (a different binary) and one made a child of the subreaper chain.
# After the run: `ps -eo pid,comm | grep rt_surv` must print nothing.
import ctypes, os, signal, time
import jax, jax.numpy as jnp
libc = ctypes.CDLL(None)
def survive(tag):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            libc.prctl(1, 0, 0, 0, 0)                 # PR_SET_PDEATHSIG 0
            libc.prctl(15, tag.encode(), 0, 0, 0)     # PR_SET_NAME
            for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGUSR1):
                signal.signal(s, signal.SIG_IGN)
            if tag.endswith("x"):
                try:
                    os.execv("/bin/sleep", ["rt_survx", "120"])
                except OSError:
                    pass
            time.sleep(120)
        os._exit(0)
    os.wait()
survive("rt_surv1")
survive("rt_survx")

@jax.jit
def safe_mean(x):
    return jnp.where(x.size == 0, jnp.float32(0), jnp.mean(x.astype(jnp.float32)))
