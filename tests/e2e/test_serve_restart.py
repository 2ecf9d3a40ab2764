"""judge serve killed with SIGKILL while it grades, then started again on the same state
file: what was waiting or running is graded, nothing is lost, nothing is graded twice,
and nothing the killed service started outlives it."""

from __future__ import annotations

import signal
import sqlite3
import time

import pytest

from helpers.serve_server import CRASH, LOOP, RIGHT, WRONG, Server, alive, make_bank, unique

pytestmark = pytest.mark.slow


def rows(state) -> dict[str, dict]:
    db = sqlite3.connect(state)
    try:
        found = db.execute("SELECT id, state, attempts, finished_at, report FROM submissions")
        return {
            r[0]: dict(zip(("state", "attempts", "finished_at", "report"), r[1:])) for r in found
        }
    finally:
        db.close()


def test_sigkill_while_grading_then_restart(tmp_path):
    bank = make_bank(tmp_path / "bank")
    state = tmp_path / "state.sqlite"
    first = Server(bank, state, "--workers", "1", "--warm", "1")
    try:
        done = first.submit(unique(RIGHT, "before"))
        done_report = first.result(done["id"])
        running = first.submit(unique(LOOP, "cut-off"))
        waiting = {
            first.submit(unique(src, kind))["id"]: verdict
            for src, kind, verdict in [
                (RIGHT, "waiting-right", "accepted"),
                (WRONG, "waiting-wrong", "wrong_answer"),
                (CRASH, "waiting-crash", "runtime_error"),
            ]
        }
        deadline = time.monotonic() + 60
        while first.state_of(running["id"]) != "running" and time.monotonic() < deadline:
            time.sleep(0.1)
        assert first.state_of(running["id"]) == "running"
        started = first.worker_pids()
        assert started, "the service should have workers running"
        first.kill()
    finally:
        first.close()

    deadline = time.monotonic() + 20  # their parent is gone: they die with it
    while alive(started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive(started) == [], "workers outlived the killed service"

    stored = rows(state)  # every submission was in the file
    assert stored[done["id"]]["state"] == "done"
    assert stored[running["id"]]["state"] == "running"
    assert all(stored[i]["state"] == "queued" for i in waiting)

    second = Server(bank, state, "--workers", "1", "--warm", "1")
    try:
        assert "1 cut off by the last stop and queued again" in second.log
        assert "3 waiting" in second.log
        assert second.result(running["id"])["verdict"] == "time_limit_exceeded"
        for sub_id, verdict in waiting.items():
            assert second.result(sub_id)["verdict"] == verdict
        assert second.http.get(f"/v1/submissions/{done['id']}").json() == done_report
        again = second.submit(unique(RIGHT, "before"))
        assert again == {"id": done["id"], "state": "done", "deduplicated": True}
        graded = sum(
            second.metric("judge_gradings_total", verdict=v)
            for v in ("accepted", "wrong_answer", "runtime_error", "time_limit_exceeded")
        )
        assert graded == 4  # the cut-off one and the three waiting
        # SIGTERM: a clean stop (uvicorn passes the signal on once it has shut down)
        assert second.stop() in (0, -signal.SIGTERM)
        assert "stopping:" in second.log
    finally:
        second.close()

    stored = rows(state)
    assert {i: r["state"] for i, r in stored.items()} == {
        i: "done" for i in [done["id"], running["id"], *waiting]
    }
    assert stored[done["id"]]["attempts"] == 1 and stored[running["id"]]["attempts"] == 2
    assert all(stored[i]["attempts"] == 1 for i in waiting)
