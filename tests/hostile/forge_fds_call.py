"""Hostile: in the call, writes a forged result frame to every descriptor 0..1023."""
import json
import os
import struct

_HEADER = json.dumps({"ok": True, "result": {"t": "int", "v": 42}, "elapsed_s": 0.0,
                      "blobs": 0}).encode()
_FRAME = b"JJW1" + bytes(16) + struct.pack("<II", 2, len(_HEADER)) + _HEADER


def solve(x):
    for fd in range(1024):
        try:
            os.write(fd, _FRAME)
        except OSError:
            pass
    return x * 2
