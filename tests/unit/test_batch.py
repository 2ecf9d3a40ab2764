"""judge batch, the parts that need no worker: discovery, the results store, the class
views, progress, and the command's usage errors.  End to end: test_batch_e2e.py."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os

import pytest

from judge.batch.command import UsageError, select
from judge.batch.discovery import DiscoveryError, Submission, discover
from judge.batch.gradebook import build, failure_pattern, gradebook_csv, summary
from judge.batch.progress import Progress
from judge.batch.store import FILE, ResultStore, StoreBusy

from helpers import put

TASKS = {"alpha", "beta"}


# ---------------------------------------------------------------- discovery


def test_layout_matches_learner_folders_and_task_files(tmp_path):
    put(tmp_path / "ann" / "alpha.py")
    put(tmp_path / "ann" / "beta.ipynb", "{}")
    put(tmp_path / "ben" / "alpha.py", "other")
    found = discover(tmp_path, TASKS)
    assert [(s.learner, s.task_id, s.suffix) for s in found.submissions] == [
        ("ann", "alpha", ".py"),
        ("ann", "beta", ".ipynb"),
        ("ben", "alpha", ".py"),
    ]
    assert found.submissions[0].source == b"def f(): pass\n"
    assert found.submissions[0].sha256 != found.submissions[2].sha256
    assert found.skipped == [] and found.learners == {"ann", "ben"}


def test_what_matches_no_task_is_listed_not_graded(tmp_path):
    put(tmp_path / "ann" / "alpha.py")
    put(tmp_path / "ann" / "alpah.py")  # misspelt task id
    put(tmp_path / "ann" / "notes.txt")
    put(tmp_path / "ann" / "old" / "alpha.py")  # a folder inside a learner's folder
    put(tmp_path / "stray.py")  # not in a learner's folder
    put(tmp_path / "cat" / "readme.md")  # a learner with nothing gradable
    put(tmp_path / "ann" / ".ipynb_checkpoints" / "alpha-checkpoint.ipynb")
    put(tmp_path / ".DS_Store")
    found = discover(tmp_path, TASKS)
    assert [(s.learner, s.task_id) for s in found.submissions] == [("ann", "alpha")]
    skipped = {os.path.relpath(s.path, tmp_path): s.why for s in found.skipped}
    assert set(skipped) == {"ann/alpah.py", "ann/notes.txt", "ann/old", "stray.py", "cat/readme.md"}
    assert "matches no task" in skipped["ann/alpah.py"]
    assert found.learners == {"ann", "cat"}  # cat still gets a gradebook row


def test_a_misnamed_file_and_an_unknown_manifest_task_name_the_closest_task(tmp_path):
    tasks = {"cache_independent_count", "tree_sgd"}
    put(tmp_path / "class" / "ann" / "cache_independant_count.py")
    (why,) = [s.why for s in discover(tmp_path / "class", tasks).skipped]
    assert why.endswith("(did you mean cache_independent_count?)")
    manifest = put(tmp_path / "m.csv", "ann,tree_sdg,a.py\nben,zzz,b.py\n")
    whys = sorted(s.why for s in discover(manifest, tasks).skipped)
    assert whys == [
        "task 'tree_sdg' is not in the bank (did you mean tree_sgd?)",
        "task 'zzz' is not in the bank",
    ]


def test_the_output_folder_inside_the_class_is_not_a_learner(tmp_path):
    put(tmp_path / "ann" / "alpha.py")
    put(tmp_path / "graded" / "results.jsonl", "")
    found = discover(tmp_path, TASKS, out=tmp_path / "graded")
    assert found.learners == {"ann"} and found.skipped == []


def test_two_files_for_one_task_are_both_left_out(tmp_path):
    put(tmp_path / "ann" / "alpha.py")
    put(tmp_path / "ann" / "alpha.ipynb", "{}")
    found = discover(tmp_path, TASKS)
    assert found.submissions == []
    assert len(found.skipped) == 2 and all("two submissions" in s.why for s in found.skipped)
    assert found.why_missing("ann", "alpha").endswith("keep one")


def test_manifest(tmp_path):
    put(tmp_path / "files" / "a1.py")
    put(tmp_path / "files" / "b1.py", "b")
    manifest = put(
        tmp_path / "class.csv",
        "learner,task,path\nann,alpha,files/a1.py\nben,alpha,files/b1.py\n"
        "ben,gamma,files/b1.py\ncat,beta,files/missing.py\n\n",
    )
    found = discover(manifest, TASKS)
    assert [(s.learner, s.task_id, s.path) for s in found.submissions] == [
        ("ann", "alpha", str(tmp_path / "files" / "a1.py")),
        ("ben", "alpha", str(tmp_path / "files" / "b1.py")),
    ]
    whys = sorted(s.why for s in found.skipped)
    assert whys[0].startswith("cannot be read") and "'gamma' is not in the bank" in whys[1]
    assert found.learners == {"ann", "ben", "cat"}
    no_header = put(tmp_path / "plain.csv", "ann,alpha,files/a1.py\n")
    assert len(discover(no_header, TASKS).submissions) == 1


def test_a_manifest_may_say_when_each_file_was_handed_in(tmp_path):
    put(tmp_path / "a1.py")
    manifest = put(
        tmp_path / "m.csv",
        "learner,task,path,submitted\n"
        "ann,alpha,a1.py,2026-11-20T23:59:30+00:00\n"
        "ben,alpha,a1.py,\n",
    )
    ann, ben = discover(manifest, TASKS).submissions
    assert ann.submitted.isoformat() == "2026-11-20T23:59:30+00:00" and ben.submitted is None


@pytest.mark.parametrize(
    "text, says",
    [
        ("ann,alpha\n", "row 1: expected learner,task,path"),
        ("learner,task,path\n../x,alpha,a.py\n", "row 2: '../x'"),
        ("ann,alpha,a.py,yesterday\n", "row 1: 'yesterday' is not a time"),
    ],
)
def test_a_malformed_manifest_is_a_usage_error(tmp_path, text, says):
    with pytest.raises(DiscoveryError, match=says.replace(".", r"\.")):
        discover(put(tmp_path / "m.csv", text), TASKS)


# ---------------------------------------------------------------- links in a class folder

LINKED = (
    "the judge grades no link in a class folder, since it could be a link to another learner's file"
)


def test_a_link_to_a_classmates_file_is_refused_never_read(tmp_path):
    """``ann/alpha.py -> ../ben/alpha.py`` (git keeps it) would grade ben's work as ann's."""
    put(tmp_path / "ben" / "alpha.py", "ben's work\n")
    put(tmp_path / "ben" / "beta.py", "ben's beta\n")
    (tmp_path / "ann").mkdir()
    (tmp_path / "ann" / "alpha.py").symlink_to("../ben/alpha.py")
    (tmp_path / "ann" / "beta.py").symlink_to(tmp_path / "ben" / "beta.py")  # absolute
    put(tmp_path / "cat" / "notes.txt", "cat's\n")
    (tmp_path / "cat" / "alpha.py").symlink_to("notes.txt")  # her own file: still a link
    found = discover(tmp_path, TASKS)
    subs = {(s.learner, s.task_id): s for s in found.submissions}
    assert subs[("ben", "alpha")].source == b"ben's work\n" and not subs[("ben", "alpha")].refused
    for key in (("ann", "alpha"), ("ann", "beta"), ("cat", "alpha")):
        assert subs[key].source == b"" and LINKED in subs[key].refused, subs[key]
    assert subs[("ann", "alpha")].refused.startswith(
        "ann/alpha.py is a symbolic link to ben/alpha.py, not a file"
    )
    assert "a symbolic link to a file outside the class folder" in subs[("ann", "beta")].refused
    assert "to cat/notes.txt" in subs[("cat", "alpha")].refused


def test_a_link_out_of_the_class_folder_does_not_say_where_it_points(tmp_path):
    cls = tmp_path / "class"
    put(tmp_path / "secret-place" / "answer.py")
    (cls / "ann").mkdir(parents=True)
    (cls / "ann" / "alpha.py").symlink_to("../../secret-place/answer.py")
    (cls / "ann" / "beta.py").symlink_to("/dev/zero")
    found = discover(cls, TASKS)
    assert [s.refused for s in found.submissions] == [
        f"ann/{t}.py is a symbolic link to a file outside the class folder, not a file: "
        f"{LINKED}; hand in the file itself"
        for t in ("alpha", "beta")
    ]


def test_a_learner_folder_that_is_a_link_is_refused_for_each_task_of_the_class(tmp_path):
    put(tmp_path / "ben" / "alpha.py")
    (tmp_path / "ann").symlink_to("ben")
    (tmp_path / "cid").symlink_to(tmp_path / "ben")
    found = discover(tmp_path, TASKS)
    assert found.learners == {"ann", "ben", "cid"}
    refused = {(s.learner, s.task_id): s.refused for s in found.submissions if s.refused}
    assert set(refused) == {("ann", "alpha"), ("cid", "alpha")}  # the class's column only
    assert refused[("ann", "alpha")].startswith(
        "ann is a symbolic link to ben, not a folder of ann's own"
    )
    assert "another learner's files" in refused[("cid", "alpha")]
    assert "outside the class folder" in refused[("cid", "alpha")]


def test_a_hard_link_is_graded_for_both_and_known_as_one_file(tmp_path):
    """No name of a hard-linked file came first, so neither learner is refused; the
    class report lists the two as identical (see test_identical_submissions_...)."""
    put(tmp_path / "ben" / "alpha.py", "ben's work\n")
    (tmp_path / "ann").mkdir()
    os.link(tmp_path / "ben" / "alpha.py", tmp_path / "ann" / "alpha.py")
    ann, ben = discover(tmp_path, TASKS).submissions
    assert not ann.refused and not ben.refused and ann.sha256 == ben.sha256
    assert ann.file == ben.file is not None


def test_a_manifest_path_through_a_link_is_refused(tmp_path):
    put(tmp_path / "files" / "ben.py", "ben's work\n")
    (tmp_path / "files" / "ann.py").symlink_to("ben.py")
    (tmp_path / "linked").symlink_to("files")
    manifest = put(
        tmp_path / "m.csv",
        "ben,alpha,files/ben.py\nann,alpha,files/ann.py\n"
        "cat,alpha,linked/ben.py\ndan,alpha,./files/../files/ben.py\n"
        "eve,alpha,files/ben.py\n",
    )
    subs = {s.learner: s for s in discover(manifest, TASKS).submissions}
    assert subs["ann"].refused.startswith(
        "files/ann.py is a symbolic link to files/ben.py, not a file"
    )
    assert subs["cat"].refused.startswith("linked (in linked/ben.py) is a symbolic link to files")
    assert all(LINKED in subs[k].refused and subs[k].source == b"" for k in ("ann", "cat"))
    # the instructor's manifest may name one file for two learners (a group): graded
    assert subs["ben"].source == subs["dan"].source == subs["eve"].source == b"ben's work\n"
    assert not subs["dan"].refused and not subs["eve"].refused


# ---------------------------------------------------------------- the results store


def record(learner="ann", task="alpha", sha="0" * 64, verdict="accepted", **kw):
    return {
        "learner": learner,
        "task": task,
        "submission": f"{learner}/{task}.py",
        "verdict": verdict,
        "seed": 1,
        "elapsed_s": 0.5,
        "judge_version": "0",
        "checks": [],
        "output": {},
        "strict": False,
        "isolation": "process",
        "sha256": sha,
        "examples": None,
        **kw,
    }


def test_results_survive_reopening_one_line_each(tmp_path):
    store = ResultStore(tmp_path).open()
    store.add(record())
    store.add(record(learner="ben", verdict="wrong_answer"))
    store.add(record())  # same key: not written twice
    store.close()
    lines = (tmp_path / FILE).read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["verdict"] == "wrong_answer"
    again = ResultStore(tmp_path).open()
    assert len(again.results) == 2 and again.repaired_bytes == 0
    again.close()


def test_the_key_is_content_seed_strict_and_examples(tmp_path):
    store = ResultStore(tmp_path).open()
    for r in (
        record(),
        record(sha="1" * 64),
        record(seed=2),
        record(strict=True),
        record(examples=20),
        record(task="beta"),
    ):
        store.add(r)
    assert len(store.results) == 6
    store.close()


def test_a_torn_last_line_is_cut_off_and_reported(tmp_path):
    store = ResultStore(tmp_path).open()
    store.add(record())
    store.close()
    whole = (tmp_path / FILE).read_bytes()
    torn = json.dumps(record(learner="ben")).encode()[:57]
    (tmp_path / FILE).write_bytes(whole + torn)
    again = ResultStore(tmp_path).open()
    assert again.repaired_bytes == 57 and list(again.results) == [
        ("ann", "alpha", "0" * 64, 1, False, None)
    ]
    again.add(record(learner="ben"))
    again.close()
    lines = (tmp_path / FILE).read_bytes().split(b"\n")
    assert (
        lines[0] + b"\n" == whole and json.loads(lines[1])["learner"] == "ben" and lines[2] == b""
    )


def test_unreadable_and_repeated_lines_are_ignored_never_counted(tmp_path):
    line = json.dumps(record()) + "\n"
    (tmp_path / FILE).write_text(
        line + "\x00\x00garbage\n" + line + json.dumps({"no": "key"}) + "\n"
    )
    store = ResultStore(tmp_path).open()
    assert len(store.results) == 1 and store.ignored_lines == 2 and store.superseded == 1
    store.close()


def test_force_writes_a_graded_key_again_and_the_new_line_stands(tmp_path):
    store = ResultStore(tmp_path).open()
    store.add(record(verdict="wrong_answer"))
    store.add(record(verdict="accepted"))  # not forced: graded for good
    store.add(record(verdict="accepted"), force=True)  # --force: written, and it stands
    assert len((tmp_path / FILE).read_text().splitlines()) == 2  # appended first (crash-safe)
    store.close()
    lines = (tmp_path / FILE).read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["verdict"] == "accepted"  # the old one gone
    again = ResultStore(tmp_path).open()
    assert [r["verdict"] for r in again.results.values()] == ["accepted"]
    assert again.superseded == 0
    again.close()


def test_lines_replaced_in_an_earlier_run_are_dropped_when_the_store_closes(tmp_path):
    old, new = record(verdict="judge_error"), record(verdict="accepted")
    other = record(learner="ben")
    (tmp_path / FILE).write_text("".join(json.dumps(r) + "\n" for r in (old, other, new)))
    store = ResultStore(tmp_path).open()
    assert store.superseded == 1
    store.close()
    kept = [json.loads(line) for line in (tmp_path / FILE).read_text().splitlines()]
    assert [(r["learner"], r["verdict"]) for r in kept] == [
        ("ann", "accepted"),
        ("ben", other["verdict"]),
    ]
    assert not list(tmp_path.glob(".*compact"))


def test_a_judge_error_stands_only_until_a_later_result_replaces_it(tmp_path):
    store = ResultStore(tmp_path).open()
    store.add(record(verdict="judge_error"))
    assert not store.settled(("ann", "alpha", "0" * 64, 1, False, None))
    store.add(record(verdict="wrong_answer"))  # the retry: written, and it counts
    store.add(record(verdict="accepted"))  # graded for good: not written again
    assert len((tmp_path / FILE).read_text().splitlines()) == 2
    store.close()
    assert len((tmp_path / FILE).read_text().splitlines()) == 1  # the judge error dropped
    again = ResultStore(tmp_path).open()
    assert [r["verdict"] for r in again.results.values()] == ["wrong_answer"]
    assert again.ignored_lines == 0 and again.settled(("ann", "alpha", "0" * 64, 1, False, None))
    again.close()


def test_two_batches_cannot_write_one_folder(tmp_path):
    first = ResultStore(tmp_path).open()
    with pytest.raises(StoreBusy):
        ResultStore(tmp_path).open()
    first.close()
    ResultStore(tmp_path).open().close()


# ---------------------------------------------------------------- the class views


class FakeCheck:
    def __init__(self, kind, required=True, performance=False, points=None):
        self.id, self.kind, self.required = kind, kind, required
        self.performance = performance
        self.points = points if points is not None else 1 if performance else 2


class FakeTask:
    def __init__(self, *checks):
        self.checks = list(checks)


BOOK_TASKS = {
    "alpha": FakeTask(FakeCheck("example"), FakeCheck("property")),
    "beta": FakeTask(FakeCheck("example"), FakeCheck("retrace", performance=True)),
}


def check(cid, status, kind=None, points=None, **details):
    if points is not None:
        details["points"] = points
    return {
        "id": cid,
        "kind": kind or cid,
        "required": True,
        "status": status,
        "message": f"{cid} {status}",
        "details": details,
    }


def sub(learner, task, when=None):
    return Submission(learner, task, f"{learner}/{task}.py", b"x", when)


def test_gradebook_marks_missing_and_pending_scores_points_and_lateness():
    from datetime import datetime, timezone

    deadline = datetime(2026, 11, 20, tzinfo=timezone.utc)
    late = datetime(2026, 11, 21, tzinfo=timezone.utc)
    plan = [sub("ann", "alpha"), sub("ann", "beta", late), sub("ben", "alpha")]
    records = [
        record("ann", "alpha", checks=[check("example", "passed"), check("property", "passed")]),
        record(
            "ann",
            "beta",
            verdict="inefficient",
            checks=[check("example", "passed"), check("retrace", "failed", performance=True)],
        ),
    ]
    book = build(
        {"ann", "ben", "cat"},
        ["alpha", "beta"],
        BOOK_TASKS,
        plan,
        records,
        lambda learner, task: f"nothing from {learner}",
        strict=False,
        deadline=deadline,
    )
    assert gradebook_csv(book).splitlines() == [
        "learner,alpha,beta,score,max_score,late",
        "ann,accepted,inefficient,6,7,beta",  # 2 + 2, then 2 of beta's 3
        "ben,pending,missing,0,7,",
        "cat,missing,missing,0,7,",
    ]
    assert book.cell("cat", "alpha").why == "nothing from cat"


def test_formula_prefixes_stay_text_in_gradebook_csv_and_points_stay_numbers():
    names = ['=HYPERLINK("https:x","y")', "+1", "-2", "@SUM(A1)", "\tx", "\rx", "ann"]
    plan = [sub(n, "alpha") for n in names]
    records = [
        record(n, "alpha", checks=[check("example", "passed"), check("property", "passed")])
        for n in names
    ]
    book = build(set(names), ["alpha"], BOOK_TASKS, plan, records, None, strict=False)
    rows = list(csv.reader(io.StringIO(gradebook_csv(book), newline="")))
    assert sorted(r[0] for r in rows[1:]) == sorted("'" + n if n != "ann" else n for n in names)
    assert all(r[1:4] == ["accepted", "4", "4"] for r in rows[1:])  # numbers, not "'4"


def test_identical_code_across_learners_is_listed_not_a_starter_nor_a_refusal():
    starter = {
        "id": "example",
        "kind": "example",
        "required": True,
        "status": "failed",
        "message": "not attempted yet: this is still the starter of alpha. failed",
    }
    handed_in = {
        "ann": b"x = 1\n",
        "ben": b"x = 1\n",
        "cat": b"x = 1  # all mine\n\n",
        "dan": b"y = 2\n",
        "eve": b"",
        "fay": b"",  # eve, fay: refused unread
        "gus": b"raise NotImplementedError\n",
        "hal": b"raise NotImplementedError\n",
    }
    plan, records = [], []
    for learner, source in handed_in.items():
        plan.append(
            Submission(
                learner,
                "alpha",
                f"{learner}/alpha.py",
                source,
                refused="a link" if not source else "",
                file=(1, 7) if learner in ("ann", "ben") else None,
            )
        )
        records.append(
            record(
                learner, sha=plan[-1].sha256, checks=[starter] if learner in ("gus", "hal") else []
            )
        )
    book = build(set(handed_in), ["alpha"], BOOK_TASKS, plan, records, None, strict=False)
    s = summary(book, [], {})
    same = hashlib.sha256(b"x = 1\n").hexdigest()
    assert s["tasks"]["alpha"]["identical"] == [
        {
            "learners": ["ann", "ben", "cat"],
            "sha256": sorted([same, plan[2].sha256]),
            "same_bytes": False,
            "same_file": False,
        }
    ]
    assert s["identical"] == 1
    ann_ben = summary(
        build({"ann", "ben"}, ["alpha"], BOOK_TASKS, plan[:2], records[:2], None, strict=False),
        [],
        {},
    )["tasks"]["alpha"]["identical"]
    assert ann_ben == [
        {"learners": ["ann", "ben"], "sha256": [same], "same_bytes": True, "same_file": True}
    ]


def test_failure_pattern_blanks_the_values_only():
    a = "f(x_a=float32[1] [-11.07], x_b=float32[0] []): wrong value: expected -85.8, got 85.8 (off by 172)"
    b = "f(x_a=float32[3] [1.0, 2.0, 3.0], x_b=float32[2] [4.5, 5.5]): wrong value: expected 1e-05, got 2"
    assert failure_pattern(a).startswith("f(x_a=float32\u2026 \u2026, x_b=float32")
    assert failure_pattern(a).replace(" (off by N)", "") == failure_pattern(b)
    assert failure_pattern("line one\nline two") == "line one"


def test_summary_counts_verdicts_checks_and_common_failures():
    fail = lambda cid, msg, status="failed": {
        "id": cid,
        "kind": "example",
        "required": True,
        "status": status,
        "message": msg,
    }
    records = [
        record(learner="ann", verdict="accepted", checks=[fail("examples", "ok", "passed")]),
        record(
            learner="ben",
            verdict="wrong_answer",
            checks=[fail("examples", "Example 2: f([]): expected 2.0, got 3.0")],
        ),
        record(
            learner="cat",
            verdict="wrong_answer",
            checks=[fail("examples", "Example 2: f([]): expected 2.0, got 7.5")],
        ),
        record(
            learner="dan",
            verdict="runtime_error",
            checks=[fail("examples", "crashed with SIGABRT", "error")],
        ),
        record(learner="eve", task="beta", verdict="accepted"),
    ]
    from judge.batch.discovery import Skipped

    plan = [sub(r["learner"], r["task"]) for r in records] + [sub("fay", "alpha")]
    tasks = {"alpha": FakeTask(FakeCheck("examples")), "beta": FakeTask()}
    book = build(
        {r["learner"] for r in records} | {"fay"},
        ["alpha", "beta"],
        tasks,
        plan,
        records,
        lambda *_: "",
        strict=False,
    )
    s = summary(
        book,
        skipped=[Skipped("x/notes.txt", "matches no task")],
        options={"seed": None, "strict": False, "examples": 20},
    )
    alpha = s["tasks"]["alpha"]
    assert alpha["verdicts"] == {"accepted": 1, "wrong_answer": 2, "runtime_error": 1}
    assert alpha["checks"] == {"examples": {"error": 1, "failed": 2, "passed": 1}}
    top = alpha["common_failures"][0]
    assert (top["check"], top["count"], top["learners"]) == ("examples", 2, ["ben", "cat"])
    assert top["example"] == "Example 2: f([]): expected 2.0, got 3.0"
    assert s["graded"] == 5 and s["pending"] == 1 and s["verdicts"]["accepted"] == 2
    assert alpha["pass_rate"] == 0.25 and alpha["check_pass_rates"] == {"examples": 0.25}
    assert s["missing"] == 6  # five lack beta, eve lacks alpha
    assert s["skipped"] == [{"path": "x/notes.txt", "why": "matches no task"}]


# ---------------------------------------------------------------- progress


def test_progress_plain_lines_when_not_a_terminal():
    out = io.StringIO()
    p = Progress(total=2, already=3, stream=out, tty=False)
    p.add("ann", "alpha", "accepted", 1.25)
    p.add("ben", "alpha", "wrong_answer", 2.0)
    p.finish()
    assert out.getvalue().splitlines() == [
        "[4/5] ann/alpha: accepted (1.2 s)",
        "[5/5] ben/alpha: wrong_answer (2.0 s)",
    ]


def test_progress_one_status_line_on_a_terminal():
    out = io.StringIO()
    p = Progress(total=4, already=0, stream=out, tty=True)
    p.add("ann", "alpha", "accepted", 1.0)
    status = p.status()
    assert status.startswith("1/4 graded") and "AC 1" in status and "ETA 0:00:0" in status
    assert out.getvalue().startswith("\r\033[K1/4 graded") and "\n" not in out.getvalue()


# ---------------------------------------------------------------- usage errors


def test_only_picks_a_learner_or_one_grading_and_names_the_closest_learner():
    plan = [sub("alice", "alpha"), sub("alice", "beta"), sub("bob", "alpha")]
    from judge.batch.discovery import Found

    found = Found(plan, [], {"alice", "bob"})
    assert select(plan, ["alice"], found) == plan[:2]
    assert select(plan, ["alice/beta", "bob"], found) == [plan[1], plan[2]]
    with pytest.raises(
        UsageError,
        match=r"--only alcie: found no submission of anything of "
        r"alcie's \(did you mean alice\?\)",
    ):
        select(plan, ["alcie"], found)
    with pytest.raises(UsageError, match="no submission of bob's beta"):
        select(plan, ["bob/beta"], found)
