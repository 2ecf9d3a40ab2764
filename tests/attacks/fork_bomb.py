"""Processes until something stops it (bounded here, so a broken defence cannot take
the test machine down with it)."""
import os
import time


def double(x):
    for _ in range(1500):
        try:
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
        except OSError:
            break
    time.sleep(30)
    return x * 2
