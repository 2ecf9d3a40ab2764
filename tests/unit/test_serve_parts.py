"""The service's parts on their own, without a server process: the store, who may call,
the rate limit, the loopback rule, what `judge run` does not import.

Here: the tests that start no process; tests/integration/test_serve_parts.py has those that
grade in a worker."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from judge.serve.access import Access, Client, RateLimiter, TokensError, is_loopback, load_tokens  # noqa: E402
from judge.serve.callbacks import backoff_s  # noqa: E402
from judge.serve.store import Store, StoreError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _add(store, key="k1", **kw):
    fields = dict(
        key=key,
        task="t",
        seed=1,
        strict=False,
        filename="submission.py",
        source=b"print(1)",
        client="loopback",
        callback_url=None,
    )
    return store.add(**{**fields, **kw})


def _report(verdict="accepted"):
    return {
        "task": "t",
        "submission": "submission.py",
        "verdict": verdict,
        "seed": 1,
        "elapsed_s": 0.1,
        "judge_version": "0",
        "checks": [],
        "output": {},
    }


def test_store_keeps_order_dedupes_and_records_once(tmp_path):
    store = Store(tmp_path / "s.sqlite").open()
    a, b = _add(store, "k1"), _add(store, "k2")
    assert not a.deduplicated and a.state == "queued"
    assert _add(store, "k1") == type(a)(a.id, "queued", True)
    assert _add(store, "k3", create=False) is None
    assert store.queued_ids() == [a.id, b.id]
    job = store.start(a.id)
    assert job.attempts == 1 and job.source == b"print(1)"
    assert store.start(a.id) is None  # running: not started twice
    store.finish(a.id, _report())
    store.finish(a.id, _report("wrong_answer"))  # done: not written again
    assert json.loads(store.get(a.id)["report"])["verdict"] == "accepted"
    assert _add(store, "k1").id == a.id  # done: answered from the store
    assert store.counts() == {"queued": 1, "running": 0, "done": 1}
    store.close()


def test_a_judge_error_is_not_answered_from_the_store(tmp_path):
    store = Store(tmp_path / "s.sqlite").open()
    a = _add(store)
    store.start(a.id)
    store.finish(a.id, _report("judge_error"))
    again = _add(store)
    assert again.id != a.id and not again.deduplicated
    store.close()


def test_opening_requeues_what_a_crash_left_running(tmp_path):
    store = Store(tmp_path / "s.sqlite").open()
    a, b = _add(store, "k1"), _add(store, "k2")
    store.start(a.id)
    store.close()  # as a SIGKILL leaves it: a running
    reopened = Store(tmp_path / "s.sqlite").open()
    assert reopened.requeued == 1
    assert reopened.queued_ids() == [a.id, b.id]  # in its old place
    assert reopened.start(a.id).attempts == 2
    reopened.close()


def test_a_file_that_is_not_a_state_file_is_refused(tmp_path):
    bad = tmp_path / "notes.sqlite"
    bad.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="cannot be used as the service's state file"):
        Store(bad).open()
    assert bad.read_text().startswith("these are my notes")


def test_callbacks_are_owed_until_tried(tmp_path):
    store = Store(tmp_path / "s.sqlite").open()
    a = _add(store, callback_url="http://127.0.0.1:1/cb")
    assert store.callbacks_due(1e12, set()) == []  # not graded yet: nothing owed
    store.start(a.id)
    store.finish(a.id, _report())
    (cb,) = store.callbacks_due(1e12, set())
    assert store.callbacks_due(1e12, {cb.id}) == []  # in flight: not sent twice
    store.callback_tried(cb.id, delivered=False, error="HTTP 500", retry_at=5e11)
    assert store.callbacks_due(1e11, set()) == [] and store.next_callback_at() == 5e11
    store.callback_tried(cb.id, delivered=False, error="HTTP 500", retry_at=None)
    assert store.callback_states(a.id) == [
        {"url": "http://127.0.0.1:1/cb", "state": "failed", "attempts": 2, "last_error": "HTTP 500"}
    ]
    assert [backoff_s(n) for n in (1, 2, 3, 4)] == [1, 2, 4, 8]
    store.close()


def test_tokens_file_errors_name_the_entry(tmp_path):
    path = tmp_path / "tokens.yaml"
    cases = {
        "tokens: []\n": "non-empty list",
        "- just a list\n": "non-empty list",
        "tokens:\n  - {name: a, token: 0123456789abcdef, per_minute: 0}\n": "token 'a': 'per_minute'",
        "tokens:\n  - {name: a, token: short}\n": "token 'a': 'token' must be",
        "tokens:\n  - {name: a, token: 0123456789abcdef, rate: 5}\n": "unknown field rate",
        "tokens:\n  - {name: a, token: 0123456789abcdef}\n  - {name: a, token: 0123456789abcdeg}\n": "used twice",
        "tokens:\n  - {name: a, token: 0123456789abcdef}\n  - {name: b, token: 0123456789abcdef}\n": "the same token as 'a'",
        "tokens: [\n": "not valid YAML",
    }
    for text, words in cases.items():
        path.write_text(text)
        with pytest.raises(TokensError, match=words.replace("(", r"\(")):
            load_tokens(path)
    with pytest.raises(TokensError, match="cannot be read"):
        load_tokens(tmp_path / "missing.yaml")


def test_access_by_token_or_loopback(tmp_path):
    path = tmp_path / "tokens.yaml"
    path.write_text("tokens:\n  - {name: site, token: 0123456789abcdef, per_minute: 3}\n")
    tokens = Access(load_tokens(path))
    assert tokens.client("Bearer 0123456789abcdef", "203.0.113.9") == Client("site", 3)
    assert tokens.client("bearer  0123456789abcdef ", "203.0.113.9").name == "site"
    assert tokens.client("Bearer 0123456789abcdeX", "127.0.0.1") == "unauthorized"
    assert tokens.client(None, "127.0.0.1") == "unauthorized"  # loopback needs one too
    assert tokens.client("Basic 0123456789abcdef", "127.0.0.1") == "unauthorized"
    open_ = Access(None)
    assert open_.client(None, "127.0.0.1").name == "loopback"
    assert open_.client(None, "::1").name == "loopback"
    assert open_.client(None, "192.168.1.20") == "forbidden"
    assert open_.client("Bearer anything-at-all-here", "203.0.113.9") == "forbidden"
    assert not is_loopback("localhost") and not is_loopback(None) and is_loopback("127.8.0.1")


def test_rate_limit_is_a_sliding_minute():
    limiter, lab = RateLimiter(), Client("lab", 2)
    assert limiter.allow(lab, 100.0) == (True, 0)
    assert limiter.allow(lab, 130.0) == (True, 0)
    assert limiter.allow(lab, 150.0) == (False, 10)  # the first leaves the window at 160
    assert limiter.allow(lab, 160.5) == (True, 0)
    assert limiter.allow(Client("site"), 160.5) == (True, 0)  # no limit set


def test_without_tokens_other_machines_are_refused():
    import anyio
    import httpx

    from judge.bank import load_bank
    from judge.serve.app import create_app
    from judge.serve.service import Service

    class Idle:  # no grading here: only who may call is tested
        name = "idle"

        def status(self):
            return {}

    service = Service(
        load_bank(None), Idle(), state=":memory:", workers=1, queue_limit=1, access=Access(None)
    )
    app = create_app(service, start=False, close=False)

    async def ask(client):
        transport = httpx.ASGITransport(app=app, client=client)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            return await http.get("/v1/tasks")

    far = anyio.run(ask, ("198.51.100.7", 40000))
    assert far.status_code == 403 and "this machine only" in far.json()["error"]
    near = anyio.run(ask, ("127.0.0.1", 40000))
    assert near.status_code == 200 and near.json()["steps"]


def test_state_file_is_sqlite(tmp_path):
    store = Store(tmp_path / "s.sqlite").open()
    _add(store)
    store.close()
    db = sqlite3.connect(tmp_path / "s.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0] == 1


@pytest.mark.parametrize(
    "listen, host, served",
    [
        ("::1", "[::1]:8000", True),
        ("::1", "localhost:8000", True),
        ("::1", "127.0.0.1:8000", False),
        ("0.0.0.0", "127.0.0.1:8000", True),
        ("0.0.0.0", "[::1]", True),
        ("0.0.0.0", "10.1.2.3:8000", False),
        ("127.0.0.1", "rebind.example", False),
    ],
)
def test_the_host_names_served(listen, host, served):
    """The listen address as browsers write it in Host (an IPv6 one in brackets), and
    the loopback addresses when listening on every interface."""
    import anyio
    import httpx

    from judge.bank import load_bank
    from judge.serve.app import create_app
    from judge.serve.doors import Doors
    from judge.serve.service import Service

    class Idle:
        name = "idle"

        def status(self):
            return {}

    service = Service(
        load_bank(None),
        Idle(),
        state=":memory:",
        workers=1,
        queue_limit=1,
        access=Access(None),
        doors=Doors(listen_host=listen),
    )
    app = create_app(service, start=False, close=False)

    async def ask():
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as http:
            return await http.get("/v1/tasks", headers={"Host": host})

    assert (anyio.run(ask).status_code == 200) == served


def test_the_queue_keeps_each_callers_share_and_takes_turns(tmp_path):
    """Each caller holds at most its share of the places, and the callers take turns
    for the grading slots: here after a restart, with one caller's flood stored first."""
    import threading

    from judge.serve.queue import GradingQueue

    store = Store(tmp_path / "s.sqlite").open()
    for i, who in enumerate(["script"] * 3 + ["site"]):
        _add(store, f"k{i}", client=who)
    ids = {r[0]: r[1] for r in store.queued()}
    graded, done = [], threading.Event()

    class Backend:
        def grade(self, job, *, fresh=False):
            graded.append(ids[job.id])
            if len(graded) == 4:
                done.set()
            return _report()

    queue = GradingQueue(store, Backend(), workers=1, limit=6, callers=2, on_change=lambda *a: None)
    assert [queue.reserve("script") for _ in range(4)] == [True, True, True, False]
    assert queue.reserve("site") and queue.reserve("lab")
    for who in ("script", "script", "script", "site", "lab"):
        queue.put(None, who)  # given back
    queue.start()
    assert done.wait(30)
    queue.close()
    assert graded == ["script", "site", "script", "script"]
    store.close()
