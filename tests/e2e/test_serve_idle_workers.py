"""Issue 22, through HTTP: the service's warm learner workers give their memory back when
nobody submits for ``--worker-idle`` seconds, all but one, so the first verdict after a
quiet spell still finds a worker waiting; the next submission fills the pool again; the
start-up line and /healthz say what runs (counted in /proc, not taken on trust)."""

from __future__ import annotations

from pathlib import Path

from helpers import until
from helpers.serve_server import RIGHT, Server, alive, make_bank


def _workers(server: Server) -> list[int]:
    """The service's own children: one process per worker (bwrap's, or the worker's)."""
    pid, kids = server.proc.pid, []
    for tid in _listdir(f"/proc/{pid}/task"):
        try:
            kids += [int(k) for k in Path(f"/proc/{pid}/task/{tid}/children").read_text().split()]
        except OSError:
            continue
    return alive(kids)


def _listdir(path: str) -> list[str]:
    import os

    try:
        return os.listdir(path)
    except OSError:
        return []


def test_idle_learner_workers_give_their_memory_back_all_but_one(tmp_path):
    server = Server(
        make_bank(tmp_path / "bank"),
        tmp_path / "state.sqlite",
        "--workers",
        "1",
        "--warm",
        "2",
        "--worker-idle",
        "3",
    )
    try:
        assert "2 learner workers kept warm in all (1 after 3 s without a submission)" in server.log

        # the pool fills to 2, nobody submits: 3 s later one is given back
        h = until(
            lambda: (h := server.health())["workers_released"] >= 1 and h,
            240,
            "an idle learner worker given back",
        )
        assert h["workers_released"] == 1, h
        assert h["workers_warm"] == h["workers_warm_target"] == h["workers_kept_idle"] == 1, h
        assert h["workers_kept_at_most"] == 2 and h["workers_idle_s"] == 3, h
        # what runs is what health says: nothing graded yet, so no reference either
        until(lambda: len(_workers(server)) == 1, 30, "one worker process left")

        # the first verdict after the quiet spell is served by the worker kept warm
        sub = server.submit(RIGHT)
        assert server.result(sub["id"])["verdict"] == "accepted"
        h = server.health()
        assert h["warm_workers_used"] == 1 and h["warm_workers_missed"] == 0, h

        # the submission filled the pool again (2), and left alone it gave one back again
        h = until(
            lambda: (h := server.health())["workers_released"] >= 2 and h,
            240,
            "the refilled pool giving one back again",
        )
        assert h["workers_warm"] == h["workers_warm_target"] == 1, h
        assert h["oracles_warm_target"] == 1, h  # the task's reference, kept (300 s idle)
        until(lambda: len(_workers(server)) == 2, 30, "one learner worker and the reference")
    finally:
        server.close()


def test_the_option_is_documented():
    import subprocess

    from helpers.serve_server import JUDGE, ROOT

    res = subprocess.run([JUDGE, "serve", "--help"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0 and "--worker-idle SECONDS" in res.stdout, res.stdout
    serve_section = (ROOT / "README.md").read_text().split("## A grading service")[1]
    assert "--worker-idle" in serve_section.split("\n## ")[0]
