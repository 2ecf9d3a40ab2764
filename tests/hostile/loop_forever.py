"""Hostile: never returns from the call."""


def solve(x):
    while True:
        pass
