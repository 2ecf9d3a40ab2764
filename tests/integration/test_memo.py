"""The reference's memo (judge.memo): a run answered from it gives the report a run
without it gives, starts no reference worker when it can answer everything, cannot be
read or planted by a learner, and follows the bank it was made from."""

from __future__ import annotations

import os
import pickle
import shutil
import textwrap
from pathlib import Path

import pytest

from judge.bank import load_bank
from judge.memo import ReferenceMemo
from judge.runner import Grading

from helpers import KNOWN, SOLUTION, TASK, bank_of, put
from helpers.isolation_modes import MODES

TIMINGS = ("elapsed_s", "seconds")


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def _grade(task, path: Path, **kw) -> tuple[dict, Grading]:
    grading = Grading(task, path, **kw)
    return _without_timings(grading.run().to_dict()), grading


@pytest.fixture
def memo(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "memo"
    monkeypatch.setenv("JUDGE_MEMO", str(folder))
    return folder


@pytest.fixture(scope="module")
def task():
    return load_bank().get(TASK)


def test_a_run_answered_from_the_memo_reports_what_a_run_without_it_does(
    task, memo, tmp_path, monkeypatch
):
    right, wrong = put(tmp_path / "submission.py", SOLUTION), KNOWN / "abs_sum.py"
    monkeypatch.setenv("JUDGE_MEMO", "off")
    right_alone, _ = _grade(task, right)
    wrong_alone, _ = _grade(task, wrong)
    monkeypatch.setenv("JUDGE_MEMO", str(memo))
    first, graded = _grade(task, right)
    assert graded.oracle.session.worker is not None  # nothing to answer from yet
    assert list(memo.glob("*.pickle"))
    again, graded = _grade(task, right)
    assert graded.oracle.session.worker is None, "every answer was in the memo"
    # its shrinking asks what no run asked: the worker starts, late, for that
    wrong_after, graded = _grade(task, wrong)
    assert graded.oracle.session.worker is not None
    wrong_again, graded = _grade(task, wrong)
    assert graded.oracle.session.worker is None
    assert right_alone["verdict"] == "accepted" and wrong_alone["verdict"] == "wrong_answer"
    assert first == again == right_alone
    assert wrong_after == wrong_again == wrong_alone


def test_a_wasteful_submission_after_a_right_one_reports_what_it_would_alone(memo, monkeypatch):
    """The worker started late asks first what the memo answered, so its counts after
    (traces, compiles) are those of a worker that ran from the start."""
    other = load_bank().get("run_steps_no_sync")
    wasteful = other.folder / "known" / "static_n.py"  # a program per n
    monkeypatch.setenv("JUDGE_MEMO", "off")
    alone, _ = _grade(other, wasteful)
    monkeypatch.setenv("JUDGE_MEMO", str(memo))
    _grade(other, other.folder / "known" / "python_loop_async.py")
    after, graded = _grade(other, wasteful)
    assert alone["verdict"] == "inefficient"
    assert after == alone


def test_other_examples_are_not_answered_from_the_memo(task, memo, tmp_path):
    path = put(tmp_path / "submission.py", SOLUTION)
    _grade(task, path)
    _, graded = _grade(task, path, examples=7)
    assert graded.oracle.memo is None
    assert graded.oracle.session.worker is not None


def _made(task, memo: Path, tmp_path: Path) -> Path:
    _grade(task, put(tmp_path / "submission.py", SOLUTION))
    [path] = memo.glob("*.pickle")
    return path


def test_a_memo_someone_else_could_have_written_is_not_read(task, memo, tmp_path):
    path = _made(task, memo, tmp_path)
    keeper = ReferenceMemo.for_task(task, task.seed)
    assert keeper.path == path and keeper.load()
    path.chmod(0o666)
    assert keeper.load() is None, "a memo any user may write"
    path.chmod(0o600)
    memo.chmod(0o755)
    assert keeper.load() is None, "in a folder others may list"
    memo.chmod(0o700)
    os.chown(path, 65534, 65534)
    assert keeper.load() is None, "a memo of another user"
    os.chown(path, os.geteuid(), os.getegid())
    assert keeper.load()
    elsewhere = shutil.copy(path, tmp_path / "elsewhere.pickle")
    path.unlink()
    path.symlink_to(elsewhere)
    assert keeper.load() is None, "a link"


def test_a_planted_memo_does_not_change_the_verdict(task, memo, tmp_path):
    """A memo full of wrong answers, written where the judge's memo would be but not by
    the judge's user: ignored, so a wrong submission stays wrong."""
    path = _made(task, memo, tmp_path)
    data = pickle.loads(path.read_bytes())
    for out in data["outcomes"].values():
        out.value = 0.0 if not isinstance(out.value, dict) else out.value
    path.write_bytes(pickle.dumps(data))
    os.chown(path, 65534, 65534)
    zero = put(
        tmp_path / "zero.py",
        "import jax.numpy as jnp\n\n"
        "def cache_independent_count(x_a, x_b):\n"
        "    return jnp.float32(0.0)\n",
    )
    report, _ = _grade(task, zero)
    assert report["verdict"] == "wrong_answer"


def test_the_memo_follows_the_reference_and_the_seed(tmp_path, memo):
    bank = bank_of(tmp_path / "bank", TASK)
    task = load_bank(bank).get(TASK)
    before = ReferenceMemo.for_task(task, task.seed).path
    assert ReferenceMemo.for_task(task, task.seed + 1).path != before
    with open(task.reference_path, "a") as f:
        f.write("\n# edited\n")
    assert ReferenceMemo.for_task(task, task.seed).path != before


def test_off_means_no_memo(task, monkeypatch):
    monkeypatch.setenv("JUDGE_MEMO", "off")
    assert ReferenceMemo.for_task(task, task.seed) is None


PEEK = textwrap.dedent("""
    import os
    import jax.numpy as jnp

    def cache_independent_count(x_a, x_b):
        for where in ({folder!r}, {file!r}):
            try:
                if os.path.isdir(where):
                    print("LISTED", os.listdir(where))
                else:
                    print("READ", len(open(where, "rb").read()))
            except OSError as exc:
                print("REFUSED", type(exc).__name__)
        return jnp.sum(x_a) * 0 + jnp.sum(x_b) * 0 + (x_a.size + x_b.size) * 0
""")


@pytest.mark.parametrize("mode", MODES)
def test_a_learner_cannot_read_the_memo(mode, task, memo, tmp_path):
    path = _made(task, memo, tmp_path)
    peek = put(tmp_path / "peek.py", PEEK.format(folder=str(memo), file=str(path)))
    report, _ = _grade(task, peek, isolation=mode)
    out = report["output"]["stdout"]
    assert "REFUSED" in out
    assert "LISTED" not in out and "READ" not in out
    assert path.name not in out


@pytest.mark.parametrize("kept_part", ["examples", "half_the_property"])
def test_a_memo_cut_short_answers_the_rest_as_a_run_without_it_would(kept_part, memo, monkeypatch):
    """A memo may hold only part of a run's answers (a run cut short).  The worker that
    starts for the rest first asks again what the memo answered, and then computes
    what the memo holds but was not asked yet, so the compiles it counts are those a
    worker running from the start counts: the budget on generated inputs is the same."""
    from judge.runner import args_key

    other = load_bank().get("bucketed_mean")
    wasteful = other.folder / "known" / "jit_per_length.py"  # a program per length
    monkeypatch.setenv("JUDGE_MEMO", "off")
    alone, _ = _grade(other, wasteful)
    monkeypatch.setenv("JUDGE_MEMO", str(memo))
    _grade(other, other.reference_path)
    [path] = memo.glob("*.pickle")
    kept = pickle.loads(path.read_bytes())
    examples = {args_key(ex.args) for ex in other.examples}
    generated = [k for k in kept["outcomes"] if k not in examples]  # in the order asked
    keep = examples if kept_part == "examples" else set(generated[: len(generated) // 2])
    kept["outcomes"] = {k: v for k, v in kept["outcomes"].items() if k in keep}
    assert len(kept["outcomes"]) == len(keep) > 0
    path.write_bytes(pickle.dumps(kept))
    after, graded = _grade(other, wasteful)
    assert graded.oracle.session.worker is not None
    assert alone["verdict"] == "inefficient"
    assert after == alone


def test_no_memo_where_the_learner_could_write_the_judges_files(task, memo, tmp_path, monkeypatch):
    """Process mode with neither Landlock nor a uid of its own (an old kernel, the same
    uid): the learner could plant answers for every later run, so the memo is neither
    read nor written."""
    from judge.sandbox import policy

    path = put(tmp_path / "submission.py", SOLUTION)
    _grade(task, path, isolation="process")
    [kept] = memo.glob("*.pickle")
    made = kept.stat().st_mtime_ns
    monkeypatch.setattr(policy, "landlock_abi", lambda: 0)
    monkeypatch.setattr(policy, "own_uid_possible", lambda: False)
    slow = put(tmp_path / "slow.py", SOLUTION + "\n# another file, another learner\n")
    report, graded = _grade(task, slow, isolation="process")
    assert "landlock" not in " ".join(report["isolation_layers"])
    assert graded.oracle.memo is None
    assert graded.oracle.session.worker is not None  # computed, not read
    assert report["verdict"] == "accepted"
    assert [p.stat().st_mtime_ns for p in memo.glob("*.pickle")] == [made]


def test_memos_of_other_keys_are_bounded(task, memo, tmp_path):
    """Another judge beside this one (a checkout and an install) keeps its memo of the
    same task and seed; older ones beyond a few go."""
    from judge.memo import KEPT_PER_SEED

    path = _made(task, memo, tmp_path)
    keeper = ReferenceMemo.for_task(task, task.seed)
    others = [
        ReferenceMemo(memo, task.id, task.seed, f"{i:024x}") for i in range(KEPT_PER_SEED + 2)
    ]
    for other in others:
        other.save({"outcomes": {}})
    kept = sorted(p.name for p in memo.glob("*.pickle"))
    assert len(kept) == KEPT_PER_SEED
    assert others[-1].path.name in kept and path.name not in kept
    keeper.save(keeper.load() or {"outcomes": {}})
    assert keeper.path.exists() and len(list(memo.glob("*.pickle"))) == KEPT_PER_SEED
