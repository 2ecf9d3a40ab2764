"""Hostile: memory spread over forked children, each one under the address-space limit
of a single process; only the judge's watch over the whole tree sees the total."""
import os
import time


def solve(x):
    for _ in range(4):
        if os.fork() == 0:
            hoard = bytearray(250 << 20)  # zero-filled: every page touched
            time.sleep(60)
            os._exit(len(hoard) and 0)
    time.sleep(60)
