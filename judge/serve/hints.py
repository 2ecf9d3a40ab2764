"""``GET /v1/tasks/{id}/hints/{n}``: a task's n-th hint (from 1), for a learner's
``hint()`` (judge/remote.py), whose install may hold another bank than the course's.

    200 {"task", "number", "of", "text"}
    404 {"error", "of"}        no such hint: ``of`` says how many the task has (0: none)
    404 {"error", "closest"}   no such task

Read-only, and behind the same access rule as every ``/v1`` call.  Hints are public by
design (``tasks/<id>/hints.md``, a nudge, never the answer; the wheel ships them too).
"""

from __future__ import annotations

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..catalog import read_hints
from .answers import JSONResponse
from .service import Refused


def hint_routes(service, caller) -> list[Route]:
    """The route, with the service's bank and its ``caller`` check (app.py's)."""

    async def one_hint(request: Request) -> Response:
        caller(request)
        task = service.task(request.path_params["task_id"])
        hints = await anyio.to_thread.run_sync(read_hints, task)
        n = request.path_params["n"]
        if not 1 <= n <= len(hints):
            said = f"{task.id} has {len(hints)} hints" if hints else f"{task.id} has no hints yet"
            raise Refused(
                404,
                said + (f": ask for 1 to {len(hints)}" if hints else ""),
                extra={"of": len(hints)},
            )
        return JSONResponse(
            {"task": task.id, "number": n, "of": len(hints), "text": hints[n - 1]},
            headers={"Cache-Control": "no-store"},
        )

    return [Route("/v1/tasks/{task_id}/hints/{n:int}", one_hint)]
