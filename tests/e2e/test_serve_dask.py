"""judge serve --scheduler: one service front, the gradings on a Dask cluster (a local
one of two worker processes here), through the batch's grader.  The reports are the
ones `judge run` gives."""

from __future__ import annotations

import os
import sys

import pytest

from helpers.serve_server import (
    CRASH,
    LOOP,
    RIGHT,
    TASK,
    WRONG,
    Server,
    judge_run_json,
    make_bank,
    unique,
)

pytestmark = pytest.mark.slow
distributed = pytest.importorskip("distributed")


def test_gradings_on_a_dask_cluster(tmp_path):
    bank = make_bank(tmp_path / "bank")
    # worker processes, as on a real cluster (in-process workers would grade inside pytest)
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        local_directory=str(tmp_path / "dask"),
    ) as cluster:
        server = Server(
            bank,
            tmp_path / "state.sqlite",
            "--scheduler",
            cluster.scheduler_address,
            "--workers",
            "2",
        )
        try:
            assert f"2 gradings at once on {cluster.scheduler_address}" in server.log
            health = server.health()
            assert health["scheduler"] == "dask" and health["address"] == cluster.scheduler_address
            subs = {
                kind: server.submit(unique(src, f"dask-{kind}"))["id"]
                for kind, src in [
                    ("right", RIGHT),
                    ("wrong", WRONG),
                    ("looping", LOOP),
                    ("crash", CRASH),
                ]
            }
            reports = {kind: server.result(sub_id) for kind, sub_id in subs.items()}
            with distributed.Client(cluster.scheduler_address) as client:
                profiling = client.run(
                    lambda dask_worker: [
                        pc.is_running()
                        for name, pc in dask_worker.periodic_callbacks.items()
                        if name.startswith("profile")
                    ]
                )
        finally:
            server.close()
    # CPython 3.11 before 3.11.9 deadlocks a process whose profiler thread meets the GC
    if sys.version_info[:2] == (3, 11) and sys.version_info < (3, 11, 9):
        graded_on = [running for running in profiling.values() if running and not any(running)]
        assert graded_on, f"the Dask profiler still runs where gradings ran: {profiling}"
    assert {k: r["verdict"] for k, r in reports.items()} == {
        "right": "accepted",
        "wrong": "wrong_answer",
        "looping": "time_limit_exceeded",
        "crash": "runtime_error",
    }
    expected = judge_run_json(bank, TASK, unique(WRONG, "dask-wrong"), tmp_path)
    assert reports["wrong"]["checks"] == expected["checks"]
    assert reports["wrong"]["submission"] == "submission.py"


def test_an_unreachable_scheduler_is_refused_at_start(tmp_path):
    import subprocess

    from helpers.serve_server import JUDGE

    bank = make_bank(tmp_path / "bank")
    res = subprocess.run(
        [
            JUDGE,
            "--bank",
            str(bank),
            "serve",
            "--port",
            "0",
            "--state",
            str(tmp_path / "s.sqlite"),
            "--scheduler",
            "tcp://127.0.0.1:1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"},
    )
    assert res.returncode == 2 and "cannot reach the Dask scheduler" in res.stderr
