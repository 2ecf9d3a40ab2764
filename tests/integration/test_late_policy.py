"""A late policy as Gradescope courses run one (issue 22): ``--late-penalty`` per started
day or hour, or once, and a ``--grace`` period after ``--deadline``; applied in the score
and shown in every view of a batch."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime, timedelta, timezone

import pytest

from judge.scoring import LatePolicy, PolicyError

from helpers import ROOT, run_judge

DEADLINE = datetime(2026, 11, 20, 23, 59, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "penalty, grace, late, taken",
    [
        ("10%/day", None, timedelta(minutes=1), 0.1),  # a started day counts
        ("10%/day", None, timedelta(days=1, hours=2), 0.2),
        ("10%/day", "30m", timedelta(minutes=20), None),  # within the grace: on time
        ("10%/day", "30m", timedelta(minutes=40), 0.1),  # days count from the deadline
        ("0.05/hour", None, timedelta(hours=2, minutes=1), 0.15),
        ("50%", None, timedelta(days=9), 0.5),  # once, however late
        ("30%/day", None, timedelta(days=5), 1.0),  # never more than all
        (None, "1h", timedelta(hours=2), 0.0),  # late, not charged
    ],
)
def test_the_share_taken_off(penalty, grace, late, taken):
    policy = LatePolicy.parse(penalty, grace)
    charge = policy.charge(policy.late_by(DEADLINE + late, DEADLINE))
    if taken is None:
        assert charge is None
    else:
        assert charge is not None and charge.fraction == pytest.approx(taken)


@pytest.mark.parametrize(
    "penalty, grace, says",
    [
        ("ten percent", None, "is not a penalty: write 10%/day"),
        ("150%", None, "takes more than all the points"),
        ("10%/fortnight", None, "'fortnight' is not a unit of time"),
        ("10%/day", "soon", "--grace: 'soon' is not a duration"),
    ],
)
def test_a_policy_that_cannot_be_read_says_how_to_write_one(penalty, grace, says):
    with pytest.raises(PolicyError, match=says):
        LatePolicy.parse(penalty, grace)


def test_a_late_policy_without_a_deadline_is_refused(tmp_path):
    (tmp_path / "class.csv").write_text("learner,task,path\n")
    done = run_judge(
        "batch", tmp_path / "class.csv", "--out", tmp_path / "out", "--late-penalty", "10%/day"
    )
    assert done.returncode == 2 and "--late-penalty needs --deadline" in done.stderr


@pytest.mark.slow
def test_the_penalty_is_in_the_score_of_every_view(tmp_path):
    (tmp_path / "c.py").write_text((ROOT / "reference" / "col_mean.py").read_text())
    (tmp_path / "class.csv").write_text(
        "learner,task,path,submitted\n"
        "ann,col_mean,c.py,2026-11-20T23:00Z\n"  # on time
        "ben,col_mean,c.py,2026-11-21T00:20Z\n"  # within the 30 min grace
        "cat,col_mean,c.py,2026-11-22T02:00Z\n"
    )  # 1 day 2 h late: two started days
    out = tmp_path / "out"
    done = run_judge(
        "batch",
        tmp_path / "class.csv",
        "--out",
        out,
        "--workers",
        "2",
        "--examples",
        "10",
        "--deadline",
        "2026-11-20T23:59Z",
        "--late-penalty",
        "10%/day",
        "--grace",
        "30m",
        "--emit",
        "gradescope,exercism,junit",
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    rows = {
        r["learner"]: r for r in csv.DictReader(io.StringIO((out / "gradebook.csv").read_text()))
    }
    assert [(rows[x]["score"], rows[x]["late"]) for x in ("ann", "ben", "cat")] == [
        ("7", ""),
        ("7", ""),
        ("5.6", "col_mean (-20%)"),
    ]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["late"] == 1
    assert summary["late_policy"] == (
        "10% of the points per started day late, after a grace period of 30 min"
    )
    assert summary["late_charges"] == [
        {
            "learner": "cat",
            "task": "col_mean",
            "late_by_s": 93660,
            "penalty": 0.2,
            "policy": summary["late_policy"],
        }
    ]
    note = (
        "handed in 1 day 2 h after the deadline (late policy: 10% of the points per started "
        "day late, after a grace period of 30 min): 20% off, 5.6 of the 7 points earned kept"
    )
    gradescope = json.loads((out / "gradescope" / "cat" / "col_mean" / "results.json").read_text())
    assert gradescope["score"] == 5.6 and note in gradescope["output"]
    on_time = json.loads((out / "gradescope" / "ann" / "col_mean" / "results.json").read_text())
    assert on_time["score"] == 7 and "late" not in on_time["output"]
    # the files that carry no score say it too (issue 22)
    exercism = json.loads((out / "exercism" / "cat" / "col_mean" / "results.json").read_text())
    assert exercism["tests"][0]["output"].startswith(note)
    junit = (out / "junit" / "cat" / "col_mean.xml").read_text()
    assert f"note: {note}" in junit and '<property name="late_penalty" value="0.2" />' in junit
    assert "late" not in (out / "junit" / "ann" / "col_mean.xml").read_text()
    page = (out / "reports" / "cat" / "col_mean.html").read_text()
    assert note in page and 'data-points="5.6" data-max-points="7"' in page
    assert "5.6 of 7" in (out / "report.html").read_text()  # the class page's total
