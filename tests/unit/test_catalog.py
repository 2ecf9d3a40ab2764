"""`judge list` and `judge show`: the statement as it was written, the task's facts
without gaps."""

from __future__ import annotations

from judge.bank import load_bank
from judge.catalog import render_markdown, show_text

from helpers.banks import MINIMAL, write_bank


def test_code_spans_keep_their_stars_and_emphasis_outside_them_goes():
    out = render_markdown(
        "Apply `x <- 0.5 * tanh(x) + 0.25 * x` **exactly** `n` times, *not* `n**2`."
    )
    assert out == "Apply `x <- 0.5 * tanh(x) + 0.25 * x` exactly `n` times, not `n**2`.\n"


def test_a_list_item_keeps_its_continuation_lines_and_hangs_them():
    text = (
        "- `x` is a float32 array with values in\n[-10, 10]; `n` is an int.\n- second\n\nAfter.\n"
    )
    out = render_markdown(text, width=40).splitlines()
    assert out == [
        "- `x` is a float32 array with values in",
        "  [-10, 10]; `n` is an int.",
        "- second",
        "",
        "After.",
    ]


def test_headings_and_code_blocks():
    out = render_markdown("# Title\n\n```python\nf(x) * 2  # **kept**\n```\n").splitlines()
    assert out == ["Title", "=====", "", "    f(x) * 2  # **kept**"]


def test_a_step_without_a_title_reads_as_a_step_number_only(tmp_path):
    bank = load_bank(write_bank(tmp_path, MINIMAL))
    text = show_text(bank.get("add_one"))
    assert "Task: add_one (step 1, medium)" in text and ": ," not in text
