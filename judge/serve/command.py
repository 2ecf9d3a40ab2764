"""``judge serve``: parse the options, open the state, start the service, run uvicorn on
a socket bound here (so ``--port 0`` can say which port it got)."""

from __future__ import annotations

import logging
import os
import socket
import sys

import click


@click.command(name="serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every interface; needs --tokens to "
                   "answer other machines).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port, printed at start).")
@click.option("--workers", type=click.IntRange(1, 256), default=None,
              help="Gradings at once (default: the number of cores; with --scheduler, "
                   "gradings sent to the cluster at once, default 16).")
@click.option("--warm", type=click.IntRange(0, 64), default=None,
              help="Learner workers kept started, waiting for a submission (default: --workers).")
@click.option("--queue", "queue_limit", type=click.IntRange(1, 1_000_000), default=1000,
              show_default=True, help="Submissions that may wait; beyond, 503 with Retry-After.")
@click.option("--state", default="judge-serve.sqlite", show_default=True,
              type=click.Path(dir_okay=False),
              help="SQLite file holding every submission and report (created if needed).")
@click.option("--tokens", type=click.Path(dir_okay=False),
              help="YAML file of bearer tokens (name, token, per_minute); without it only "
                   "this machine may call.")
@click.option("--scheduler", metavar="tcp://HOST:PORT",
              help="Grade on this Dask cluster instead of here (pip install 'jax-judge[serve,dask]').")
@click.option("--log-level", type=click.Choice(["debug", "info", "warning", "error"]),
              default="info", show_default=True)
@click.pass_context
def serve_command(ctx, host, port, workers, warm, queue_limit, state, tokens, scheduler,
                  log_level):
    """Serve the grading API (/v1), its metrics and a page for people.

    POST /v1/submissions {"task": ID, "source": TEXT} answers 202 {"id": ...} at once;
    GET /v1/submissions/ID?wait=30 gives the report (the `judge run --format json`
    object) when it is graded.  Every submission is kept in the --state file: a
    service that is stopped or killed grades what was waiting when it starts again."""
    from ..cli import fail_usage, open_bank

    try:
        import uvicorn

        from .access import Access, TokensError, load_tokens
        from .app import create_app
        from .service import Service
        from .store import StoreError
    except ImportError as exc:
        fail_usage(f"judge serve needs its extra: pip install 'jax-judge[serve]' ({exc.name} "
                   "is missing)")
    logging.basicConfig(level=log_level.upper(), format="judge serve: %(message)s")
    say = lambda text: click.echo(f"judge serve: {text}", err=True)

    bank = open_bank(ctx)
    try:
        access = Access(load_tokens(tokens) if tokens else None)
    except TokensError as exc:
        fail_usage(str(exc))
    if scheduler:
        from .backends import DaskBackend, SchedulerError

        workers = workers or 16
        try:
            backend = DaskBackend(scheduler, bank)
        except SchedulerError as exc:
            fail_usage(str(exc))
    else:
        from .backends import LocalBackend

        workers = workers or os.cpu_count() or 1
        backend = LocalBackend(bank, workers if warm is None else warm)
    try:
        sock = _listen(host, port)
    except OSError as exc:
        fail_usage(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    service = Service(bank, backend, state=state, workers=workers, queue_limit=queue_limit,
                      access=access)
    try:
        service.start()
    except StoreError as exc:
        sock.close()
        fail_usage(str(exc))

    counts = service.store.counts()
    say(f"{len(bank.tasks)} tasks from {bank.root}; state {state} ({counts['done']} graded, "
        f"{counts['queued']} waiting" + (f", {service.store.requeued} cut off by the last stop "
                                         "and queued again" if service.store.requeued else "") + ")")
    if access.loopback_only:
        say("no --tokens: answering this machine only (loopback addresses); give --tokens FILE "
            "to accept other machines")
    else:
        say(f"{len(access.tokens)} tokens from {tokens}: every /v1 call needs one")
    where = f"on {scheduler}" if scheduler else \
        f"here, {backend.pool.size} learner workers kept warm"
    say(f"{workers} gradings at once {where}; a queue of {queue_limit}")
    bound_host, bound_port = sock.getsockname()[:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    say(f"listening on http://{shown}:{bound_port}")

    config = uvicorn.Config(create_app(service, manage=False), log_level="warning",
                            access_log=False, lifespan="on", http="h11", loop="asyncio",
                            timeout_graceful_shutdown=3)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        say("stopping: what is still grading is graded again at the next start")
        service.close()
    sys.exit(0)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(False)
    return sock
