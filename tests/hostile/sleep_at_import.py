"""Hostile: importing the file takes far longer than the limit."""
import time

time.sleep(600)


def solve(x):
    return x
