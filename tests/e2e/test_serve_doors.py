"""The service's doors (judge/serve/doors.py), against a real `judge serve` on loopback,
called by a real HTTP client and by a page in headless Chromium on another loopback
origin: cross-site requests, DNS rebinding, callbacks aimed at this machine, bodies built
to exhaust the parser, one caller flooding the queue, the memo that learner-chosen seeds
grow, and hypothesis's folder left after a stop.

Every request these tests make, and every callback the service makes for them, goes to
a loopback address of this machine."""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from helpers.isolation_modes import MODES
from helpers.serve_server import LOOP, RIGHT, TASK, Server, make_bank, unique

FOREIGN_HOST = "127.0.0.2"  # another origin, and another site, on this machine


class _Pages(http.server.BaseHTTPRequestHandler):
    """Serves the pages the tests put in ``pages`` (path -> HTML), and records what is
    POSTed to it (as a callback receiver)."""

    pages: dict = {}
    received: list = []
    redirect_to: str = ""

    def do_GET(self):
        body = self.pages.get(self.path, "").encode()
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.received.append(
            (self.server.server_address[0], self.path, self.headers.get("Host"), body)
        )
        if self.path == "/redirect":
            self.send_response(307)
            self.send_header("Location", self.redirect_to)
        else:
            self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def _listen(host: str, port: int = 0) -> http.server.ThreadingHTTPServer:
    server = http.server.ThreadingHTTPServer((host, port), _Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def sites():
    """A page server on the foreign origin and one on the allowed origin."""
    foreign, allowed = _listen(FOREIGN_HOST), _listen("127.0.0.1")
    try:
        yield {
            "foreign": f"http://{FOREIGN_HOST}:{foreign.server_address[1]}",
            "allowed": f"http://127.0.0.1:{allowed.server_address[1]}",
        }
    finally:
        for s in (foreign, allowed):
            s.shutdown()
            s.server_close()


@pytest.fixture(scope="module")
def bank(tmp_path_factory) -> Path:
    return make_bank(tmp_path_factory.mktemp("doors") / "bank")


@pytest.fixture(scope="module")
def served(bank, sites, tmp_path_factory):
    server = Server(
        bank,
        tmp_path_factory.mktemp("state") / "state.sqlite",
        "--workers",
        "1",
        "--warm",
        "1",
        "--allow-origin",
        sites["allowed"],
        "--allow-host",
        "judge.course.example",
    )
    try:
        yield server
    finally:
        server.close()


def _stored(server) -> float:
    """Submissions the service took (stored and queued, or answered from the store)."""
    return server.metric("judge_submissions_total", outcome="queued") + server.metric(
        "judge_submissions_total", outcome="deduplicated"
    )


# ---------------------------------------------------------------- cross-site requests
def test_only_json_bodies_and_only_allowed_origins(served, sites):
    body = json.dumps({"task": TASK, "source": unique(RIGHT, "cross-site")})
    post = lambda **kw: served.http.post("/v1/submissions", **kw)
    before = _stored(served)
    plain = post(content=body, headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and "application/json" in plain.json()["error"]
    form = post(content="a=1", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    for origin in (
        sites["foreign"],
        "null",
        "http://localhost.evil.example",
        served.url.replace("127.0.0.1", "127.0.0.2"),
    ):
        foreign = post(content=body, headers={"Content-Type": "application/json", "Origin": origin})
        assert foreign.status_code == 403, (origin, foreign.text)
        assert "--allow-origin" in foreign.json()["error"]
        assert "access-control-allow-origin" not in foreign.headers
    assert served.http.get("/v1/tasks", headers={"Origin": sites["foreign"]}).status_code == 403
    assert _stored(served) == before  # nothing was taken

    own = post(
        content=body,
        headers={"Content-Type": "application/json; charset=utf-8", "Origin": served.url},
    )  # the service's own page
    assert own.status_code == 202, own.text
    proxied = post(
        content=json.dumps({"task": TASK, "source": unique(RIGHT, "proxied")}),
        headers={
            "Content-Type": "application/json",
            "Host": "judge.course.example",
            "Origin": "https://judge.course.example",
        },
    )  # its page, via TLS
    assert proxied.status_code == 202, proxied.text
    assert (
        post(
            content=body,
            headers={
                "Content-Type": "application/json",
                "Host": "judge.course.example",
                "Origin": "https://evil.example",
            },
        ).status_code
        == 403
    )
    allowed = post(
        content=json.dumps({"task": TASK, "source": unique(RIGHT, "allowed")}),
        headers={"Content-Type": "application/json", "Origin": sites["allowed"]},
    )
    assert allowed.status_code == 202
    assert allowed.headers["access-control-allow-origin"] == sites["allowed"]


def test_preflights_answer_allowed_origins_only(served, sites):
    ask = lambda origin: served.http.options(
        "/v1/submissions",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, authorization",
        },
    )
    ok = ask(sites["allowed"])
    assert ok.status_code == 200
    assert ok.headers["access-control-allow-origin"] == sites["allowed"]
    assert "POST" in ok.headers["access-control-allow-methods"]
    assert "authorization" in ok.headers["access-control-allow-headers"].lower()
    refused = ask(sites["foreign"])
    assert refused.status_code >= 400
    assert "access-control-allow-origin" not in refused.headers


def _attack_page(api: str, tag: str) -> str:
    """What a page on another site can make a browser send without asking: a fetch with
    a "simple" type (no preflight) and a form whose text/plain body is JSON; and a JSON
    fetch, which the browser sends only if the preflight allows it."""
    source = f"x = 1  # {tag}"
    body = json.dumps({"task": TASK, "source": source})
    field = json.dumps({"task": TASK, "source": source + " #"})[:-2]  # ...#  + '="}'
    return f"""<!doctype html><html><body>
<iframe name="sink" id="sink"></iframe>
<form id="form" method="post" enctype="text/plain" action="{api}" target="sink">
  <input name='{field}' value='"}}'>
</form>
<script>
const results = {{}};
async function go() {{
  try {{
    await fetch("{api}", {{method: "POST", mode: "no-cors", body: {json.dumps(body)},
                          headers: {{"Content-Type": "text/plain"}}}});
    results.plain = "sent";
  }} catch (e) {{ results.plain = "error"; }}
  try {{
    const r = await fetch("{api}", {{method: "POST", body: {json.dumps(body)},
                                    headers: {{"Content-Type": "application/json"}}}});
    results.json = r.status;
  }} catch (e) {{ results.json = "blocked"; }}
  await new Promise(done => {{
    document.getElementById("sink").onload = done;
    document.getElementById("form").submit();
  }});
  results.form = "sent";
  document.title = "done " + JSON.stringify(results);
}}
go();
</script></body></html>"""


def _allowed_page(api: str) -> str:
    body = json.dumps({"task": TASK, "source": unique(RIGHT, "from-the-allowed-page")})
    return f"""<!doctype html><html><body><script>
fetch("{api}", {{method: "POST", body: {json.dumps(body)},
                 headers: {{"Content-Type": "application/json"}}}})
  .then(r => r.json().then(j => {{ document.title = "done " + r.status + " " + j.id; }}))
  .catch(e => {{ document.title = "done blocked"; }});
</script></body></html>"""


def _title(driver, timeout_s=60) -> str:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout_s, poll_frequency=0.1).until(lambda d: d.title.startswith("done"))
    return driver.title


def test_a_page_on_another_origin_submits_nothing(served, sites, browser):  # noqa: F811
    api = served.url + "/v1/submissions"
    _Pages.pages["/attack.html"] = _attack_page(api, "attack")
    # what the service stored: an earlier test's grading may still finish meanwhile (the
    # queue and graded counts move), but a submission it took would be a stored row
    before = _stored(served)
    browser.get(sites["foreign"] + "/attack.html")
    results = json.loads(_title(browser).removeprefix("done "))
    assert results == {"plain": "sent", "json": "blocked", "form": "sent"}  # all were tried
    assert _stored(served) == before

    _Pages.pages["/allowed.html"] = _allowed_page(api)  # the course's own site
    browser.get(sites["allowed"] + "/allowed.html")
    status, sub_id = _title(browser).removeprefix("done ").split()
    assert status == "202"
    assert served.state_of(sub_id) in ("queued", "running", "done")


# ---------------------------------------------------------------- DNS rebinding
def test_only_the_configured_host_names_are_served(served):
    port = served.url.rsplit(":", 1)[1]
    for host in (
        "rebind.example",
        f"rebind.example:{port}",
        f"127.0.0.1.rebind.example:{port}",
        f"localhost.rebind.example:{port}",
        "judge.course.example.evil",
    ):
        for answer in (
            served.http.get("/healthz", headers={"Host": host}),
            served.http.get("/v1/tasks", headers={"Host": host}),
            served.http.post(
                "/v1/submissions", headers={"Host": host}, json={"task": TASK, "source": RIGHT}
            ),
        ):
            assert answer.status_code == 400, (host, answer.status_code, answer.text)
    for host in (
        f"127.0.0.1:{port}",
        f"localhost:{port}",
        "LOCALHOST",
        f"judge.course.example:{port}",
    ):
        assert served.http.get("/healthz", headers={"Host": host}).status_code == 200, host


# ---------------------------------------------------------------- callbacks
@pytest.fixture
def receiver():
    server = _listen("127.0.0.1")
    _Pages.received.clear()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


def test_callbacks_to_this_machine_are_refused(served, receiver):
    port = receiver
    before = _stored(served)
    for url in (
        f"http://127.0.0.1:{port}/cb",
        f"http://localhost:{port}/cb",
        f"http://LocalHost.:{port}/cb",
        f"http://0.0.0.0:{port}/cb",
        f"http://[::ffff:127.0.0.1]:{port}/cb",
        f"http://2130706433:{port}/cb",
        f"http://127.1:{port}/cb",
        f"http://0x7f.0.0.1:{port}/cb",
        f"http://[::1]:{port}/cb",
        f"http://[::]:{port}/cb",
        f"http://app.localhost:{port}/cb",
    ):
        answer = served.http.post(
            "/v1/submissions",
            json={"task": TASK, "source": unique(RIGHT, url), "callback_url": url},
        )
        assert answer.status_code == 422, (url, answer.text)
        assert "--allow-callback-host" in answer.json()["error"], answer.text
    assert _stored(served) == before and _Pages.received == []


def test_what_a_caller_sent_is_echoed_back_without_a_500(served):
    # JSON may hold a lone surrogate (no UTF-8 can): a refusal that names it is still sent
    before = _stored(served)
    for body in (
        '{"task": "\\ud800", "source": "x = 1"}',
        '{"task": "%s", "source": "x = 1", "\\ud800": 1}' % TASK,
        '{"task": "%s", "source": "x = 1", "callback_url": "http://\\ud800/"}' % TASK,
    ):
        answer = served.http.post(
            "/v1/submissions", content=body.encode(), headers={"Content-Type": "application/json"}
        )
        assert answer.status_code in (404, 422), (body, answer.status_code, answer.text)
        assert answer.json()["error"] and answer.content.isascii()
    assert _stored(served) == before


def test_callback_urls_the_sender_cannot_use_are_refused_when_submitted(served):
    before = _stored(served)
    for url in ("http://[::1/", "http://example.org:99999/", "http://a\u0000b/", "http://\u2488/"):
        answer = served.http.post(
            "/v1/submissions",
            json={"task": TASK, "source": unique(RIGHT, repr(url)), "callback_url": url},
        )
        assert answer.status_code == 422, (url, answer.text)
        assert "callback_url" in answer.json()["error"]
    assert _stored(served) == before


def _loopback_only_name() -> str | None:
    """A name other than localhost this machine resolves to loopback addresses only (its
    host name, often), or None."""
    for name in (socket.gethostname(), "ip6-localhost", "ip6-loopback"):
        try:
            found = {a[4][0] for a in socket.getaddrinfo(name, 80, type=socket.SOCK_STREAM)}
        except OSError:
            continue
        import ipaddress

        if (
            found
            and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in found)
            and name.lower() != "localhost"
        ):
            return name
    return None


def test_a_name_that_resolves_to_this_machine_is_refused_when_sent(served, receiver):
    name = _loopback_only_name()
    if name is None:
        pytest.skip(
            "no name besides localhost resolves to loopback here "
            "(test_serve_callbacks covers it with a resolver stub)"
        )
    url = f"http://{name}:{receiver}/cb"
    sub = served.submit(unique(RIGHT, "by-name"), callback_url=url)
    served.result(sub["id"])
    deadline = time.monotonic() + 60
    while (
        served.metric("judge_callbacks_total", result="failed") < 1 and time.monotonic() < deadline
    ):
        time.sleep(0.2)
    assert served.metric("judge_callbacks_total", result="delivered") == 0
    assert _Pages.received == []
    import sqlite3

    db = sqlite3.connect(served.state)
    rows = db.execute(
        "SELECT state, attempts, last_error FROM callbacks WHERE submission=?", (sub["id"],)
    ).fetchall()
    assert len(rows) == 1 and rows[0][:2] == ("failed", 1), rows  # given up: not retried
    assert "resolves to a loopback address" in rows[0][2], rows


# ---------------------------------------------------------------- bodies
def test_bodies_built_to_exhaust_the_parser_get_400(served):
    deep = b"[" * 100_000 + b"]" * 100_000
    post = lambda content: served.http.post(
        "/v1/submissions", content=content, headers={"Content-Type": "application/json"}
    )
    answer = post(deep)
    assert answer.status_code == 400 and "nested 100000 levels" in answer.json()["error"]
    in_object = json.dumps({"task": TASK, "source": RIGHT}).encode()[:-1] + b', "x": ' + deep + b"}"
    assert post(in_object).status_code == 400
    as_text = served.http.post("/v1/submissions", json={"task": TASK, "notebook": "[" * 100_000})
    assert as_text.status_code == 422 and "nested" in as_text.json()["error"]
    many = post(json.dumps({"task": TASK, "notebook": {"cells": [0] * 150_000}}).encode())
    assert many.status_code == 413 and "keys and items" in many.json()["error"]
    fields = post(json.dumps({f"field{i}": 0 for i in range(50_000)}).encode())
    assert fields.status_code == 422 and len(fields.json()["error"]) < 400
    long_task = served.http.post("/v1/submissions", json={"task": "t" * 400_000, "source": RIGHT})
    assert long_task.status_code == 422 and len(long_task.text) < 1000
    unclosed = post(b'["' + b'\\"' * 400_000)  # a string never closed, all escapes
    assert unclosed.status_code == 400 and "not JSON" in unclosed.json()["error"]
    over = post(b" " * (2 << 20))
    assert over.status_code == 413
    assert served.health()["status"] == "ok"
    assert "Traceback" not in served.log and "RecursionError" not in served.log


# ---------------------------------------------------------------- the memo
@pytest.mark.parametrize("mode", MODES)
def test_learner_chosen_seeds_do_not_grow_the_memo_without_bound(bank, tmp_path, mode):
    """Where the memo is written (a sandbox that guards the judge's files), it stays
    within its bounds; where it is not (process isolation without Landlock or a uid of
    its own), a seed adds nothing to it."""
    from judge.memo import MAX_FILES, MAX_TOTAL_BYTES

    memo = tmp_path / "memo"
    memo.mkdir(mode=0o700)
    old = time.time() - 10 * 86400
    for i in range(MAX_FILES + 40):  # what earlier seeds left, oldest first
        path = memo / f"{TASK}-{100000 + i}-{i:024x}.pickle"
        path.write_bytes(b"x")
        path.chmod(0o600)
        os.utime(path, (old + i, old + i))
    big = memo / f"{TASK}-99999-{'f' * 24}.pickle"
    with open(big, "wb") as f:
        f.truncate(MAX_TOTAL_BYTES + 1)  # sparse: no disk used
    big.chmod(0o600)
    os.utime(big, (old + MAX_FILES + 100, old + MAX_FILES + 100))  # newer than the rest

    before = sorted(memo.glob("*.pickle"))
    server = Server(
        bank,
        tmp_path / "state.sqlite",
        "--workers",
        "1",
        "--warm",
        "1",
        env={"JUDGE_MEMO": str(memo), "JUDGE_ISOLATION": mode},
    )
    try:
        report = server.result(server.submit(unique(RIGHT, "seed"), seed=4242)["id"])
    finally:
        server.close()
    assert report["verdict"] == "accepted" and report["seed"] == 4242
    assert report["isolation"].startswith(mode), report["isolation"]
    files = sorted(memo.glob("*.pickle"))
    if mode == "process" and not any(p.name.startswith(f"{TASK}-4242-") for p in files):
        assert files == before  # not written here: nothing to bound
        return
    assert len(files) <= MAX_FILES
    assert sum(p.stat().st_size for p in files) <= MAX_TOTAL_BYTES
    assert any(p.name.startswith(f"{TASK}-4242-") for p in files)  # the new one stays
    assert not big.exists()
    assert not (memo / f"{TASK}-100000-{0:024x}.pickle").exists()  # oldest out first
    newest = memo / f"{TASK}-{100000 + MAX_FILES + 39}-{MAX_FILES + 39:024x}.pickle"
    assert newest.exists()


# ---------------------------------------------------------------- a fair queue
@pytest.mark.slow
def test_one_caller_cannot_starve_another(bank, tmp_path):
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(
        "tokens:\n"
        "  - {name: script, token: script-token-0123456789}\n"
        "  - {name: site, token: site-token-0123456789}\n"
    )
    server = Server(
        bank,
        tmp_path / "state.sqlite",
        "--tokens",
        str(tokens),
        "--workers",
        "1",
        "--warm",
        "1",
        "--queue",
        "6",
    )
    auth = lambda who: {"Authorization": f"Bearer {who}-token-0123456789"}
    post = lambda who, source: server.http.post(
        "/v1/submissions", json={"task": TASK, "source": source}, headers=auth(who)
    )
    state = lambda who, sub_id: server.http.get(
        f"/v1/submissions/{sub_id}", headers=auth(who)
    ).headers["Judge-State"]
    try:
        looping = post("script", unique(LOOP, "flood-0"))
        assert looping.status_code == 202
        deadline = time.monotonic() + 120
        while state("script", looping.json()["id"]) != "running" and time.monotonic() < deadline:
            time.sleep(0.1)
        flood = []
        for i in range(1, 20):  # as fast as it can, until refused
            answer = post("script", unique(RIGHT, f"flood-{i}"))
            if answer.status_code != 202:
                break
            flood.append(answer.json()["id"])
        assert answer.status_code == 503 and int(answer.headers["Retry-After"]) >= 1
        assert "'script'" in answer.json()["error"]
        assert len(flood) == 3  # its share: half the queue of 6
        site = post("site", unique(RIGHT, "the-site"))
        assert site.status_code == 202, site.text
        for sub_id, who in [(site.json()["id"], "site")] + [(s, "script") for s in flood]:
            report = server.http.get(
                f"/v1/submissions/{sub_id}", params={"wait": 60}, headers=auth(who)
            )
            while report.status_code == 202:
                report = server.http.get(
                    f"/v1/submissions/{sub_id}", params={"wait": 60}, headers=auth(who)
                )
            assert report.json()["verdict"] == "accepted"
        import sqlite3

        order = [
            r[0]
            for r in sqlite3.connect(tmp_path / "state.sqlite").execute(
                "SELECT client FROM submissions ORDER BY started_at"
            )
        ]
        assert order[:2] == ["script", "script"]  # the loop, and the flood's first
        assert order.index("site") == 2, order  # then the site: before the flood's rest
    finally:
        server.close()


# ---------------------------------------------------------------- stopping
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stopped_service_leaves_no_hypothesis_folder(bank, tmp_path, how):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    server = Server(
        bank, tmp_path / "state.sqlite", "--workers", "1", "--warm", "0", env={"TMPDIR": str(tmp)}
    )
    try:
        assert server.health()["status"] == "ok"
        assert list(tmp.glob("jax-judge-hypothesis-*"))  # made at start
        server.stop(how)
        assert server.proc.returncode is not None
        assert list(tmp.glob("jax-judge-hypothesis-*")) == []
    finally:
        server.close()


def test_a_service_stopped_while_it_starts_leaves_no_hypothesis_folder(bank, tmp_path):
    """SIGTERM as soon as the service is started, before or just as uvicorn takes the
    signal over (an init system stopping it during a slow start): either way it ends by
    that signal and leaves nothing behind."""
    import subprocess

    from helpers.serve_server import JUDGE

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [
            JUDGE,
            "--bank",
            str(bank),
            "serve",
            "--port",
            "0",
            "--workers",
            "1",
            "--warm",
            "0",
            "--state",
            str(tmp_path / "s.sqlite"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "TMPDIR": str(tmp)},
        start_new_session=True,
    )
    try:
        lines = []
        for line in proc.stdout:  # printed once the service has started
            lines.append(line)
            if "tasks from" in line:
                assert list(tmp.glob("jax-judge-hypothesis-*"))
                proc.send_signal(signal.SIGTERM)
                break
        assert proc.wait(timeout=60) == -signal.SIGTERM, "".join(lines) + proc.stdout.read()
        assert list(tmp.glob("jax-judge-hypothesis-*")) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_service_that_fails_to_start_leaves_no_hypothesis_folder(bank, tmp_path):
    """The error path: a state file that is not SQLite stops the start after hypothesis's
    folder was made."""
    import subprocess

    from helpers.serve_server import JUDGE

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    state = tmp_path / "state.sqlite"
    state.write_text("not a database\n" * 100)
    res = subprocess.run(
        [JUDGE, "--bank", str(bank), "serve", "--port", "0", "--warm", "0", "--state", str(state)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "TMPDIR": str(tmp)},
    )
    assert res.returncode == 2, res.stderr
    assert list(tmp.glob("jax-judge-hypothesis-*")) == []
