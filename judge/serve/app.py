"""The HTTP API (Starlette), versioned under ``/v1``, JSON in and out:

    POST /v1/submissions               {task, source | notebook, seed?, strict?, callback_url?}
                                       -> 202 {id, state, deduplicated}
    GET  /v1/submissions/{id}[?wait=S] -> 202 {id, state: queued | running, ...} while it
                                          waits, 200 and the report (the ``judge run
                                          --format json`` object, exactly) when done
    GET  /v1/submissions/{id}/report.html   the report as an HTML fragment (writers/html.py)
    GET  /v1/tasks, /v1/tasks/{id}     the bank: statement, signature, starter, checks
    GET  /v1/tasks/{id}/hints/{n}      the n-th hint (hints.py)
    GET  /v1/learners/{id}/submissions a learner's history, newest first    (instructor)
    GET  /v1/class, /v1/class.html     the live class report: summary.json's numbers, and
                                       the batch's class page                (instructor)
    GET  /v1/gradebook.csv             the batch's gradebook.csv, best or last attempt
                                                                             (instructor)
    GET  /instructor                   the instructor's page (page/instructor.html)
    GET  /healthz, /metrics            for people and for Prometheus
    GET  /                             the page for people (page/)

Errors are ``{"error": "..."}`` with the status that says what kind: 400/413/422 bad
input, 415 a body that is not ``application/json``, 401 no or unknown token, 403 not
this machine (no tokens configured) or a page of a foreign origin, 404 unknown id, 429
over the token's rate, 503 the queue (or the caller's share of it) is full; 429 and 503
carry ``Retry-After``.  What comes in and goes out whoever asks (Host, Origin, body
sizes, callback addresses) is doors.py's, as middleware around these routes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..catalog import task_summary
from . import learners as class_views
from .access import Client
from .answers import JSONResponse
from .doors import Refusal, parse_json
from .hints import hint_routes
from .learners import MAX_HISTORY, BadLearner, history, learner_id
from .service import MAX_SOURCE_BYTES, Refused, Service

PAGE = Path(__file__).parent / "page"
MAX_WAIT_S = 60.0
MAX_BODY_BYTES = 2 * MAX_SOURCE_BYTES  # a notebook's JSON escapes its source


def create_app(
    service: Service, *, start: bool = True, close: bool = True, on_stop=None
) -> Starlette:
    """The ASGI app.  ``start``/``close``: start the service when the app starts, close it
    when the app stops (``on_stop()`` first).  The closing belongs here, not after the
    server returns: uvicorn re-raises SIGTERM once it has shut down."""
    waiters: dict[str, set[asyncio.Event]] = {}
    loop_box: list[asyncio.AbstractEventLoop] = []

    def changed(sub_id: str, state: str) -> None:  # from a grading thread
        if loop_box:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop_box[0].call_soon_threadsafe(_wake, sub_id)

    def _wake(sub_id: str) -> None:
        for event in waiters.get(sub_id, ()):
            event.set()

    @contextlib.asynccontextmanager
    async def lifespan(app):
        loop_box.append(asyncio.get_running_loop())
        service.listeners.append(changed)
        if start:
            service.start()
        try:
            yield
        finally:
            service.listeners.remove(changed)
            if on_stop is not None:
                on_stop()
            if close:
                await anyio.to_thread.run_sync(service.close)

    def caller(request: Request) -> Client:
        who = service.access.client(
            request.headers.get("authorization"), request.client.host if request.client else None
        )
        if who == "forbidden":
            raise Refused(
                403,
                "this service has no tokens configured, so it answers this "
                "machine only (start it with --tokens FILE to accept others)",
            )
        if who == "unauthorized":
            raise Refused(401, "a bearer token is required: Authorization: Bearer TOKEN")
        return who  # type: ignore[return-value]  # the refusals' words are raised above

    def instructor(request: Request) -> Client:
        who = caller(request)
        if not who.instructor:
            raise Refused(
                403,
                "learners' submissions and the class views need an instructor "
                "token (an entry of --tokens with role: instructor)",
            )
        return who

    async def learner_history(request: Request) -> Response:
        instructor(request)
        try:
            learner = learner_id(request.path_params["learner"])
        except BadLearner as exc:
            raise Refused(400, str(exc)) from None
        limit = _limit(request.query_params.get("limit"))
        answer = await anyio.to_thread.run_sync(history, service.store, learner, limit)
        return JSONResponse(answer, headers={"Cache-Control": "no-store"})

    async def class_summary(request: Request) -> Response:
        instructor(request)
        answer = await anyio.to_thread.run_sync(
            class_views.summary, service.bank, service.store, service.attempt
        )
        return JSONResponse(answer, headers={"Cache-Control": "no-store"})

    async def class_html(request: Request) -> Response:
        instructor(request)
        page = await anyio.to_thread.run_sync(
            class_views.class_page, service.bank, service.store, service.attempt
        )
        # the page is shown in a sandboxed frame: no script of its own, nothing fetched
        return HTMLResponse(
            page,
            headers={
                "Cache-Control": "no-store",
                "Content-Security-Policy": "default-src 'none'; "
                "style-src 'unsafe-inline'; img-src data:",
            },
        )

    async def gradebook(request: Request) -> Response:
        instructor(request)
        text = await anyio.to_thread.run_sync(
            class_views.gradebook_csv, service.bank, service.store, service.attempt
        )
        return Response(
            text,
            media_type="text/csv; charset=utf-8",
            headers={
                "Cache-Control": "no-store",
                "Content-Disposition": 'attachment; filename="gradebook.csv"',
            },
        )

    async def instructor_page(request: Request) -> Response:
        return FileResponse(PAGE / "instructor.html", headers={"Cache-Control": "no-cache"})

    async def submit(request: Request) -> Response:
        client = caller(request)
        body = await _json_body(request)
        answer = await anyio.to_thread.run_sync(service.submit, client, body)
        url = request.url_for("submission", sub_id=answer["id"])
        return JSONResponse(answer, status_code=202, headers={"Location": str(url.path)})

    async def submission(request: Request) -> Response:
        caller(request)
        sub_id = request.path_params["sub_id"]
        wait = _wait_s(request.query_params.get("wait"))
        event = asyncio.Event()
        waiters.setdefault(sub_id, set()).add(event)  # before reading: no change missed
        try:
            deadline = asyncio.get_running_loop().time() + wait
            while True:
                row = await anyio.to_thread.run_sync(service.status, sub_id)
                if row is None:
                    raise Refused(404, f"no submission '{sub_id}' here")
                left = deadline - asyncio.get_running_loop().time()
                if row["state"] == "done" or left <= 0:
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), left)
                event.clear()
        finally:
            waiters[sub_id].discard(event)
            if not waiters[sub_id]:
                del waiters[sub_id]
        headers = {"Judge-State": row["state"], "Cache-Control": "no-store"}
        if row["state"] == "done":
            return Response(row["report"], media_type="application/json", headers=headers)
        pending = {"id": row["id"], "task": row["task"], "state": row["state"]}
        if row.get("ahead") is not None:
            pending["ahead"] = row["ahead"]
        return JSONResponse(pending, status_code=202, headers=headers)

    async def report_html(request: Request) -> Response:
        caller(request)
        sub_id = request.path_params["sub_id"]
        row = await anyio.to_thread.run_sync(service.status, sub_id)
        if row is None:
            raise Refused(404, f"no submission '{sub_id}' here")
        if row["state"] != "done":
            raise Refused(409, f"submission '{sub_id}' is {row['state']}, not graded yet")
        from ..report import Report
        from ..writers.html import fragment

        return HTMLResponse(fragment(Report.from_dict(json.loads(row["report"])), styled=True))

    async def tasks(request: Request) -> Response:
        caller(request)
        steps: dict[int, dict] = {}
        for task in sorted(service.bank.tasks.values(), key=lambda t: (t.step, t.id)):
            step = steps.setdefault(
                task.step, {"step": task.step, "title": task.step_title, "tasks": []}
            )
            step["title"] = step["title"] or task.step_title
            step["tasks"].append(task_summary(task))
        return JSONResponse({"course": service.bank.course, "steps": list(steps.values())})

    async def task(request: Request) -> Response:
        caller(request)
        t = service.task(request.path_params["task_id"])
        return JSONResponse(await anyio.to_thread.run_sync(_task_detail, t))

    async def healthz(request: Request) -> Response:
        return JSONResponse(await anyio.to_thread.run_sync(service.health))

    async def metrics(request: Request) -> Response:
        caller(request)
        return Response(service.metrics.text(), media_type=service.metrics.content_type)

    async def page(request: Request) -> Response:
        return FileResponse(PAGE / "index.html", headers={"Cache-Control": "no-cache"})

    async def refused(request: Request, exc: Refused) -> Response:
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else {}
        if exc.status == 401:
            headers["WWW-Authenticate"] = "Bearer"
        return JSONResponse(
            {"error": exc.message, **exc.extra}, status_code=exc.status, headers=headers
        )

    async def not_found(request: Request, exc) -> Response:
        # JSON like every other error (Starlette's own answer is plain text)
        status = getattr(exc, "status_code", 404)
        return JSONResponse(
            {
                "error": "no such resource here"
                if status == 404
                else str(getattr(exc, "detail", "")) or "refused"
            },
            status_code=status,
        )

    routes = [
        Route("/", page),
        Route("/v1/submissions", submit, methods=["POST"]),
        Route("/v1/submissions/{sub_id}", submission, name="submission"),
        Route("/v1/submissions/{sub_id}/report.html", report_html),
        Route("/v1/tasks", tasks),
        Route("/v1/tasks/{task_id}", task),
        *hint_routes(service, caller),
        Route("/v1/learners/{learner}/submissions", learner_history),
        Route("/v1/class", class_summary),
        Route("/v1/class.html", class_html),
        Route("/v1/gradebook.csv", gradebook),
        Route("/instructor", instructor_page),
        Route("/healthz", healthz),
        Route("/metrics", metrics),
        Mount("/static", StaticFiles(directory=PAGE), name="static"),
    ]
    handlers = {Refused: refused, 404: not_found, 405: not_found}
    return Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers=handlers,
        middleware=service.doors.middleware(),
    )


async def _json_body(request: Request):
    """The body, parsed within bounds (doors.py): its bytes counted as they come."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise Refused(413, f"the request is over {MAX_BODY_BYTES} bytes")
    size, chunks = 0, []
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise Refused(413, f"the request is over {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    try:  # a thread: a 1 MiB body takes some tens of ms, the loop serves others meanwhile
        return await anyio.to_thread.run_sync(parse_json, b"".join(chunks))
    except Refusal as exc:
        raise Refused(exc.status, exc.message) from None


def _wait_s(value: str | None) -> float:
    if value is None:
        return 0.0
    try:
        wait = float(value)
    except ValueError:
        raise Refused(400, f"'wait' must be a number of seconds, not {value!r}") from None
    if not 0 <= wait < float("inf"):
        raise Refused(400, "'wait' must be a number of seconds, at least 0")
    return min(wait, MAX_WAIT_S)


def _limit(value: str | None) -> int:
    if value is None:
        return 100
    if not value.isdigit() or not 1 <= int(value) <= MAX_HISTORY:
        raise Refused(400, f"'limit' must be a whole number from 1 to {MAX_HISTORY}")
    return int(value)


def _task_detail(task) -> dict:
    import markdown

    statement = (
        task.statement_path.read_text(encoding="utf-8") if task.statement_path.is_file() else ""
    )
    starter = task.starter_path.read_text(encoding="utf-8") if task.starter_path.is_file() else ""
    docs = {c.id: c.doc for c in task.checks}
    summary = task_summary(task)
    return {
        **summary,
        "checks": [dict(c, doc=docs.get(c["id"], "")) for c in summary["checks"]],
        "statement": statement,
        "statement_html": markdown.markdown(statement, extensions=["fenced_code", "tables"]),
        "starter": starter,
        "arguments": {name: spec.describe() for name, spec in task.args.items()},
        "seed": task.seed,
        "limits": {
            "call_timeout_s": task.limits.call_timeout_s,
            "run_timeout_s": task.limits.run_timeout_s,
            "memory_mb": task.limits.memory_mb,
        },
    }
