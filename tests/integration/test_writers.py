"""The Exercism v3, Gradescope and JUnit writers: every output has the published shape
(validators in tests/helpers/platform_shapes.py), and
agrees with the verdict.

Here: the tests that start a worker or a `judge` process; tests/unit/test_writers.py has the
rest."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from helpers import ROOT, TASK, run_judge
from helpers.platform_shapes import exercism_problems, gradescope_problems, junit_problems


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["exercism", "gradescope", "junit"])
def test_judge_run_writes_each_format(fmt):
    sub = ROOT / "tasks" / TASK / "known" / "abs_sum.py"
    proc = run_judge("run", TASK, sub, "--format", fmt, "--examples", "20")
    assert proc.returncode == 1, proc.stderr
    if fmt == "junit":
        assert junit_problems(proc.stdout) == []
        assert (
            ET.fromstring(proc.stdout.encode())
            .find("testsuite/properties/property[@name='verdict']")
            .get("value")
            == "wrong_answer"
        )
    else:
        doc = json.loads(proc.stdout)
        assert (exercism_problems if fmt == "exercism" else gradescope_problems)(doc) == []


@pytest.mark.slow
def test_the_script_drawing_shows_lengths_8_16_32_8_as_three_programs_and_a_cache_hit():
    from judge.bank import load_bank
    from judge.checks.script_drawing import script_caption, script_drawing, script_marks
    from judge.runner import grade

    graded = grade(load_bank().get(TASK), ROOT / "examples" / f"{TASK}.py", examples=5)
    retrace = next(c for c in graded.checks if c.id == "retrace")
    marks = script_marks(retrace.details)
    assert [m.label for m in marks[:4]] == [
        f"x_a float32[{n}], x_b float32[{n}]" for n in (8, 16, 32, 8)
    ]
    assert [m.state for m in marks[:4]] == ["traced", "traced", "traced", "cached"]
    assert marks[3].same_as == 1 and {p for m in marks for p, _ in m.programs} == {1, 2, 3}
    assert script_caption(marks).startswith(
        "8 scripted calls: 3 programs; 3 traced, 5 served from the cache"
    )
    drawing = script_drawing(retrace.details)
    assert drawing.count('<g class="call') == 8 and drawing.count('data-state="cached"') == 5
