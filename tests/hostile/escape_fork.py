"""Hostile: a grandchild that leaves the worker's session and process group
(setsid + double fork) and sleeps.  The call returns the grandchild's pid."""
import os
import time


def solve(x):
    r, w = os.pipe()
    if os.fork() == 0:  # child: new session, then fork again and leave
        os.setsid()
        if os.fork() == 0:
            os.close(r)
            os.write(w, str(os.getpid()).encode())
            os.close(w)
            time.sleep(1000)
        os._exit(0)
    os.close(w)
    pid = int(os.read(r, 32))
    os.close(r)
    time.sleep(0.1)  # let the middle process exit, so the grandchild is re-parented
    return pid
