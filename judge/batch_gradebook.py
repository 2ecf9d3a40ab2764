"""The class views, rebuilt from results.jsonl at the end of every run (also an
interrupted one), so they always agree with the results and a rerun can never leave a
stale or double-counted row.

gradebook.csv: a row per learner, a column per task holding the verdict ("" = nothing
submitted, "pending" = submitted but not graded yet), and ``score``: the number of tasks
accepted.  summary.json: per task, the count of each verdict, each check's status counts,
and the most common failure messages, grouped after the values in them are blanked out
(two learners failing on different inputs fail the same way).
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections import Counter, defaultdict
from pathlib import Path

from . import __version__
from .verdicts import Verdict

COMMON_FAILURES = 5
_BRACKETS = re.compile(r"\[[^\[\]]*\]")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(\.\d*)?([eE][-+]?\d+)?")


def write_atomic(path: Path, text: str) -> None:
    """Readers (a spreadsheet, a web page) never see half a file."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def gradebook_csv(learners: list[str], task_ids: list[str],
                  cells: dict[tuple[str, str], str]) -> str:
    """``cells``: (learner, task) -> verdict or "pending"."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["learner", *task_ids, "score"])
    for learner in learners:
        row = [cells.get((learner, t), "") for t in task_ids]
        w.writerow([learner, *row, sum(v == Verdict.ACCEPTED for v in row)])
    return out.getvalue()


def failure_pattern(message: str) -> str:
    line = message.splitlines()[0] if message else ""
    while _BRACKETS.search(line):
        line = _BRACKETS.sub("\u2026", line)
    return _NUMBER.sub("N", line)[:300]


def summary(records: list[dict], pending: int, skipped: list[tuple[str, str]],
            options: dict) -> dict:
    tasks: dict[str, dict] = {}
    groups: dict[str, dict[tuple[str, str], dict]] = defaultdict(dict)
    for r in records:
        t = tasks.setdefault(r["task"], {"graded": 0, "verdicts": Counter(), "checks": {}})
        t["graded"] += 1
        t["verdicts"][r["verdict"]] += 1
        for c in r.get("checks", []):
            t["checks"].setdefault(c["id"], Counter())[c["status"]] += 1
            if c["status"] in ("failed", "error"):
                g = groups[r["task"]].setdefault((c["id"], failure_pattern(c["message"])),
                                                 {"check": c["id"], "count": 0,
                                                  "example": c["message"].splitlines()[0][:500],
                                                  "learners": []})
                g["count"] += 1
                g["learners"].append(r["learner"])
    for task_id, t in tasks.items():
        t["verdicts"] = {v: t["verdicts"][v] for v in Verdict if t["verdicts"][v]}
        t["checks"] = {cid: dict(sorted(counts.items())) for cid, counts in t["checks"].items()}
        common = sorted(groups[task_id].items(), key=lambda kv: (-kv[1]["count"], kv[0]))
        t["common_failures"] = [dict(g, pattern=pattern, learners=sorted(g["learners"]))
                                for (_, pattern), g in common[:COMMON_FAILURES]]
    total = Counter(r["verdict"] for r in records)
    return {"judge_version": __version__, "options": options, "graded": len(records),
            "pending": pending, "verdicts": {v: total[v] for v in Verdict if total[v]},
            "tasks": dict(sorted(tasks.items())),
            "skipped": [{"path": p, "why": why} for p, why in skipped]}


def summary_json(*args, **kw) -> str:
    return json.dumps(summary(*args, **kw), indent=2, ensure_ascii=False) + "\n"
