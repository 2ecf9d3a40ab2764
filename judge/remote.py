"""The course's `judge serve`, as a learner's ``check()`` and ``hint()`` call it.

A learner's install holds the public bank only (no reference solutions), so it grades
nowhere but on the course's service: ``JUDGE_SERVER=URL`` (and ``JUDGE_TOKEN`` where the
service wants a token), or ``check(..., server=URL, token=...)``.  This module speaks
the service's own API (docs/serve.md): the task's facts from ``GET /v1/tasks/{id}``, the
submission to ``POST /v1/submissions``, the report long-polled from
``GET /v1/submissions/{id}?wait=S``, a hint from ``GET /v1/tasks/{id}/hints/{n}``.

Only the standard library (urllib): a learner's ``pip install jax-judge`` needs no extra.
Redirects are refused, never followed: urllib would send the bearer token on to
wherever a redirect points.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

SERVER_ENV, TOKEN_ENV = "JUDGE_SERVER", "JUDGE_TOKEN"
POLL_WAIT_S = 30  # the service holds a GET this long while it grades
GIVE_UP_S = 900  # a report still not there: say so, never wait forever


class ServiceError(Exception):
    """The service could not be asked, or refused; the message says why, in a learner's
    words."""


def chosen_server(server: str | None) -> str | None:
    """``server``, else $JUDGE_SERVER; None when neither names one."""
    return server or os.environ.get(SERVER_ENV) or None


class Service:
    """One course service: its base URL and the learner's token."""

    def __init__(self, url: str, token: str | None = None):
        url = url.strip()
        if "://" not in url:
            url = "http://" + url  # JUDGE_SERVER=localhost:8000
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ServiceError(
                f"JUDGE_SERVER / server= must be the course's judge as an "
                f"http:// or https:// address, not {url!r}"
            )
        self.url = url.rstrip("/")
        self.token = token or os.environ.get(TOKEN_ENV) or None
        self._opener = urllib.request.build_opener(_NoRedirects)

    # ------------------------------------------------------------ what check() asks
    def entrypoint(self, task_id: str) -> str:
        """The name the task's function has in the service's bank (which may not be the
        bank this install carries)."""
        task = self._call("GET", f"/v1/tasks/{_quote(task_id)}")[1]
        # a service older than the `entrypoint` field still says it in the signature
        name = task.get("entrypoint") or str(task.get("signature", "")).partition("(")[0]
        if not isinstance(name, str) or not name.isidentifier():
            raise ServiceError(
                f"{self.url} did not say what task {task_id}'s function is "
                "called: is it a `judge serve`?"
            )
        return name

    def submit(self, task_id: str, source: str, *, seed: int | None, strict: bool) -> str:
        body = {"task": task_id, "source": source, "strict": strict}
        if seed is not None:
            body["seed"] = seed
        sub_id = self._call("POST", "/v1/submissions", body)[1].get("id")
        if not isinstance(sub_id, str) or not sub_id:
            raise ServiceError(
                f"{self.url} took the submission but gave it no id: is it a `judge serve`?"
            )
        return sub_id

    def report(self, sub_id: str, give_up_s: float = GIVE_UP_S) -> dict:
        """The report (the `judge run --format json` object), long-polling till it is
        graded."""
        deadline = time.monotonic() + give_up_s
        path = f"/v1/submissions/{_quote(sub_id)}?wait={POLL_WAIT_S}"
        while True:
            status, answer = self._call("GET", path)
            if status == 200:
                return answer
            if time.monotonic() >= deadline:
                raise ServiceError(
                    f"{self.url} has not graded submission {sub_id} after {give_up_s:.0f} s "
                    f"(it is {answer.get('state', 'waiting')}; the service is busy): call "
                    "check() again later, and it answers from the same submission"
                )

    def hint(self, task_id: str, n: int) -> tuple[int, str | None]:
        """(how many hints the task has, the n-th one's text or None when out of range)."""
        number = int(n) if int(n) >= 1 else 0  # hint 0 or -1: how many there are
        status, answer = self._call(
            "GET", f"/v1/tasks/{_quote(task_id)}/hints/{number}", out_of_range_ok=True
        )
        of, text = answer.get("of"), answer.get("text") if status == 200 else None
        if not isinstance(of, int) or not (text is None or isinstance(text, str)):
            raise ServiceError(f"{self.url} answered a hint in a shape no `judge serve` gives")
        return of, text

    # ------------------------------------------------------------ HTTP
    def _call(
        self, method: str, path: str, body: dict | None = None, *, out_of_range_ok: bool = False
    ) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        # JSON both ways, and said so on every call: the service refuses a body of any
        # other type (a browser's cross-site form could send one)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        timeout = POLL_WAIT_S + 60
        try:
            with self._opener.open(request, timeout=timeout) as response:
                return response.status, _json(response.read(), self.url)
        except urllib.error.HTTPError as exc:
            answer = _json(exc.read(), self.url, strict=False)
            if out_of_range_ok and exc.code == 404 and isinstance(answer.get("of"), int):
                return exc.code, answer
            raise ServiceError(self._refusal(exc, answer)) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ServiceError(
                f"cannot reach the course's judge at {self.url}: {reason} "
                f"(is {SERVER_ENV} right, and is the service running?)"
            ) from None

    def _refusal(self, exc: urllib.error.HTTPError, answer: dict) -> str:
        said = answer.get("error") or exc.reason or "no reason given"
        if exc.code == 401:
            return (
                f"the course's judge at {self.url} wants a token ({said}): set "
                f"{TOKEN_ENV}=YOUR_TOKEN, or pass check(..., token=YOUR_TOKEN)"
                if not self.token
                else f"the course's judge at {self.url} does not know this token: {said}"
            )
        if 300 <= exc.code < 400:
            where = exc.headers.get("Location", "another address")
            return (
                f"the course's judge at {self.url} answered with a redirect to {where}: "
                f"set {SERVER_ENV} to the address it names"
            )
        return f"the course's judge at {self.url} answered {exc.code}: {said}"


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None  # urllib then raises the 3xx as an HTTPError


def _quote(part: str) -> str:
    return urllib.parse.quote(str(part), safe="")


def _json(raw: bytes, url: str, strict: bool = True) -> dict:
    try:
        answer = json.loads(raw)
    except ValueError:
        answer = None
    if isinstance(answer, dict):
        return answer
    if strict:
        raise ServiceError(f"{url} did not answer with a JSON object: is it a `judge serve`?")
    return {}
