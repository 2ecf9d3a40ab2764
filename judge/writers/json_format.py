"""Exactly one JSON object: the report contract of docs/contract.md."""

import json

NAME = "json"


def write(report, stream, *, color: bool = False) -> None:
    stream.write(json.dumps(report.to_dict(), ensure_ascii=False, allow_nan=False) + "\n")
