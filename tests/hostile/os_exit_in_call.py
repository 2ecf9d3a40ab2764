"""Hostile: ends the process without unwinding, inside the call."""
import os


def solve(x):
    os._exit(3)
