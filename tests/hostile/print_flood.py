"""Hostile: megabytes of output, then a correct answer."""
import sys


def solve(x):
    line = "spam " * 200
    for _ in range(8000):  # 8 MB on stdout
        print(line)
    sys.stderr.write("e" * (2 << 20))
    return x + 1
