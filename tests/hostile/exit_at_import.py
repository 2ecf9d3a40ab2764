"""Hostile: ends the interpreter while being imported."""
import sys

sys.exit(4)


def solve(x):
    return x
