"""Hostile: closes every descriptor above stderr, the channel's included, in the call."""
import os


def solve(x):
    os.closerange(3, 1024)
    return x * 2
