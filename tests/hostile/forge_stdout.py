"""Hostile: writes well-formed-looking result frames to stdout, then answers x * 2."""
import json
import os
import struct
import sys


def _frame(seq):
    header = json.dumps({"ok": True, "result": {"t": "int", "v": 42}, "elapsed_s": 0.0,
                         "blobs": 0}).encode()
    return b"JJW1" + bytes(16) + struct.pack("<II", seq, len(header)) + header


for seq in range(4):
    os.write(1, _frame(seq))
sys.stdout.write(_frame(1).decode("latin-1"))


def solve(x):
    for seq in range(4):
        os.write(1, _frame(seq))
    print(_frame(2).decode("latin-1"))
    return x * 2
