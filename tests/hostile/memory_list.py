"""Hostile: a Python list that doubles until something stops it."""


def solve(x):
    hoard = [0.0] * 1024
    while True:
        hoard.extend(hoard)
