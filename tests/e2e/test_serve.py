"""judge serve against a real server process on loopback, called as a course site calls
it: the API, the store answering repeats, warm workers never shared, isolation as
`judge run`, a looping submission that holds up nobody, callbacks, the queue's bound,
tokens and their rate limits."""

from __future__ import annotations

import http.server
import json
import threading
import time
from pathlib import Path

import pytest

from helpers.serve_server import (
    CRASH,
    LOOP,
    RIGHT,
    TASK,
    WRONG,
    Server,
    judge_run_json,
    make_bank,
    unique,
)


@pytest.fixture(scope="module")
def bank(tmp_path_factory) -> Path:
    return make_bank(tmp_path_factory.mktemp("serve") / "bank")


@pytest.fixture(scope="module")
def served(bank, tmp_path_factory):
    server = Server(
        bank,
        tmp_path_factory.mktemp("state") / "state.sqlite",
        "--workers",
        "2",
        "--warm",
        "2",
        "--allow-callback-host",
        "127.0.0.1",
    )  # the receiver below is here
    try:
        server.wait_warm()
        yield server
    finally:
        server.close()


def comparable(report: dict) -> dict:
    """The report without what changes from run to run: timings, the file's name."""

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in ("seconds", "elapsed_s")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    out = strip(report)
    out.pop("submission", None)
    return out


@pytest.mark.parametrize("kind, source", [("right", RIGHT), ("wrong", WRONG), ("crash", CRASH)])
def test_the_report_is_the_judge_run_report(served, bank, tmp_path, kind, source):
    source = unique(source, f"report-{kind}")
    answer = served.submit(source)
    assert set(answer) == {"id", "state", "deduplicated"} and answer["state"] == "queued"
    report = served.result(answer["id"])
    assert served.state_of(answer["id"]) == "done"
    # the service forks its workers from a warm sandbox where that works: `judge run
    # --isolation forked` is the same grading
    expected = judge_run_json(bank, TASK, source, tmp_path, isolation=served.health()["isolation"])
    assert comparable(report) == comparable(expected)
    assert report["submission"] == "submission.py"
    assert (
        report["verdict"]
        == {"right": "accepted", "wrong": "wrong_answer", "crash": "runtime_error"}[kind]
    )


def test_a_repeat_answers_from_the_store(served):
    source = unique(RIGHT, "repeat")
    first = served.submit(source)
    report = served.result(first["id"])
    graded = served.metric("judge_gradings_total", verdict="accepted")
    again = served.submit(source)
    assert again == {"id": first["id"], "state": "done", "deduplicated": True}
    assert served.http.get(f"/v1/submissions/{first['id']}").json() == report
    other_seed = served.submit(source, seed=12345)  # another seed is another grading
    assert other_seed["id"] != first["id"] and not other_seed["deduplicated"]
    assert served.result(other_seed["id"])["seed"] == 12345
    assert served.metric("judge_gradings_total", verdict="accepted") == graded + 1
    assert served.metric("judge_submissions_total", outcome="deduplicated") >= 1


def test_a_looping_submission_holds_up_nobody(served):
    looping = served.submit(unique(LOOP, "looping"))
    assert looping["state"] == "queued"
    pending = served.http.get(f"/v1/submissions/{looping['id']}", params={"wait": 0.5})
    assert pending.status_code == 202  # answered while it grades
    body = pending.json()
    assert body["id"] == looping["id"] and body["task"] == TASK
    assert (
        body["state"] in ("queued", "running") and pending.headers["Judge-State"] == body["state"]
    )
    right = served.submit(unique(RIGHT, "beside-the-loop"))
    assert served.result(right["id"])["verdict"] == "accepted"
    assert served.state_of(looping["id"]) in ("queued", "running")  # still at it
    assert served.result(looping["id"])["verdict"] == "time_limit_exceeded"


def test_warm_workers_are_never_shared(served):
    """The first submission leaves a file in its folder and a mark in its interpreter;
    the second would add 1000 to its answer if it saw either."""
    leaves_marks = (
        "import builtins, os\n"
        "open('left-behind', 'w').write('x')\n"
        "builtins.LEFT_BEHIND = True\n"
        "os.environ['LEFT_BEHIND'] = '1'\n" + RIGHT
    )
    looks_for_them = RIGHT.replace(
        "def cache_independent_count(x_a, x_b):",
        "import builtins, os\n\n\n"
        "def _seen():\n"
        "    return (os.path.exists('left-behind') or hasattr(builtins, 'LEFT_BEHIND')\n"
        "            or 'LEFT_BEHIND' in os.environ)\n\n\n"
        "def cache_independent_count(x_a, x_b):\n"
        "    if _seen():\n"
        "        return 1000.0\n",
        1,
    )
    assert looks_for_them != RIGHT
    used = served.metric("judge_warm_workers_used")
    for i in range(2):  # more than the pool holds: every worker of it is tried
        first = served.submit(unique(leaves_marks, f"leaves-{i}"))
        assert served.result(first["id"])["verdict"] == "accepted"
        second = served.submit(unique(looks_for_them, f"looks-{i}"))
        assert served.result(second["id"])["verdict"] == "accepted"
    assert served.metric("judge_warm_workers_used") >= used + 4  # and they were warm


def test_isolation_is_judge_runs(served, bank, tmp_path):
    """A warm worker hides the bank and the judge as `judge run`'s does."""
    peeks = RIGHT.replace(
        "def cache_independent_count(x_a, x_b):",
        "import importlib, os\n\n\n"
        "def _reached():\n"
        f"    for path in ({str(bank / 'reference' / (TASK + '.py'))!r}, {str(bank / 'tasks.yaml')!r}):\n"
        "        try:\n"
        "            if open(path).read():\n"
        "                return True\n"
        "        except OSError:\n"
        "            pass\n"
        "    for name in ('judge', 'reference'):\n"
        "        try:\n"
        "            importlib.import_module(name)\n"
        "            return True\n"
        "        except ImportError:\n"
        "            pass\n"
        "    return False\n\n\n"
        "def cache_independent_count(x_a, x_b):\n"
        "    if _reached():\n"
        "        return 1000.0\n",
        1,
    )
    report = served.result(served.submit(peeks)["id"])
    expected = judge_run_json(bank, TASK, peeks, tmp_path, isolation=served.health()["isolation"])
    assert report["verdict"] == expected["verdict"] == "accepted"
    assert report["isolation"] == expected["isolation"]


def test_bad_requests_get_clear_errors_and_store_nothing(served):
    before = served.health()
    post = lambda **kw: served.http.post("/v1/submissions", **kw)
    cases = [
        (post(content=b"{not json", headers={"Content-Type": "application/json"}), 400, "not JSON"),
        (post(json=[1, 2]), 400, "JSON object"),
        (post(json={"task": "cache_independant_count", "source": RIGHT}), 422, "Did you mean"),
        (post(json={"task": TASK}), 422, "exactly one of 'source'"),
        (post(json={"task": TASK, "source": RIGHT, "notebook": {}}), 422, "exactly one"),
        (post(json={"task": TASK, "source": RIGHT, "sede": 1}), 422, "unknown field sede"),
        (post(json={"task": TASK, "source": RIGHT, "seed": "one"}), 422, "'seed'"),
        (post(json={"task": TASK, "source": RIGHT, "strict": "yes"}), 422, "'strict'"),
        (
            post(json={"task": TASK, "source": RIGHT, "callback_url": "file:///etc/passwd"}),
            422,
            "callback_url",
        ),
        (post(json={"task": TASK, "notebook": "{"}), 422, "not JSON"),
        (post(json={"task": TASK, "source": "#" * (600 * 1024)}), 413, "at most"),
        (served.http.get("/v1/submissions/nope"), 404, "no submission"),
        (served.http.get("/v1/submissions/nope", params={"wait": "soon"}), 400, "'wait'"),
        (served.http.get("/v1/tasks/nope"), 404, "unknown task"),
    ]
    for answer, status, words in cases:
        assert answer.status_code == status, (answer.status_code, answer.text)
        assert words in answer.json()["error"], answer.text
    assert served.http.post(
        "/v1/submissions", json={"task": "cache_independant_count", "source": RIGHT}
    ).json()["closest"] == [TASK]
    after = served.health()
    assert (after["queue"], after["graded"]) == (before["queue"], before["graded"])


def test_tasks_health_and_metrics(served, bank):
    listing = served.http.get("/v1/tasks").json()
    assert [t["id"] for s in listing["steps"] for t in s["tasks"]] == [TASK]
    task = served.http.get(f"/v1/tasks/{TASK}").json()
    assert task["starter"] == (bank / "tasks" / TASK / "starter.py").read_text()
    assert task["signature"].startswith("cache_independent_count(")
    assert "<h1>" in task["statement_html"] and "jax.jit" in task["statement"]
    assert [c["id"] for c in task["checks"]] == [
        "examples",
        "property",
        "retrace",
        "host_sync",
    ]  # host_sync: the default
    assert task["checks"][2]["required"] is False and task["checks"][2]["doc"]

    health = served.health()
    assert health["status"] == "ok" and health["access"] == "loopback"
    assert health["scheduler"] == "local" and health["grading_slots"] == 2

    from prometheus_client.parser import text_string_to_metric_families

    answer = served.http.get("/metrics")
    assert answer.headers["content-type"].startswith("text/plain")
    families = {f.name: f for f in text_string_to_metric_families(answer.text)}
    for name in (
        "judge_queue_depth",
        "judge_running",
        "judge_gradings",
        "judge_latency_seconds",
        "judge_workers_warm",
        "judge_oracles_warm",
        "judge_submissions",
    ):
        assert name in families, name
    assert families["judge_latency_seconds"].type == "histogram"
    # the task's reference warms with its first grading; this test may be the first one
    # on its server (--dist worksteal spreads a module's tests over the workers' servers)
    report = served.result(served.submit(unique(RIGHT, "metrics"))["id"])
    assert report["verdict"] == "accepted"
    assert served.metric("judge_oracles_warm") == 1


def test_a_notebook_is_graded(served, bank, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("my answer"), nbformat.v4.new_code_cell(RIGHT)]
    answer = served.http.post("/v1/submissions", json={"task": TASK, "notebook": nb})
    assert answer.status_code == 202, answer.text
    report = served.result(answer.json()["id"])
    assert report["verdict"] == "accepted" and report["submission"] == "submission.ipynb"


def test_a_notebook_holding_a_lone_surrogate_is_the_learners_invalid_submission(served):
    cell = {
        "cell_type": "code",
        "source": "x = '\\ud800'",
        "metadata": {},
        "outputs": [],
        "execution_count": None,
        "id": "c1",
    }
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    body = json.dumps({"task": TASK, "notebook": notebook}).replace("\\\\ud800", "\\ud800")
    assert "\\ud800" in body and "\\\\ud800" not in body  # JSON's escape: a lone surrogate
    answer = served.http.post(
        "/v1/submissions", content=body.encode(), headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 202, answer.text
    report = served.result(answer.json()["id"])
    assert report["verdict"] == "invalid_submission", report["verdict"]


def test_the_html_report_escapes_what_the_learner_wrote(served):
    shouts = "print('<script>alert(1)</script>')\n" + RIGHT
    sub = served.submit(unique(shouts, "html"))
    assert served.result(sub["id"])["output"]["stdout"].startswith("<script>")
    page = served.http.get(f"/v1/submissions/{sub['id']}/report.html").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
    assert 'data-verdict="accepted"' in page
    assert page.count('<g class="call') == 8  # the retrace script, drawn


class _Receiver(http.server.BaseHTTPRequestHandler):
    """Answers 500 to the first POST of each submission, then 204."""

    received: list = []
    failed: set = set()

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        sub = self.headers["Judge-Submission"]
        if sub not in self.failed:
            self.failed.add(sub)
            self.send_response(500)
        else:
            self.received.append((sub, json.loads(body)))
            self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receiver():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/graded", _Receiver.received
    finally:
        server.shutdown()
        server.server_close()


def test_callbacks_are_retried_and_never_hold_up_grading(served, receiver):
    url, received = receiver
    dead = "http://127.0.0.1:9/nobody-listens"  # the discard port: refused
    unreachable = served.submit(unique(RIGHT, "cb-dead"), callback_url=dead)
    sub = served.submit(unique(WRONG, "cb"), callback_url=url)
    report = served.result(sub["id"])
    after = served.submit(unique(RIGHT, "cb-after"))
    assert served.result(after["id"])["verdict"] == "accepted"  # not held up by either
    deadline = time.monotonic() + 60
    while not any(s == sub["id"] for s, _ in received) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [(s, r) for s, r in received if s == sub["id"]] == [(sub["id"], report)]
    assert served.result(unreachable["id"])["verdict"] == "accepted"
    assert served.metric("judge_callbacks_total", result="failed") >= 2  # the 500 and the refusal


def test_the_start_says_who_may_call(served):
    assert "answering this machine only" in served.log


@pytest.mark.slow
def test_a_full_queue_answers_503_with_retry_after(bank, tmp_path):
    server = Server(
        bank, tmp_path / "state.sqlite", "--workers", "1", "--warm", "1", "--queue", "1"
    )
    try:
        looping = server.submit(unique(LOOP, "full-1"))
        deadline = time.monotonic() + 60
        while server.state_of(looping["id"]) != "running" and time.monotonic() < deadline:
            time.sleep(0.1)
        waiting = server.submit(unique(RIGHT, "full-2"))  # the one place
        refused = server.http.post(
            "/v1/submissions", json={"task": TASK, "source": unique(RIGHT, "full-3")}
        )
        assert refused.status_code == 503
        assert int(refused.headers["Retry-After"]) >= 1
        assert "queue is full" in refused.json()["error"]
        assert server.submit(unique(RIGHT, "full-2"))["id"] == waiting["id"]  # a repeat fits
        assert server.metric("judge_submissions_total", outcome="queue_full") == 1
        assert server.result(waiting["id"])["verdict"] == "accepted"
    finally:
        server.close()


@pytest.mark.slow
def test_tokens_and_their_rate_limits(bank, tmp_path):
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(
        "tokens:\n"
        "  - {name: site, token: site-token-0123456789}\n"
        "  - {name: lab, token: lab-token-0123456789, per_minute: 2}\n"
    )
    server = Server(bank, tmp_path / "state.sqlite", "--tokens", str(tokens), "--warm", "1")
    try:
        assert "2 tokens from" in server.log and "every /v1 call needs one" in server.log
        body = {"task": TASK, "source": unique(RIGHT, "token")}
        post = lambda token=None, **kw: server.http.post(
            "/v1/submissions",
            json=kw.get("json", body),
            headers={"Authorization": f"Bearer {token}"} if token else {},
        )
        assert post().status_code == 401 and post().headers["WWW-Authenticate"] == "Bearer"
        assert post("site-token-wrong-0123456789").status_code == 401
        assert server.http.get("/v1/tasks").status_code == 401
        assert server.http.get("/healthz").json()["access"] == "token"
        ok = post("site-token-0123456789")
        assert ok.status_code == 202
        for i in range(2):
            assert (
                post("lab-token-0123456789", json=dict(body, source=unique(RIGHT, i))).status_code
                == 202
            )
        limited = post("lab-token-0123456789", json=dict(body, source=unique(RIGHT, "3rd")))
        assert limited.status_code == 429 and 1 <= int(limited.headers["Retry-After"]) <= 60
        assert "2 submissions a minute" in limited.json()["error"]
        assert (
            post("site-token-0123456789", json=dict(body, source=unique(RIGHT, "s2"))).status_code
            == 202
        )  # others are not limited
        report = server.http.get(
            f"/v1/submissions/{ok.json()['id']}",
            params={"wait": 60},
            headers={"Authorization": "Bearer site-token-0123456789"},
        )
        assert report.status_code == 200 and report.json()["verdict"] == "accepted"
    finally:
        server.close()


def test_a_bad_tokens_file_is_refused_at_start(bank, tmp_path):
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text("tokens:\n  - {name: site, token: short}\n")
    import subprocess

    from helpers.serve_server import JUDGE

    res = subprocess.run(
        [
            JUDGE,
            "--bank",
            str(bank),
            "serve",
            "--port",
            "0",
            "--state",
            str(tmp_path / "s.sqlite"),
            "--tokens",
            str(tokens),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2
    assert "token 'site'" in res.stderr and "at least 16 characters" in res.stderr
