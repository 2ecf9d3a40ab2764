"""``judge serve``: the grading service a course website calls.

    command    the click command: options, the tokens file, uvicorn on a socket
    app        the HTTP API (Starlette): /v1 submissions and tasks, /healthz, /metrics, /
    store      the service's state (SQLite): every submission, its report, its callbacks
    queue      the bounded queue and the grading threads that drain it
    backends   where a grading runs: here, with warm workers, or on a Dask cluster
    warm       the pool of pre-started learner workers and the warm reference workers
    callbacks  reports POSTed to a site's callback_url, retried with backoff
    access     bearer tokens and per-token rate limits
    metrics    the Prometheus collectors
    page/      the page for people at ``GET /`` (plain HTML, CSS and JS: no build step)

Data flows one way: app -> queue -> backend -> runner -> report; the store is written by
the app (a submission, before ``202``) and by the queue (its start and its report).
"""
