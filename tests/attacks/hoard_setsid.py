"""Memory in a grandchild that left the worker's session and process group (setsid +
double fork), then a right answer a second later: the memory must count, or the
grandchild must be gone, before the answer is taken."""
import os
import time

r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.close(r)
        os.write(w, str(os.getpid()).encode())
        hoard = bytearray(900 << 20)   # every page touched
        time.sleep(120)
        os._exit(len(hoard) and 0)
    os._exit(0)
os.close(w)
GRANDCHILD = int(os.read(r, 32) or 0)


def double(x):
    time.sleep(1)
    try:
        if GRANDCHILD > 0:
            os.kill(GRANDCHILD, 0)
            print("got: grandchild alive")
    except OSError:
        print("got: grandchild gone")
    return x * 2
