"""`judge list` and `judge show`: the bank as a person reads it."""

from __future__ import annotations

import re
import textwrap

from .bank import Bank, Task


def task_summary(task: Task) -> dict:
    return {"id": task.id, "title": task.title, "step": task.step, "step_title": task.step_title,
            "difficulty": task.difficulty, "tags": task.tags, "signature": task.signature,
            "checks": [{"id": c.id, "kind": c.kind, "required": c.required} for c in task.checks]}


def listing(bank: Bank) -> dict:
    steps: dict[int, dict] = {}
    for task in sorted(bank.tasks.values(), key=lambda t: (t.step, t.id)):
        step = steps.setdefault(task.step, {"step": task.step, "title": task.step_title, "tasks": []})
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
        out.append(f"Step {step['step']}: {step['title'] or '(untitled: add it under steps: in tasks.yaml)'}")
        for t in step["tasks"]:
            out.append(f"  {t['id']:<{width}}  {t['title']:<{twidth}}  {t['difficulty']:<6}  {_kinds(t)}")
        out.append("")
    out.append("checks: a trailing ? marks an advisory check (counted only with --strict)")
    return "\n".join(out)


def render_markdown(text: str, width: int = 88) -> str:
    """Markdown, lightly, for a terminal: headings underlined, emphasis dropped,
    code blocks indented, paragraphs wrapped."""
    out: list[str] = []
    in_code = False
    para: list[str] = []

    def flush():
        if para:
            out.extend(textwrap.wrap(" ".join(para), width) or [""])
            para.clear()

    for line in text.splitlines():
        if line.startswith("```"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            out.append("    " + line)
            continue
        plain = re.sub(r"\*\*(.+?)\*\*|\*(.+?)\*", lambda m: m.group(1) or m.group(2), line)
        if plain.startswith("#"):
            flush()
            title = plain.lstrip("#").strip()
            out += ["", title, ("=" if plain.startswith("# ") else "-") * len(title)]
        elif not plain.strip():
            flush()
            out.append("")
        elif re.match(r"^\s*([-*]|\d+\.)\s", plain):
            flush()
            indent = len(plain) - len(plain.lstrip())
            out.extend(textwrap.wrap(plain.strip(), width, initial_indent=" " * indent,
                                     subsequent_indent=" " * (indent + 2)))
        else:
            para.append(plain.strip())
    flush()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


def show_text(task: Task) -> str:
    statement = task.statement_path.read_text(encoding="utf-8") if task.statement_path.is_file() \
        else "(this task has no statement.md yet)"
    lines = [render_markdown(statement), "-" * 40,
             f"Signature: {task.signature}",
             f"Task: {task.id} (step {task.step}: {task.step_title}, {task.difficulty})"]
    if task.devices:
        lines.append(f"Devices: {task.devices}" + (f", mesh {task.mesh.describe()}" if task.mesh else ""))
    lines.append("Arguments:")
    lines += [f"  {name}: {spec.describe()}" for name, spec in task.args.items()]
    lines.append("Checks:")
    for c in task.checks:
        lines.append(f"  {c.id} ({c.kind}{'' if c.required else ', advisory'})" +
                     (f": {c.doc}" if c.doc else ""))
    lines.append(f"Starter: {task.starter_path}   (judge show {task.id} --starter > my.py)")
    lines.append(f"Grade:   judge run {task.id} my.py")
    return "\n".join(lines) + "\n"
