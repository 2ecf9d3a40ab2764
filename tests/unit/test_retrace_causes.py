"""A retrace failure names every cause of tracing again in the words the learner reads:
the text, the HTML page and a notebook show no JSON, so no line may send them to it."""

from __future__ import annotations

import types

from judge.checks.scripted import RetraceCheck


def _calls(causes: int) -> list:
    """One scripted call per cause, each tracing again for a different reason."""
    calls = []
    for i in range(1, causes + 1):
        trace = {
            "origin": "learner",
            "stage": "trace",
            "group": "step",
            "reason": f"argument `x` changed shape to float32[{i}]",
        }
        calls.append(({"n": i}, types.SimpleNamespace(traces=[trace])))
    return calls


def test_causes_beyond_the_first_four_are_named_by_where_they_first_happened():
    lines = RetraceCheck.extra_traces(_calls(7), noun="generated input")
    assert len(lines) == 5
    assert "JSON" not in "\n".join(lines)
    assert (
        lines[-1] == "  ... and 3 other causes of tracing again, first at generated inputs 5, 6, 7"
    )


def test_four_causes_or_fewer_are_all_written_out():
    lines = RetraceCheck.extra_traces(_calls(4))
    assert len(lines) == 4 and all("traced again" in line for line in lines)
