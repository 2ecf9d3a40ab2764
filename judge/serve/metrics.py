"""``GET /metrics``: the service in the Prometheus text format (prometheus_client).

Counters count since the process started; gauges are read when scraped.
"""

from __future__ import annotations

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

# POST to done: a warm grading takes a fraction of a second, a looping one its limit
LATENCY_BUCKETS = (0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 30, 60, 120, 300)


class Metrics:
    content_type = CONTENT_TYPE_LATEST

    def __init__(self, queue, backend):
        self.registry = r = CollectorRegistry()
        self.submissions = Counter(
            "judge_submissions",
            "POST /v1/submissions by outcome: queued, deduplicated "
            "(answered from the store), queue_full (503), rate_limited (429), refused "
            "(bad input or no access)",
            ["outcome"],
            registry=r,
        )
        self.gradings = Counter(
            "judge_gradings", "Gradings finished, by verdict", ["verdict"], registry=r
        )
        self.latency = Histogram(
            "judge_latency_seconds",
            "From the submission stored to its report stored",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.callbacks = Counter(
            "judge_callbacks", "Callback tries, by result", ["result"], registry=r
        )
        Gauge("judge_queue_depth", "Submissions waiting to be graded", registry=r).set_function(
            lambda: queue.depth
        )
        Gauge("judge_running", "Gradings running now", registry=r).set_function(
            lambda: queue.running
        )
        Gauge("judge_grading_slots", "Gradings that may run at once", registry=r).set_function(
            lambda: queue.workers
        )
        status = backend.status
        Gauge(
            "judge_workers_warm", "Learner workers started and waiting for a submission", registry=r
        ).set_function(lambda: status().get("workers_warm", 0))
        Gauge(
            "judge_oracles_warm",
            "Reference workers warm (inputs drawn, values memoised)",
            registry=r,
        ).set_function(lambda: status().get("oracles_warm", 0))
        Gauge(
            "judge_warm_workers_used", "Gradings that got a warm learner worker", registry=r
        ).set_function(lambda: status().get("warm_workers_used", 0))

    def text(self) -> bytes:
        return generate_latest(self.registry)
