"""Is a submission still the task's starter?  Said at the head of its first failure
(the grading), and counted apart by the gradebook."""

from __future__ import annotations

import io
import tokenize

from .bank import Task

# how a report says its submission is still the starter (the class report reads it too)
NOT_ATTEMPTED = "not attempted yet: this is still the starter of"


def untouched_starter(task: Task, text: str | None) -> bool:
    """Is the submission still the task's starter (comments and blank lines aside)?
    ``text``: its Python as the session read it before it ran (None: nothing was read,
    a FIFO, a link), never the file read again, which the learner's code may have
    changed since."""
    if text is None:
        return False
    try:
        return code_tokens(text) == code_tokens(task.starter_path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, tokenize.TokenError):
        return False


def code_tokens(text: str) -> list[tuple[int, str]]:
    """Python's tokens, comments and layout aside (what makes two files the same code)."""
    ignored = (
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENCODING,
        tokenize.ENDMARKER,
    )
    return [
        (t.type, t.string)
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type not in ignored
    ]
