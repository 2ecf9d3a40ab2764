"""The judge's own hands in the learner's folders (issue 19): what the judge does as
root inside a tree the learner can write, graded end to end with `judge run` in every
isolation mode.

The learner's code can rename, replace and link anything in its scratch, its private
/tmp and the folder where XLA records its compiles.  What must hold: nothing outside
the worker's scratch is created, changed or removed because of it (a host folder's
files survive, whatever the links say), and a compile count the learner moved, linked
away or starved is tampering (runtime_error, said so), never a cross-check quietly
skipped.  A right submission is still accepted beside them.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from helpers import run_judge
from helpers.isolation_modes import MODES

pytestmark = pytest.mark.slow  # end to end: a judge process per case and mode

TASK = "masked_row_sums"

# the reference's body, as the learner's own code: every case computes the right values
RIGHT = """
import jax
import jax.numpy as jnp


def _body(values, lengths):
    positions = jnp.arange(values.shape[1])
    mask = positions[None, :] < lengths[:, None]
    return jnp.sum(jnp.where(mask, values, 0.0), axis=1)
"""

RECORDS = '''
import gc, os, sys
RECORDS = os.path.join(os.environ.get("TMPDIR") or os.getcwd(), ".jj-xla")


def link_records_to(target):
    """The compile records' folder moved aside, a link to ``target`` in its place."""
    os.rename(RECORDS, RECORDS + ".moved")
    os.symlink(target, RECORDS)


def blind_the_worker(count=True):
    """jax's listeners cleared and the worker's check of them made to see nothing (and,
    without ``count``, the probe's total left out of every reply)."""
    from jax._src import monitoring

    monitoring._scalar_listeners.clear()
    monitoring._event_duration_secs_listeners.clear()

    class Quiet:
        def changes(self):
            return []
    loop_class = sys.modules["_jj_worker.main"].Loop
    for thing in gc.get_objects():
        if type(thing) is loop_class:
            thing._watch.check = Quiet()
            if not count:
                thing._watch.compiles_seen = lambda: None
'''


def grade(tmp_path: Path, source: str, mode: str) -> dict:
    submission = tmp_path / f"{TASK}.py"
    submission.write_text(RIGHT + RECORDS + source)
    proc = run_judge(
        "run", TASK, submission, "--format", "json", "--isolation", mode, "--examples", "30"
    )
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr[-2000:])
    return json.loads(proc.stdout)


def instruments_message(report: dict) -> str:
    return next((c["message"] for c in report["checks"] if c["id"] == "instruments"), "")


def host_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "host"
    folder.mkdir()
    (folder / "classmate.py").write_text("def masked_row_sums(v, l): ...\n")
    return folder


@pytest.mark.parametrize("mode", MODES)
def test_a_right_submission_is_still_accepted(tmp_path, mode):
    report = grade(tmp_path, "\nmasked_row_sums = jax.jit(_body)\n", mode)
    assert report["verdict"] == "accepted", report["checks"]


@pytest.mark.parametrize("mode", MODES)
def test_a_link_in_place_of_the_compile_records_makes_the_judge_delete_nothing(tmp_path, mode):
    """The learner names a host file in the records' folder, then links the folder to
    the host's: the judge, pruning XLA's dumps, would unlink the host file by its name."""
    host = host_folder(tmp_path)
    report = grade(
        tmp_path,
        f"""
_done = []


def masked_row_sums(values, lengths):
    if not _done:
        _done.append(1)
        open(os.path.join(RECORDS, "classmate.py"), "w").close()
        link_records_to({str(host)!r})
    return jax.jit(_body)(values, lengths)
""",
        mode,
    )
    assert (host / "classmate.py").read_text() == "def masked_row_sums(v, l): ...\n"
    assert report["verdict"] == "runtime_error"
    assert "XLA's records of your compiles was moved or removed" in instruments_message(report)


@pytest.mark.parametrize("mode", MODES)
def test_a_compile_records_folder_linked_to_the_host_before_the_judge_looks(tmp_path, mode):
    """Linked at import, before today's judge opened its log: the judge watched and
    pruned the host's folder, deleting what another program wrote there, and said
    nothing.  A host program writes files there all along the grading."""
    host = host_folder(tmp_path)
    written, stop = [], threading.Event()

    def other_program():
        while not stop.wait(0.02):
            path = host / f"log-{len(written)}.txt"
            path.write_text("mine")
            written.append(path)

    writer = threading.Thread(target=other_program)
    writer.start()
    try:
        report = grade(
            tmp_path,
            f"""
link_records_to({str(host)!r})


def masked_row_sums(values, lengths):
    return jax.jit(_body)(values, lengths)
""",
            mode,
        )
    finally:
        stop.set()
        writer.join()
    assert written and [p for p in written if not p.exists()] == []
    assert (host / "classmate.py").exists()
    assert report["verdict"] == "runtime_error"
    assert "XLA's records of your compiles was moved or removed" in instruments_message(report)


@pytest.mark.parametrize("mode", MODES)
def test_a_compile_log_linked_to_nowhere_does_not_blind_the_count(tmp_path, mode):
    """A fresh jit on every call, jax's listeners cleared, the worker's check patched,
    and the records' folder linked to a missing path: today's judge opened no log and
    accepted 'compiled again 0 times'."""
    report = grade(
        tmp_path,
        """
link_records_to("/nonexistent-jj-records")
blind_the_worker()


def masked_row_sums(values, lengths):
    return jax.jit(_body)(values, lengths)
""",
        mode,
    )
    assert report["verdict"] == "runtime_error"
    assert "XLA's records of your compiles was moved or removed" in instruments_message(report)


@pytest.mark.parametrize("mode", MODES)
def test_a_reply_without_the_probes_total_is_still_matched_with_xlas_count(tmp_path, mode):
    """The same blinding, the folder left alone, but the probe's total left out of every
    reply: today's judge skipped its cross-check for want of that figure."""
    report = grade(
        tmp_path,
        """
blind_the_worker(count=False)


def masked_row_sums(values, lengths):
    return jax.jit(_body)(values, lengths)
""",
        mode,
    )
    assert report["verdict"] == "runtime_error"
    message = instruments_message(report)
    assert "XLA compiled" in message and "during its calls" in message, message
