"""``judge serve`` once the CLI has parsed it: read the tokens, open the state, start the
service, run uvicorn on a socket bound here (so ``--port 0`` can say which port it got),
and close everything when uvicorn stops (SIGTERM, Ctrl-C)."""

from __future__ import annotations

import logging
import os
import signal
import socket
from dataclasses import dataclass
from typing import Callable

from ..bank import Bank


class UsageError(Exception):
    """Bad options or files: the CLI says it and exits 2."""


@dataclass(frozen=True)
class ServeRequest:
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int | None = None  # gradings at once (here: cores; on Dask: 16)
    warm: int | None = None  # learner workers kept started (default: workers)
    queue: int = 1000
    state: str = "judge-serve.sqlite"
    tokens: str | None = None
    scheduler: str | None = None
    log_level: str = "info"
    allow_hosts: tuple[str, ...] = ()  # Host names served besides the listen address
    allow_origins: tuple[str, ...] = ()  # pages of other origins that may call
    allow_callback_hosts: tuple[str, ...] = ()  # callback targets that are not public
    keep_references: int = 8  # reference workers kept warm at most
    reference_idle_s: float = 300.0  # an idle reference gives its memory back after this
    worker_idle_s: float = 300.0  # a learner pool left alone this long keeps only one
    gradebook: str = "best"  # the gradebook's cell: the best or the last attempt
    isolation: str = "auto"  # the learner workers' (auto: forked where it works)


def _end_by(signum, frame):
    """SIGTERM before uvicorn handles it (a stop while the service starts), or after
    uvicorn has shut down and sent it again: remove what would outlive the process, then
    end by the signal as without a handler.  Nothing is raised here: an exception from a
    signal handler can land in a finaliser, where Python drops it."""
    from ..checks.property import remove_hypothesis_home

    remove_hypothesis_home()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def run(bank: Bank, request: ServeRequest, say: Callable[[str], None]) -> int:
    """Serve until stopped; whatever stops it (SIGTERM, Ctrl-C, an error), hypothesis's
    folder goes with it."""
    from ..checks.property import remove_hypothesis_home

    previous = signal.signal(signal.SIGTERM, _end_by)
    try:
        return _serve(bank, request, say)
    finally:
        remove_hypothesis_home()
        signal.signal(signal.SIGTERM, previous)


def _serve(bank: Bank, request: ServeRequest, say: Callable[[str], None]) -> int:
    try:
        import uvicorn

        from .access import Access, TokensError, load_tokens
        from .app import create_app
        from .doors import Doors, normal_origin
        from .service import Service
        from .store import StoreError
    except ImportError as exc:
        raise UsageError(
            f"judge serve needs its extra: pip install 'jax-judge[serve]' ({exc.name} is missing)"
        ) from None
    logging.basicConfig(level=request.log_level.upper(), format="judge serve: %(message)s")
    try:
        access = Access(load_tokens(request.tokens) if request.tokens else None)
    except TokensError as exc:
        raise UsageError(str(exc)) from None
    try:
        doors = Doors(
            listen_host=request.host,
            hosts=tuple(request.allow_hosts),
            origins=tuple(normal_origin(o) for o in request.allow_origins),
            callback_hosts=tuple(request.allow_callback_hosts),
        )
    except ValueError as exc:
        raise UsageError(f"--allow-origin: {exc}") from None
    backend, workers = _backend(bank, request)
    try:
        sock = _listen(request.host, request.port)
    except OSError as exc:
        backend.close()
        raise UsageError(
            f"cannot listen on {request.host}:{request.port}: {exc.strerror or exc}"
        ) from None
    from .service import notebook_support

    notebooks_missing = notebook_support()
    service = Service(
        bank,
        backend,
        state=request.state,
        workers=workers,
        queue_limit=request.queue,
        access=access,
        doors=doors,
        attempt=request.gradebook,
        notebooks_missing=notebooks_missing,
    )
    try:
        service.start()
    except StoreError as exc:
        sock.close()
        service.close()
        raise UsageError(str(exc)) from None

    counts = service.store.counts()
    cut = service.store.requeued
    say(
        f"{len(bank.tasks)} tasks from {bank.root}; state {request.state} ({counts['done']} "
        f"graded, {counts['queued']} waiting"
        + (f", {cut} cut off by the last stop and queued again" if cut else "")
        + ")"
    )
    if access.loopback_only:
        say(
            "no --tokens: answering this machine only (loopback addresses); give --tokens "
            "FILE to accept other machines"
        )
    else:
        n = len(access.tokens)  # type: ignore[arg-type]  # not loopback_only: it has tokens
        say(f"{n} tokens from {request.tokens}: every /v1 call needs one")
    say(
        f"serving Host {', '.join(doors.allowed_hosts)}; pages of "
        + (", ".join(doors.origins) if doors.origins else "no other origin")
        + "; callbacks to public addresses"
        + (f" and {', '.join(doors.callback_hosts)}" if doors.callback_hosts else "")
    )
    if request.scheduler:
        where = f"on {request.scheduler}"
    else:  # the truth: the pool's whole size, whatever kinds of worker it holds
        oracles, pool = backend.oracles, backend.pool
        where = (
            f"here; {pool.size} learner workers kept warm in all"
            + (
                f" ({pool.keep_idle} after {pool.idle_s:g} s without a submission)"
                if pool.keep_idle < pool.size
                else ""
            )
            + (
                ", forked from a warm sandbox that imported jax once (forked isolation)"
                if pool.isolation == "forked"
                else f" ({pool.isolation} isolation)"
            )
            + "; a task's "
            f"reference warms when it is first graded, at most {oracles.keep} kept, "
            f"each given back after {oracles.idle_s:g} s idle"
        )
    say(f"{workers} gradings at once {where}; a queue of {request.queue}")
    instructors = [c.name for c in (access.tokens or {}).values() if c.instructor]
    say(
        "learners' histories, the class view (/instructor) and gradebook.csv "
        f"({request.gradebook} attempt): "
        + (
            f"for the instructor tokens {', '.join(instructors)}"
            if instructors
            else "nobody (no --tokens entry has role: instructor)"
        )
    )
    say(
        "notebook submissions: "
        + (f"refused with 422: {notebooks_missing}" if notebooks_missing else "accepted")
    )
    host, port = sock.getsockname()[:2]
    say(f"listening on http://{f'[{host}]' if ':' in host else host}:{port}")

    stopping = lambda: say("stopping: what is still grading is graded again at the next start")
    app = create_app(service, start=False, on_stop=stopping)  # closed by its lifespan
    config = uvicorn.Config(
        app,
        log_config=_log_config(),
        log_level=None,
        access_log=True,
        lifespan="on",
        http="h11",
        loop="asyncio",
        timeout_graceful_shutdown=3,
    )
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        service.close()  # again, in case the lifespan never ran: a no-op otherwise
    return 0


def _backend(bank: Bank, request: ServeRequest):
    if request.scheduler:
        from .backends import DaskBackend, SchedulerError

        try:
            return DaskBackend(bank, request.scheduler), request.workers or 16
        except SchedulerError as exc:
            raise UsageError(str(exc)) from None
    from ..sandbox import IsolationUnavailable
    from .backends import LocalBackend

    workers = request.workers or os.cpu_count() or 1
    try:
        return LocalBackend(
            bank,
            workers if request.warm is None else request.warm,
            keep_references=request.keep_references,
            reference_idle_s=request.reference_idle_s,
            worker_idle_s=request.worker_idle_s,
            isolation=request.isolation,
        ), workers
    except IsolationUnavailable as exc:
        raise UsageError(str(exc)) from None


def _log_config() -> dict:
    """uvicorn's own logging, its access log in its standard format (``ADDRESS:PORT -
    "GET /v1/... HTTP/1.1" 200``, one line a request, on standard output) and its other
    messages at warnings only (the start-up lines above are the service's)."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["uvicorn"]["level"] = "WARNING"
    config["loggers"]["uvicorn.error"]["level"] = "WARNING"
    config["loggers"]["uvicorn.access"]["level"] = "INFO"
    config["formatters"]["access"]["use_colors"] = False
    config["formatters"]["default"]["use_colors"] = False
    return config


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    return sock
