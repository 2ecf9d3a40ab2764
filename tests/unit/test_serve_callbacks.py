"""Where the service's callbacks may go, checked where the connection is made: the real
Callbacks sender and its httpx client, real receivers on loopback, and a resolver stub
for the names (this machine's DNS is not asked, and nothing leaves loopback).

A stubbed name answers 127.0.0.2 when first asked and 127.0.0.1 after: a sender that
checks the name and then lets the client resolve it again (a rebinding between check
and use) would deliver to 127.0.0.1."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time

import pytest

pytest.importorskip("starlette")

from judge.serve.callbacks import Callbacks  # noqa: E402
from judge.serve.store import Store  # noqa: E402

REAL_GETADDRINFO = socket.getaddrinfo


class _Receiver(http.server.BaseHTTPRequestHandler):
    got: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.got.append((self.server.server_address[0], self.headers.get("Host"), body))
        if self.path == "/redirect":
            self.send_response(307)
            self.send_header("Location", f"http://127.0.0.1:{self.server.server_address[1]}/")
        else:
            self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def receivers():
    """The same port on 127.0.0.1 and on 127.0.0.2."""
    first = http.server.ThreadingHTTPServer(("127.0.0.2", 0), _Receiver)
    port = first.server_address[1]
    second = http.server.ThreadingHTTPServer(("127.0.0.1", port), _Receiver)
    for s in (first, second):
        threading.Thread(target=s.serve_forever, daemon=True).start()
    _Receiver.got = []
    try:
        yield port, _Receiver.got
    finally:
        for s in (first, second):
            s.shutdown()
            s.server_close()


@pytest.fixture
def resolver(monkeypatch):
    """Stubbed names: name -> the addresses it answers, one list per lookup (the last
    one again once they run out); every other name as the machine resolves it."""
    names: dict[str, list[list[str]]] = {}
    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        if host in names:
            asked.append(host)
            answers = names[host]
            found = answers.pop(0) if len(answers) > 1 else answers[0]
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in found]
        return REAL_GETADDRINFO(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return names, asked


def _owed(tmp_path, url: str):
    store = Store(tmp_path / "s.sqlite").open()
    added = store.add(
        key="k",
        task="t",
        seed=1,
        strict=False,
        filename="submission.py",
        source=b"x",
        client="loopback",
        callback_url=url,
    )
    store.start(added.id)
    store.finish(added.id, {"task": "t", "verdict": "accepted", "checks": []})
    return store, added.id


def _settled(store, sub_id, timeout_s=30):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        states = store.callback_states(sub_id)
        if all(s["state"] != "pending" or s["attempts"] for s in states):
            return states
        time.sleep(0.05)
    raise AssertionError(f"the callback was not tried: {store.callback_states(sub_id)}")


def _send(store, **kwargs):
    sender = Callbacks(store, attempts=1, **kwargs)
    sender.start()
    sender.wake()
    return sender


def test_a_name_resolving_to_this_machine_gets_nothing(tmp_path, receivers, resolver):
    port, got = receivers
    names, asked = resolver
    names["site.example"] = [["127.0.0.1"]]
    store, sub_id = _owed(tmp_path, f"http://site.example:{port}/graded")
    sender = _send(store)
    try:
        states = _settled(store, sub_id)
    finally:
        sender.close()
    assert got == []
    assert states[0]["state"] == "failed"
    assert "resolves to a loopback address (127.0.0.1)" in states[0]["last_error"]
    assert asked  # resolved when it was sent


def test_the_address_checked_is_the_address_called(tmp_path, receivers, resolver):
    from judge.serve.doors import CallbackTargets

    port, got = receivers
    names, asked = resolver
    names["site.example"] = [["127.0.0.2"], ["127.0.0.1"]]  # allowed, then rebound
    store, sub_id = _owed(tmp_path, f"http://site.example:{port}/graded")
    sender = _send(store, targets=CallbackTargets(["127.0.0.2"]))
    try:
        states = _settled(store, sub_id)
    finally:
        sender.close()
    assert states[0]["state"] == "delivered", states
    assert [(where, host) for where, host, _ in got] == [("127.0.0.2", f"site.example:{port}")]
    assert json.loads(got[0][2])["verdict"] == "accepted"
    assert asked == ["site.example"]  # resolved once


def test_a_name_with_one_private_address_among_others_is_refused(tmp_path, receivers, resolver):
    from judge.serve.doors import CallbackTargets

    port, got = receivers
    names, _ = resolver
    names["site.example"] = [["127.0.0.2", "127.0.0.1"]]
    store, sub_id = _owed(tmp_path, f"http://site.example:{port}/graded")
    sender = _send(store, targets=CallbackTargets(["127.0.0.2"]))
    try:
        states = _settled(store, sub_id)
    finally:
        sender.close()
    assert got == [] and states[0]["state"] == "failed"
    assert "127.0.0.1" in states[0]["last_error"]


def test_redirects_are_not_followed(tmp_path, receivers):
    from judge.serve.doors import CallbackTargets

    port, got = receivers
    store, sub_id = _owed(tmp_path, f"http://127.0.0.2:{port}/redirect")  # to 127.0.0.1
    sender = _send(store, targets=CallbackTargets(["127.0.0.2/32"]))
    try:
        states = _settled(store, sub_id)
    finally:
        sender.close()
    assert [where for where, _, _ in got] == ["127.0.0.2"]
    assert states[0]["state"] == "failed" and "307" in states[0]["last_error"]


@pytest.mark.parametrize(
    "address, kind",
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("10.0.0.1", "private"),
        ("192.168.1.1", "private"),
        ("172.16.0.1", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("::ffff:10.0.0.1", "private"),
        ("2002:7f00:1::", "loopback"),
        ("64:ff9b::a9fe:a9fe", "link-local"),
        ("100.64.0.1", "non-public"),
    ],
)
def test_every_kind_of_non_public_address_is_named(address, kind):
    from judge.serve.doors import address_kind

    assert address_kind(address).split(" address")[0] in (f"a {kind}", f"an {kind}")


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_may_be_called(address):
    from judge.serve.doors import address_kind

    assert address_kind(address) is None
