"""Hostile: reads address 0 through ctypes."""
import ctypes


def solve(x):
    return ctypes.string_at(0)
