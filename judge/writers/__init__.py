"""Report writers: each turns the one Report model into one format.  A new format is a
new module listed in FORMATS; nothing else changes."""

from __future__ import annotations

import importlib
from typing import Callable

FORMATS = {"text": "text", "json": "json_format", "exercism": "exercism",
           "gradescope": "gradescope", "junit": "junit", "html": "html"}


def writer(name: str) -> Callable[..., None]:
    """``write(report, stream, *, color: bool)``"""
    return importlib.import_module(f"{__package__}.{FORMATS[name]}").write
