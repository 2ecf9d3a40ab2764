"""The learner's file as the worker sees it: the one frame every call of the learner's
function passes through (``_run_learner``), and how the learner's errors are shown,
with only their own frames and their file's name; and which code is the learner's
(``LearnerSource``), for the probe, the sync counter and jax_frames."""

from __future__ import annotations

import os
import sys
import traceback

_MAX_MESSAGE = 2000


def _run_learner(function, args, kwargs):
    """Every call of the learner's function goes through here: the sync counter counts a
    pull made under this frame as the learner's, whatever file the code in between
    claims to come from."""
    return function(*args, **kwargs)


# ---------------------------------------------------------------- learner errors


def _flush_learner_output() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def _is_memory_error(exc: BaseException) -> bool:
    if isinstance(exc, MemoryError):  # numpy's _ArrayMemoryError included
        return True
    return type(exc).__name__.endswith("RuntimeError") and "RESOURCE_EXHAUSTED" in _text(exc)


def _text(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:
        text = "(the exception's message could not be read)"
    return text if len(text) <= _MAX_MESSAGE else text[:_MAX_MESSAGE] + "..."


class SubmissionFile:
    """Where the learner's file lives, and how to show its errors as the learner knows it."""

    def __init__(self, path: str, display_name: str):
        self.raw_path, self.path = path, os.path.realpath(path)
        self.display_name = display_name

    def frames(self, exc: BaseException) -> list[traceback.FrameSummary]:
        out = []
        for fs in traceback.extract_tb(exc.__traceback__):
            if os.path.realpath(fs.filename) == self.path:
                out.append(
                    traceback.FrameSummary(self.display_name, fs.lineno, fs.name, line=fs.line)
                )
        return out

    def shown(self, text: str) -> str:
        """The scratch path means nothing to the learner: name their file instead."""
        return text.replace(self.path, self.display_name).replace(self.raw_path, self.display_name)

    def error(self, category: str, exc: BaseException, message: str | None = None) -> dict:
        """The error dict of the protocol, with only the learner's own frames; ``message``
        defaults to the exception's text."""
        try:
            frames = self.frames(exc)
            line = frames[-1].lineno if frames else None
            if isinstance(exc, SyntaxError):
                text = exc.msg or ""
                if os.path.realpath(exc.filename or "") == self.path:
                    line = exc.lineno
            else:
                text = _text(exc)
            tb = "".join(traceback.format_list(frames))
            tb = ("Traceback (most recent call last):\n" + tb if tb else "") + "".join(
                traceback.format_exception_only(type(exc), exc)
            )
        except MemoryError:
            line, text, tb = None, "", ""
        finally:
            traceback.clear_frames(exc.__traceback__)  # let a memory bomb's garbage go
        return {
            "category": category,
            "type": type(exc).__name__,
            "message": self.shown(text if message is None else message),
            "traceback": self.shown(tb)[: 8 * _MAX_MESSAGE],
            "line": line,
        }


def _exit_words(exc: SystemExit) -> str:
    code = exc.code
    return f"sys.exit({code!r})" if code is not None else "sys.exit()"


class LearnerSource:
    """Answers "is this code object from the learner's file?", symlinks and all."""

    def __init__(self, path: str):
        self.path = os.path.realpath(path)
        self._known: dict[str, bool] = {}

    def owns(self, filename: str) -> bool:
        hit = self._known.get(filename)
        if hit is None:
            hit = self._known[filename] = os.path.realpath(filename) == self.path
        return hit

    def nearest_frame(self, frame):
        """The innermost frame at or outside ``frame`` that runs learner code."""
        while frame is not None and not self.owns(frame.f_code.co_filename):
            frame = frame.f_back
        return frame
