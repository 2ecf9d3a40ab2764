"""Memory in grandchildren that left the worker's session and process group (setsid +
double fork): three of 400 MB, each under the per-process address-space limit, 1.2 GB
together; then a right answer a second later.  Their memory must count, or they must
be gone, before the answer is taken."""
import os
import time

GRANDCHILDREN = []
for _ in range(3):
    r, w = os.pipe()
    if os.fork() == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                os.close(r)
                os.write(w, str(os.getpid()).encode())
                hoard = b"\1" * (400 << 20)   # every page written
                time.sleep(120)
        finally:
            os._exit(0)   # never go on as a copy of the worker
    os.close(w)
    GRANDCHILDREN.append(int(os.read(r, 32) or 0))
    os.close(r)


def double(x):
    time.sleep(1)
    alive = 0
    for pid in GRANDCHILDREN:
        try:
            if pid > 0:
                os.kill(pid, 0)
                alive += 1
        except OSError:
            pass
    print(f"got: {alive} grandchildren alive")
    return x * 2
