"""Hostile: at import, writes a forged result frame to every descriptor 0..1023."""
import json
import os
import struct

_HEADER = json.dumps({"ok": True, "params": ["x"], "jitted": [], "result": {"t": "int", "v": 42},
                      "blobs": 0}).encode()
_FRAME = b"JJW1" + bytes(16) + struct.pack("<II", 1, len(_HEADER)) + _HEADER

for fd in range(1024):
    try:
        os.write(fd, _FRAME)
    except OSError:
        pass


def solve(x):
    return x * 2
