"""check() and hint() from a learner's install, against the course's `judge serve`: the
source sent is the one `judge run` would grade, the report shown is the report `judge
run` gives, the hints are the bank's, and nothing is read from a local bank (a
learner's has no references).  The client's own rules (JSON on every call, a redirect
never followed with the token) against a stand-in server."""

from __future__ import annotations

import http.server
import importlib.util
import json
import socket
import threading
from pathlib import Path

import pytest

from judge import check, hint
from judge.learner_api import CheckError, assemble
from judge.remote import ServiceError

from helpers import TASK
from helpers.isolation_modes import MODES
from helpers.serve_server import Server, judge_run_json, make_bank

TOKEN = "learner-token-0123456789"
MINE = """import jax
import jax.numpy as jnp

_sum = jax.jit(jnp.sum)


def helper(v):
    return _sum(v)


def my_count(x_a, x_b):
    return helper(x_a) + helper(x_b)


def too_short(x_a, x_b):
    return helper(x_a)
"""


@pytest.fixture(scope="module")
def bank(tmp_path_factory) -> Path:
    return make_bank(tmp_path_factory.mktemp("learner") / "bank")


@pytest.fixture(scope="module", params=MODES)
def served(request, bank, tmp_path_factory):
    """The course's service, as a lab runs it (every call needs a token), grading in
    each isolation mode (its gradings take $JUDGE_ISOLATION as `judge run` does)."""
    root = tmp_path_factory.mktemp("service")
    tokens = root / "tokens.yaml"
    tokens.write_text(f"tokens:\n  - {{name: learners, token: {TOKEN}}}\n")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("JUDGE_ISOLATION", request.param)
        server = Server(
            bank, root / "state.sqlite", "--tokens", str(tokens), "--workers", "1", "--warm", "1"
        )
    server.isolation = request.param
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def learner(monkeypatch, tmp_path):
    """A learner's session: no local bank to be had (JUDGE_BANK names nothing), no
    service chosen yet."""
    monkeypatch.setenv("JUDGE_BANK", str(tmp_path / "no-bank-here"))
    for name in ("JUDGE_SERVER", "JUDGE_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def load_mine(tmp_path: Path):
    path = tmp_path / "mine.py"
    path.write_text(MINE)
    spec = importlib.util.spec_from_file_location("mine_for_service", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def comparable(report: dict) -> dict:
    """What a grading decides: the verdict, the score, each check with its words and
    figures (its timings aside), the learner's output."""

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in ("seconds", "elapsed_s")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    return strip(
        {k: report[k] for k in ("task", "verdict", "seed", "score", "checks", "output", "strict")}
    )


# ---------------------------------------------------------------- check()


@pytest.mark.parametrize("name, verdict", [("my_count", "accepted"), ("too_short", "wrong_answer")])
def test_check_on_the_service_gives_the_report_judge_run_gives(
    served, bank, learner, tmp_path, name, verdict
):
    fn = getattr(load_mine(tmp_path), name)
    learner.setenv("JUDGE_SERVER", served.url)
    learner.setenv("JUDGE_TOKEN", TOKEN)
    report = check(TASK, fn)
    learner.setenv("JUDGE_ISOLATION", served.isolation)
    expected = judge_run_json(bank, TASK, assemble(fn, TASK).source, tmp_path)
    assert expected["verdict"] == verdict
    assert report.isolation == expected["isolation"] == served.isolation
    assert comparable(report.to_dict()) == comparable(expected)
    assert [(c.id, c.status.value) for c in report.checks] == [
        (c["id"], c["status"]) for c in expected["checks"]
    ]
    assert report.submission == f"{name} (from mine.py)"
    assert report.notes[0].startswith(f"graded {name} as {TASK}, with jax (mine.py line 1)")
    assert report.notes[-1].startswith(f"graded by the course's judge at {served.url} ")
    shown = verdict.upper().replace("_", " ")
    assert repr(report).startswith(f"{shown}  {TASK}  {name} (from mine.py)")
    assert report._repr_html_().startswith(f'<div class="jj jj-report" data-verdict="{verdict}">')


def test_check_takes_the_server_and_token_as_arguments_too(served, learner, tmp_path):
    mine = load_mine(tmp_path)
    report = check(TASK, mine.my_count, server=served.url, token=TOKEN, seed=7)
    assert report.verdict == "accepted" and report.seed == 7
    with pytest.raises(CheckError, match="examples= changes a local grading only"):
        check(TASK, mine.my_count, server=served.url, token=TOKEN, examples=5)


def test_check_without_the_token_says_how_to_give_it(served, learner, tmp_path):
    learner.setenv("JUDGE_SERVER", served.url)
    with pytest.raises(
        ServiceError,
        match=r"wants a token .* set JUDGE_TOKEN=YOUR_TOKEN, "
        r"or pass check\(\.\.\., token=YOUR_TOKEN\)",
    ):
        check(TASK, load_mine(tmp_path).my_count)
    with pytest.raises(ServiceError, match="does not know this token"):
        check(TASK, load_mine(tmp_path).my_count, token="not-" + TOKEN)


def test_check_of_an_unknown_task_names_the_closest(served, learner, tmp_path):
    learner.setenv("JUDGE_SERVER", served.url)
    learner.setenv("JUDGE_TOKEN", TOKEN)
    with pytest.raises(ServiceError, match="Did you mean: cache_independent_count"):
        check("cache_independant_count", load_mine(tmp_path).my_count)


def test_a_service_that_is_not_there_is_said(learner, tmp_path):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(
        ServiceError, match=f"cannot reach the course's judge at http://127.0.0.1:{port}"
    ):
        check(TASK, load_mine(tmp_path).my_count, server=f"127.0.0.1:{port}")


@pytest.mark.slow
def test_check_and_hint_from_a_jupyter_kernel_on_the_service(served, learner, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    learner.setenv("JUDGE_SERVER", served.url)  # the kernel inherits them
    learner.setenv("JUDGE_TOKEN", TOKEN)
    cells = [
        "import jax\nimport jax.numpy as jnp\n_sum = jax.jit(jnp.sum)",
        "def my_count(x_a, x_b):\n    return _sum(x_a) + _sum(x_b)",
        f"from judge import check, hint\nreport = check({TASK!r}, my_count)\nreport",
        f"hint({TASK!r}, 2)",
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    shown = nb.cells[2].outputs[-1]["data"]
    assert shown["text/html"].startswith('<div class="jj jj-report" data-verdict="accepted">')
    assert shown["text/plain"].startswith(f"ACCEPTED  {TASK}  my_count (from the notebook)")
    assert f"graded by the course&#x27;s judge at {served.url}" in shown["text/html"]
    assert (
        nb.cells[3].outputs[-1]["data"]["text/markdown"].startswith(f"**Hint 2 of 3** for `{TASK}`")
    )


# ---------------------------------------------------------------- hint()


def test_hint_on_the_service_is_the_banks_hint(served, bank, learner):
    learner.setenv("JUDGE_SERVER", served.url)
    learner.setenv("JUDGE_TOKEN", TOKEN)
    for n in (1, 2, 3, 4, 0, -1):
        remote = hint(TASK, n)
        local = hint(TASK, n, bank=str(bank))
        assert (remote.of, remote.text, repr(remote), remote._repr_markdown_()) == (
            local.of,
            local.text,
            repr(local),
            local._repr_markdown_(),
        )
    assert (
        repr(hint(TASK, 4))
        == f"{TASK} has 3 hints: ask for hint('{TASK}', 1) to hint('{TASK}', 3)."
    )
    with pytest.raises(ServiceError, match="Did you mean: cache_independent_count"):
        hint("cache_independant_count", 1)


def test_the_hints_route(served):
    auth = {"Authorization": f"Bearer {TOKEN}"}
    first = served.http.get(f"/v1/tasks/{TASK}/hints/1", headers=auth)
    assert first.status_code == 200
    assert set(first.json()) == {"task", "number", "of", "text"} and first.json()["of"] == 3
    beyond = served.http.get(f"/v1/tasks/{TASK}/hints/9", headers=auth)
    assert beyond.status_code == 404 and beyond.json()["of"] == 3
    assert "has 3 hints" in beyond.json()["error"]
    assert served.http.get(f"/v1/tasks/{TASK}/hints/1").status_code == 401


# ---------------------------------------------------------------- the client's own rules


class _StandIn(http.server.ThreadingHTTPServer):
    """A server that records every request and answers with ``answer(handler)``."""

    def __init__(self, answer):
        self.seen: list[dict] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def _any(handler):
                length = int(handler.headers.get("Content-Length") or 0)
                self.seen.append(
                    {
                        "method": handler.command,
                        "path": handler.path,
                        "headers": dict(handler.headers),
                        "body": handler.rfile.read(length),
                    }
                )
                answer(handler)

            do_GET = do_POST = _any

            def log_message(handler, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def close(self):
        self.shutdown()
        self.server_close()


def _reply(handler, status: int, body: dict, **headers):
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for k, v in headers.items():
        handler.send_header(k, v)
    handler.end_headers()
    handler.wfile.write(data)


def test_every_call_says_json_and_sends_the_source_judge_run_would_grade(learner, tmp_path):
    def course(h):  # a service older than the tasks' `entrypoint` field
        if h.command == "GET":
            _reply(h, 200, {"id": TASK, "signature": f"{TASK}(x_a, x_b)"})
        else:
            _reply(
                h,
                503,
                {"error": "the queue is full (3 submissions waiting); try again in 2 s"},
                **{"Retry-After": "2"},
            )

    front = _StandIn(course)
    mine = load_mine(tmp_path)
    try:
        with pytest.raises(ServiceError, match=r"answered 503: the queue is full .* in 2 s"):
            check(TASK, mine.my_count, server=front.url, token=TOKEN)
    finally:
        front.close()
    assert [(r["method"], r["path"]) for r in front.seen] == [
        ("GET", f"/v1/tasks/{TASK}"),
        ("POST", "/v1/submissions"),
    ]
    for r in front.seen:
        assert r["headers"]["Content-Type"] == "application/json"
        assert r["headers"]["Authorization"] == f"Bearer {TOKEN}"
    assert json.loads(front.seen[1]["body"]) == {
        "task": TASK,
        "source": assemble(mine.my_count, TASK).source,
        "strict": False,
    }


@pytest.mark.parametrize("code", [301, 302, 307, 308])
def test_a_redirect_is_never_followed_with_the_token(learner, tmp_path, code):
    elsewhere = _StandIn(lambda h: _reply(h, 200, {"id": TASK, "entrypoint": TASK}))
    front = _StandIn(lambda h: _reply(h, code, {}, Location=f"{elsewhere.url}/v1/tasks/{TASK}"))
    try:
        with pytest.raises(ServiceError, match=f"redirect to {elsewhere.url}/v1/tasks/{TASK}"):
            check(TASK, load_mine(tmp_path).my_count, server=front.url, token=TOKEN)
        with pytest.raises(ServiceError, match="redirect to"):
            hint(TASK, 1, server=front.url, token=TOKEN)
    finally:
        front.close()
        elsewhere.close()
    assert elsewhere.seen == []  # neither the source nor the token went there
