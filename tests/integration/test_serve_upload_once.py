"""Issue 21, the service's half: an upload is read from the request once, bounded and
decoded once, and the bytes it became (the ones hashed for the content key and stored)
are handed to the grading as they are.  No file is written to be read back (and bounded
again) on the way, and a notebook sent as its text is graded as that text.

Through HTTP (Starlette's test client) in this process, so the reads can be counted."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from starlette.testclient import TestClient  # noqa: E402

import judge.runner  # noqa: E402
import judge.session  # noqa: E402
import judge.sources  # noqa: E402
from judge.bank import load_bank  # noqa: E402
from judge.serve.access import Access  # noqa: E402
from judge.serve.app import create_app  # noqa: E402
from judge.serve.backends import LocalBackend  # noqa: E402
from judge.serve.service import Service  # noqa: E402
from judge.serve.store import Store  # noqa: E402

from helpers import TESTS, notebook  # noqa: E402

BANK = TESTS / "trust_bank"
RIGHT = "def double(x):\n    return x * 2\n"

# the test client warns that it would rather use httpx2; nothing here depends on which
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def watched(tmp_path, monkeypatch):
    """A service on the one-task bank, no warm workers, with every file read of a
    submission, every job the store hands out and every grading's source_bytes noted."""
    reads: list[Path] = []
    jobs: list = []
    handed: list = []
    real_read, real_start = judge.sources.read_submission, Store.start
    real_init = judge.runner.Grading.__init__

    def read(path, **kw):
        reads.append(Path(path))
        return real_read(path, **kw)

    def start(self, sub_id):
        job = real_start(self, sub_id)
        jobs.append(job)
        return job

    def init(self, task, submission, **kw):
        handed.append(kw.get("source_bytes"))
        real_init(self, task, submission, **kw)

    monkeypatch.setattr(judge.sources, "read_submission", read)
    monkeypatch.setattr(judge.session, "read_submission", read)
    monkeypatch.setattr(Store, "start", start)
    monkeypatch.setattr(judge.runner.Grading, "__init__", init)

    bank = load_bank(BANK)
    service = Service(
        bank,
        LocalBackend(bank, 0),
        state=tmp_path / "state.sqlite",
        workers=1,
        queue_limit=10,
        access=Access(None),
    )
    service.start()  # here, in the main thread, as `judge serve` does
    app = create_app(service, start=False)
    try:
        with TestClient(app, base_url="http://127.0.0.1", client=("127.0.0.1", 50000)) as client:
            yield client, reads, jobs, handed
    finally:
        service.close()


def _graded(client, sub_id: str) -> dict:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        answer = client.get(f"/v1/submissions/{sub_id}", params={"wait": 30})
        if answer.status_code == 200:
            return answer.json()
        assert answer.status_code == 202, answer.text
    raise AssertionError(f"{sub_id} not graded in time")


def _learners_reads(reads: list[Path]) -> list[Path]:
    """The reads of anything but the bank's own files (the reference's worker reads the
    reference's file, as it should)."""
    bank = BANK.resolve()
    return [p for p in reads if not p.resolve().is_relative_to(bank)]


def test_the_upload_is_read_once_and_the_stored_bytes_are_graded(watched):
    client, reads, jobs, handed = watched
    answer = client.post("/v1/submissions", json={"task": "double", "source": RIGHT})
    assert answer.status_code == 202, answer.text
    report = _graded(client, answer.json()["id"])
    assert report["verdict"] == "accepted", report
    assert report["submission"] == "submission.py"

    assert [job.source for job in jobs] == [RIGHT.encode()]
    # the very bytes the store handed out, not a copy read back from a file
    assert len(handed) == 1 and handed[0] is jobs[0].source
    assert _learners_reads(reads) == [], reads


def test_a_notebook_sent_as_text_is_graded_as_that_text(watched):
    client, reads, jobs, handed = watched
    text = notebook(("markdown", "# week 1"), ("code", RIGHT))
    answer = client.post("/v1/submissions", json={"task": "double", "notebook": text})
    assert answer.status_code == 202, answer.text
    report = _graded(client, answer.json()["id"])
    assert report["verdict"] == "accepted", report
    assert report["submission"] == "submission.ipynb"

    # as sent (nbformat's indentation and all), not parsed and written out again
    assert [job.source for job in jobs] == [text.encode()]
    assert len(handed) == 1 and handed[0] is jobs[0].source
    assert _learners_reads(reads) == [], reads
