"""Failures a learner can replay (issue 22): the JSON report carries the whole failing
input (up to REPORT_ELEMENTS per array, not 16 elements), and the text and HTML reports
end a value failure with Python that calls the learner's function on exactly it."""

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from judge.report import Report
from judge.values import REPORT_ELEMENTS, display, render_shown, replay_snippet
from judge.worker.wire import Leaf
from judge.writers import html, text

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "tasks.yaml").is_file())


def test_the_json_form_holds_every_value_of_a_failing_input():
    x = np.linspace(-1, 1, 33, dtype=np.float32)
    shown = display(Leaf(x, "jax"))
    assert "values_truncated" not in shown
    assert np.array_equal(np.asarray(shown["values"], np.float32), x)


def test_only_an_array_larger_than_the_cap_is_cut_and_says_how_large():
    shown = display(Leaf(np.zeros(REPORT_ELEMENTS + 5, np.float32), "numpy"))
    assert shown["values_truncated"] == REPORT_ELEMENTS + 5
    assert len(shown["values"]) == REPORT_ELEMENTS


def test_a_line_of_text_still_shows_a_few_values_and_the_count():
    line = render_shown(display(Leaf(np.arange(40, dtype=np.int32), "jax")))
    assert line.endswith("... (40 in all)]") and "39" not in line


def replayed(args: dict) -> dict:
    source = replay_snippet("f", args)
    scope: dict = {"f": lambda **kw: kw}
    exec(source.replace("\nf(", "\nout = f("), scope)
    return scope["out"]


def test_the_snippet_rebuilds_the_input_bit_for_bit():
    import jax

    values = np.array([[-0.0, np.nan, np.inf], [-np.inf, 1e-30, 0.1]], np.float32)
    args = {
        "x": Leaf(values, "jax"),
        "n": Leaf(np.arange(3, dtype=np.int16), "numpy"),
        "mask": Leaf(np.array([True, False]), "jax"),
        "empty": Leaf(np.zeros((3, 0), np.float32), "jax"),
        "delta": Leaf(np.array(2.5, np.float32), "jax"),
        "weak": Leaf(np.array(0.5, np.float32), "jax", weak=True),
        "scalar": Leaf(np.array(0.1, np.float32), "npscalar"),
        "tree": {"w": Leaf(np.ones((2, 2), np.float32), "jax"), "b": [1.5, 2, (True,)]},
        "key": Leaf(np.array([0, 42], np.uint32), "key"),
    }
    out = replayed(args)
    for name, leaf in args.items():
        if isinstance(leaf, Leaf) and leaf.kind != "key":
            got = np.asarray(out[name])
            assert got.dtype == leaf.array.dtype and got.shape == leaf.array.shape, name
            assert got.tobytes() == leaf.array.tobytes(), name
    assert isinstance(out["n"], np.ndarray) and isinstance(out["x"], jax.Array)
    assert out["weak"].weak_type and not out["delta"].weak_type
    assert isinstance(out["scalar"], np.float32)
    assert out["tree"]["b"] == [1.5, 2, (True,)] and list(out["tree"]) == ["w", "b"]
    assert np.array_equal(jax.random.key_data(out["key"]), np.array([0, 42], np.uint32))


def test_a_graded_value_failure_carries_a_replay_the_reports_show():
    submission = ROOT / "tasks" / "huber" / "known" / "review_h06_wrong_mid_band.py"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "judge",
            "--bank",
            str(ROOT),
            "run",
            "huber",
            str(submission),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    data = json.loads(done.stdout)
    prop = next(c for c in data["checks"] if c["id"] == "property")
    assert prop["status"] == "failed"
    x = prop["counterexample"]["args"]["x"]
    assert len(x["values"]) == x["shape"][0] > 16 and "values_truncated" not in x
    # the snippet, run against the learner's own function, gives the wrong answer again
    scope: dict = {}
    exec(submission.read_text(), scope)
    exec(prop["details"]["replay"].replace("\nhuber(", "\nout = huber("), scope)
    reference: dict = {}
    exec((ROOT / "reference" / "huber.py").read_text(), reference)
    want = reference["huber"](scope["x"], scope["delta"])
    assert not np.allclose(np.asarray(scope["out"]), np.asarray(want))
    report = Report.from_dict(data)
    shown = io.StringIO()
    text.write(report, shown)
    assert "paste into a cell" in shown.getvalue()
    assert "huber(x=x, delta=delta)" in shown.getvalue()
    page = io.StringIO()
    html.write(report, page)
    assert 'class="replay"' in page.getvalue() and "huber(x=x, delta=delta)" in page.getvalue()
