"""`judge list` and `judge show`: the bank as a person reads it."""

from __future__ import annotations

import re
import textwrap

from .bank import Bank, Task

_HINT = re.compile(r"^##\s+Hint\s+(\d+)\s*$", re.MULTILINE)


def read_hints(task: Task) -> list[str]:
    """``tasks/<id>/hints.md``: sections ``## Hint 1``, ``## Hint 2``, ... in order, each
    a nudge (never the answer).  No file: no hints."""
    path = task.folder / "hints.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    heads = list(_HINT.finditer(text))
    return [
        text[h.end() : nxt.start() if nxt else len(text)].strip()
        for h, nxt in zip(heads, heads[1:] + [None])
    ]


def task_summary(task: Task) -> dict:
    return {
        "id": task.id,
        "title": task.title,
        "step": task.step,
        "step_title": task.step_title,
        "difficulty": task.difficulty,
        "tags": task.tags,
        "signature": task.signature,
        "entrypoint": task.entrypoint,
        "checks": [{"id": c.id, "kind": c.kind, "required": c.required} for c in task.checks],
    }


def listing(bank: Bank) -> dict:
    steps: dict[int, dict] = {}
    for task in sorted(bank.tasks.values(), key=lambda t: (t.step, t.id)):
        step = steps.setdefault(
            task.step, {"step": task.step, "title": task.step_title, "tasks": []}
        )
        step["title"] = step["title"] or task.step_title
        step["tasks"].append(task_summary(task))
    return {"course": bank.course, "bank": str(bank.root), "steps": list(steps.values())}


def _kinds(summary: dict) -> str:
    return ", ".join(c["kind"] + ("" if c["required"] else "?") for c in summary["checks"])


def listing_text(bank: Bank) -> str:
    data = listing(bank)
    rows = [t for s in data["steps"] for t in s["tasks"]]
    width = max([len(t["id"]) for t in rows] + [4])
    twidth = max([len(t["title"]) for t in rows] + [5])
    out = [f"{data['course'] or 'Task bank'}  ({len(rows)} tasks, {data['bank']})", ""]
    for step in data["steps"]:
        out.append(
            f"Step {step['step']}: {step['title'] or '(untitled: add it under steps: in tasks.yaml)'}"
        )
        for t in step["tasks"]:
            out.append(
                f"  {t['id']:<{width}}  {t['title']:<{twidth}}  {t['difficulty']:<6}  {_kinds(t)}"
            )
        out.append("")
    out.append("checks: a trailing ? marks an advisory check (counted only with --strict)")
    return "\n".join(out)


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_EMPHASIS = re.compile(r"\*\*(.+?)\*\*|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_LIST_ITEM = re.compile(r"^(\s*)([-*+]|\d+\.)\s+")


def plain_inline(text: str) -> str:
    """Emphasis marks dropped, code spans kept exactly as written (`0.5 * tanh(x)`)."""
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_EMPHASIS.sub(lambda e: e.group(1) or e.group(2), text[last : m.start()]))
        out.append(m.group(0))
        last = m.end()
    out.append(_EMPHASIS.sub(lambda e: e.group(1) or e.group(2), text[last:]))
    return "".join(out)


def render_markdown(text: str, width: int = 88) -> str:
    """Markdown, lightly, for a terminal: headings underlined, emphasis dropped (never
    inside code), code blocks indented, paragraphs and list items wrapped (a list item's
    continuation lines stay with it)."""
    out: list[str] = []
    in_code = False
    block: list[str] = []  # the paragraph or list item being gathered
    item_indent: int | None = None  # the open list item's indent, None for a paragraph

    def flush():
        nonlocal item_indent
        if block:
            joined = plain_inline(" ".join(block))
            if item_indent is None:
                out.extend(textwrap.wrap(joined, width, break_on_hyphens=False) or [""])
            else:
                marker = _LIST_ITEM.match(joined.strip()).group(0)
                out.extend(
                    textwrap.wrap(
                        joined.strip(),
                        width,
                        break_on_hyphens=False,
                        initial_indent=" " * item_indent,
                        subsequent_indent=" " * (item_indent + len(marker)),
                    )
                )
            block.clear()
        item_indent = None

    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            out.append("    " + line)
            continue
        if line.startswith("#"):
            flush()
            title = plain_inline(line.lstrip("#").strip())
            out += ["", title, ("=" if line.startswith("# ") else "-") * len(title)]
        elif not line.strip():
            flush()
            out.append("")
        elif line.startswith("    ") and not block:
            out.append(line)  # an indented code block, as it is
        elif _LIST_ITEM.match(line):
            flush()
            item_indent = len(line) - len(line.lstrip())
            block.append(line.strip())
        else:
            block.append(line.strip())
    flush()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def show_text(task: Task) -> str:
    statement = (
        task.statement_path.read_text(encoding="utf-8")
        if task.statement_path.is_file()
        else "(this task has no statement.md yet)"
    )
    lines = [
        render_markdown(statement),
        "-" * 40,
        f"Signature: {task.signature}",
        f"Task: {task.id} (step {task.step}"
        + (f": {task.step_title}" if task.step_title else "")
        + f", {task.difficulty})",
    ]
    if task.devices:
        lines.append(
            f"Devices: {task.devices}" + (f", mesh {task.mesh.describe()}" if task.mesh else "")
        )
    lines.append("Arguments:")
    lines += [f"  {name}: {spec.describe()}" for name, spec in task.args.items()]
    lines.append("Checks:")
    for c in task.checks:
        lines.append(
            f"  {c.id} ({c.kind}{'' if c.required else ', advisory'})"
            + (f": {c.doc}" if c.doc else "")
        )
    lines.append(f"Starter: {task.starter_path}   (judge show {task.id} --starter > my.py)")
    hints = len(read_hints(task))
    if hints:
        lines.append(
            f"Hints:   {hints} (judge hint {task.id} 1; in a notebook: "
            f'from judge import hint; hint("{task.id}", 1))'
        )
    if task.bank.has_references:
        lines.append(f"Grade:   judge run {task.id} my.py")
    else:  # a learner's install: the public bank, graded elsewhere
        lines.append(
            f'Grade:   check("{task.id}", my_fn) in a notebook, with '
            "JUDGE_SERVER=URL (the course's judge serve)"
        )
    return "\n".join(lines) + "\n"
