"""The service over a term, through HTTP: submissions that name their learner, the
learner's history, the live class report and gradebook.csv (for instructor tokens only),
all kept in the state file across a SIGKILL; references warmed when first needed and
given back when idle; a learner pool bounded in all, as the start-up line says; uvicorn's
access log; notebooks refused with 422 where the serve extra's modules are missing."""

from __future__ import annotations

import csv
import io
import time
from pathlib import Path

import pytest

from helpers import until
from helpers.serve_server import RIGHT, TASK, WRONG, Server, alive, make_bank, unique

OTHER = "safe_mean"  # its workers' limits differ from TASK's: another kind
SITE, PROF = "site-token-0123456789abcdef", "prof-token-0123456789abcdef"
TOKENS = f"""tokens:
  - name: site
    token: {SITE}
  - name: prof
    token: {PROF}
    role: instructor
"""


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("term")
    make_bank(root / "bank", (TASK, OTHER))
    (root / "tokens.yaml").write_text(TOKENS)
    return root


def term_server(root: Path, state: Path, *flags: str) -> Server:
    return Server(
        root / "bank",
        state,
        "--workers",
        "2",
        "--warm",
        "1",
        "--tokens",
        str(root / "tokens.yaml"),
        "--reference-idle",
        "4",
        *flags,
    )


@pytest.fixture(scope="module")
def served(root, tmp_path_factory):
    server = term_server(root, tmp_path_factory.mktemp("served") / "state.sqlite")
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def term(served) -> dict:
    """The term's submissions, made once on each server this module starts: under --dist
    worksteal its tests may be split over pytest workers, each with its own server, in any
    order, so no test may lean on what another one submitted. alice hands in right then
    wrong, bob wrong, carol and dave the same right code (carol clicking twice), and a
    learner with the longest id allowed hands in right."""
    made = {"longest_id": post(served, source=unique(RIGHT, "ok-id"), learner="a" * 128)}
    made["alice"] = [post(served, source=unique(RIGHT, "alice-1"), learner="alice").json()["id"]]
    graded(served, made["alice"][0])  # so that her second attempt is the newer
    made["alice"].append(
        post(served, source=unique(WRONG, "alice-2"), learner="alice").json()["id"]
    )
    made["bob"] = post(served, source=unique(WRONG, "bob-1"), learner="bob@uni.example").json()
    made["carol"] = post(served, source=unique(RIGHT, "shared"), learner="carol").json()
    made["dave"] = post(served, source=unique(RIGHT, "shared"), learner="dave").json()
    made["carol_again"] = post(served, source=unique(RIGHT, "shared"), learner="carol").json()
    for sub_id in (
        made["longest_id"].json()["id"],
        made["alice"][1],
        made["bob"]["id"],
        made["carol"]["id"],
        made["dave"]["id"],
    ):
        graded(served, sub_id)
    return made


def as_(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def post(server, token=SITE, **body):
    return server.http.post("/v1/submissions", json={"task": TASK, **body}, headers=as_(token))


def graded(server, sub_id: str) -> dict:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        answer = server.http.get(
            f"/v1/submissions/{sub_id}", params={"wait": 30}, headers=as_(SITE)
        )
        if answer.status_code == 200:
            return answer.json()
    raise AssertionError(f"{sub_id} not graded:\n{server.log}")


# ---------------------------------------------------------------- at start
def test_nothing_is_warmed_before_it_is_needed_and_the_start_line_is_true(root, tmp_path):
    served = term_server(root, tmp_path / "state.sqlite")
    try:
        nothing_warmed_at_start(served)
    finally:
        served.close()


def nothing_warmed_at_start(served: Server) -> None:
    h = served.health()
    assert h["oracles_warm"] == 0 and h["oracles_warm_target"] == 0, h
    assert "a task's reference warms when it is first graded" in served.log
    said = int(served.log.split(" learner workers kept warm in all")[0].rsplit(" ", 1)[1])
    assert said == h["workers_warm_target"] == 1
    # two kinds of worker in the bank (TASK's and OTHER's limits), one warm in all: never
    # one of each kind (the start line said 1 while 2 ran)
    until(lambda: served.health()["workers_warm"] == 1, what="the pool filling")
    time.sleep(3)
    assert served.health()["workers_warm"] == 1
    # one worker: bwrap, its init and python; forked, the warm sandbox (bwrap, its init,
    # its server) and the worker forked in it
    at_most = 4 if h["isolation"] == "forked" else 3
    assert len(alive(served.worker_pids())) <= at_most, served.worker_pids()


# ---------------------------------------------------------------- learners
def test_a_learner_id_is_checked(served, term):
    for bad in (
        "",
        "a" * 129,
        "../etc",
        "<script>",
        "=HYPERLINK(1)",
        "a b",
        "a\nb",
        7,
        ["alice"],
        "é",
    ):
        answer = post(served, source=RIGHT, learner=bad)
        assert answer.status_code == 422, (bad, answer.text)
        assert "'learner'" in answer.json()["error"]
    assert term["longest_id"].status_code == 202, term["longest_id"].text


def test_a_learners_history_newest_first_for_the_instructor_only(served, term):
    first, second = term["alice"]

    answer = served.http.get("/v1/learners/alice/submissions", headers=as_(PROF))
    assert answer.status_code == 200, answer.text
    history = answer.json()
    assert history["learner"] == "alice"
    assert [s["id"] for s in history["submissions"]] == [second, first]
    assert [s["verdict"] for s in history["submissions"]] == ["wrong_answer", "accepted"]
    assert history["submissions"][1]["points"] == history["submissions"][1]["max_points"] > 0
    assert (
        served.http.get("/v1/learners/nobody/submissions", headers=as_(PROF)).json()["submissions"]
        == []
    )

    for headers, status in (({}, 401), (as_(SITE), 403), (as_("x" * 30), 401)):
        for path in (
            "/v1/learners/alice/submissions",
            "/v1/class",
            "/v1/class.html",
            "/v1/gradebook.csv",
        ):
            answer = served.http.get(path, headers=headers)
            assert answer.status_code == status, (path, headers, answer.text)
            assert "alice" not in answer.text
    bad = served.http.get("/v1/learners/a%20b/submissions", headers=as_(PROF))
    assert bad.status_code == 400 and "'learner'" in bad.json()["error"]
    assert (
        served.http.get(
            "/v1/learners/alice/submissions", params={"limit": "0"}, headers=as_(PROF)
        ).status_code
        == 400
    )
    one = served.http.get(
        "/v1/learners/alice/submissions", params={"limit": "1"}, headers=as_(PROF)
    ).json()
    assert [s["id"] for s in one["submissions"]] == [second]


def test_the_same_code_from_two_learners_is_in_both_histories(served, term):
    a, b, again = term["carol"], term["dave"], term["carol_again"]
    assert a["id"] != b["id"] and not b["deduplicated"]
    assert again["id"] == a["id"] and again["deduplicated"]  # a double click
    for who, sub in (("carol", a), ("dave", b)):
        ids = [
            s["id"]
            for s in served.http.get(f"/v1/learners/{who}/submissions", headers=as_(PROF)).json()[
                "submissions"
            ]
        ]
        assert ids == [sub["id"]]


def test_the_gradebook_is_the_batchs_with_the_best_attempt(served, term):
    answer = served.http.get("/v1/gradebook.csv", headers=as_(PROF))
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    assert "\r\n" in answer.text  # the batch's RFC 4180 rows
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    assert list(rows[0]) == ["learner", TASK, OTHER, "score", "max_score", "late"] or list(
        rows[0]
    ) == ["learner", OTHER, TASK, "score", "max_score", "late"]
    by = {r["learner"]: r for r in rows}
    assert by["alice"][TASK] == "accepted"  # her best, though her last is wrong
    assert by["bob@uni.example"][TASK] == "wrong_answer"
    assert by["alice"][OTHER] == "missing"
    assert float(by["alice"]["score"]) > float(by["bob@uni.example"]["score"]) == 0


def test_the_class_view_is_the_batch_class_report_live(served, term):
    summary = served.http.get("/v1/class", headers=as_(PROF)).json()
    task = summary["tasks"][TASK]
    # alice's best (accepted), bob (wrong), carol and dave (accepted), the 128-char id
    assert task["graded"] == 5, task
    assert task["pass_rate"] == 0.8
    assert task["common_failures"] and "bob@uni.example" in task["common_failures"][0]["learners"]
    page = served.http.get("/v1/class.html", headers=as_(PROF))
    assert page.status_code == 200 and "<h1>Class report</h1>" in page.text
    assert f'data-task="{TASK}"' in page.text and 'data-value="0.8"' in page.text
    assert 'href="reports/' not in page.text  # no link to a file that is not here
    assert "default-src 'none'" in page.headers["content-security-policy"]


def test_an_idle_reference_gives_its_memory_back(served, term):
    until(lambda: served.health()["oracles_released"] >= 1, 60, "the reference's release")
    h = served.health()
    assert h["oracles_warm"] == 0 and h["oracles_warm_target"] == 0, h
    # and the next grading warms it again (no learner: the class view counts the term's)
    sub = post(served, source=unique(RIGHT, "after-idle")).json()
    assert graded(served, sub["id"])["verdict"] == "accepted"


def test_every_request_is_in_the_access_log(served):
    served.http.get("/healthz?probe=access-log")
    until(
        lambda: '"GET /healthz?probe=access-log HTTP/1.1" 200' in served.log,
        10,
        "the access log line",
    )
    line = next(l for l in served.lines if "probe=access-log" in l)
    assert "127.0.0.1:" in line and " - " in line  # uvicorn's: ADDRESS:PORT - "..." 200
    assert PROF not in served.log and SITE not in served.log


def test_learners_survive_a_sigkill_and_the_last_attempt_is_configurable(root, tmp_path):
    state = tmp_path / "state.sqlite"
    served = term_server(root, state)
    try:
        for source in (unique(RIGHT, "kill-1"), unique(WRONG, "kill-2")):
            graded(served, post(served, source=source, learner="alice").json()["id"])
        before = served.http.get("/v1/learners/alice/submissions", headers=as_(PROF)).json()
        assert len(before["submissions"]) == 2, before
        served.kill()
    finally:
        served.close()
    again = Server(
        root / "bank",
        state,
        "--workers",
        "1",
        "--warm",
        "0",
        "--tokens",
        str(root / "tokens.yaml"),
        "--gradebook",
        "last",
    )
    try:
        assert again.http.get("/v1/learners/alice/submissions", headers=as_(PROF)).json() == before
        rows = {
            r["learner"]: r
            for r in csv.DictReader(
                io.StringIO(again.http.get("/v1/gradebook.csv", headers=as_(PROF)).text)
            )
        }
        assert rows["alice"][TASK] == "wrong_answer"  # her last attempt
        assert "gradebook.csv (last attempt)" in again.log
    finally:
        again.close()


# ---------------------------------------------------------------- without tokens
def test_without_tokens_nobody_reads_the_class(tmp_path):
    server = Server(
        make_bank(tmp_path / "bank"), tmp_path / "state.sqlite", "--warm", "0", "--workers", "1"
    )
    try:
        for path in ("/v1/learners/alice/submissions", "/v1/class.html", "/v1/gradebook.csv"):
            answer = server.http.get(path)
            assert answer.status_code == 403 and "instructor token" in answer.json()["error"]
        assert "nobody (no --tokens entry has role: instructor)" in server.log
        unknown = server.http.get("/v1/nothing-here")
        assert unknown.status_code == 404 and "error" in unknown.json()
    finally:
        server.close()


def test_a_bad_role_stops_the_start(tmp_path):
    import subprocess

    from helpers.serve_server import JUDGE

    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(f"tokens:\n  - name: x\n    token: {PROF}\n    role: admin\n")
    res = subprocess.run(
        [
            JUDGE,
            "--bank",
            str(make_bank(tmp_path / "bank")),
            "serve",
            "--port",
            "0",
            "--tokens",
            str(tokens),
            "--state",
            str(tmp_path / "s.sqlite"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 2 and "'role' must be one of site, instructor" in res.stderr


# ---------------------------------------------------------------- notebooks
def test_notebooks_are_refused_with_422_where_nbformat_is_missing(tmp_path):
    hide = tmp_path / "hide"
    (hide / "nbformat").mkdir(parents=True)
    (hide / "nbformat" / "__init__.py").write_text(
        "raise ImportError('nbformat hidden by this test')\n"
    )
    server = Server(
        make_bank(tmp_path / "bank"),
        tmp_path / "state.sqlite",
        "--warm",
        "0",
        "--workers",
        "1",
        env={"PYTHONPATH": str(hide)},
    )
    try:
        assert "notebook submissions: refused with 422: nbformat cannot be imported" in server.log
        notebook = {
            "cells": [
                {
                    "cell_type": "code",
                    "source": RIGHT,
                    "metadata": {},
                    "outputs": [],
                    "execution_count": None,
                }
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        answer = server.http.post("/v1/submissions", json={"task": TASK, "notebook": notebook})
        assert answer.status_code == 422, answer.text
        assert "cannot grade notebooks" in answer.json()["error"]
        assert server.health()["notebooks"] == "refused"
        assert (
            server.http.post("/v1/submissions", json={"task": TASK, "source": RIGHT}).status_code
            == 202
        )  # a .py still is graded
    finally:
        server.close()


def test_the_serve_extra_installs_what_a_notebook_needs():
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    serve = " ".join(project["project"]["optional-dependencies"]["serve"])
    assert "nbformat" in serve and "ipython" in serve


def test_past_the_bound_the_least_recently_used_reference_goes(root, tmp_path):
    other_right = (root / "bank" / "reference" / f"{OTHER}.py").read_text()
    server = Server(
        root / "bank",
        tmp_path / "state.sqlite",
        "--workers",
        "1",
        "--warm",
        "0",
        "--keep-references",
        "1",
    )
    try:
        assert "at most 1 kept" in server.log
        for task, source in ((TASK, RIGHT), (OTHER, other_right)):
            sub = server.http.post("/v1/submissions", json={"task": task, "source": source})
            assert server.result(sub.json()["id"])["verdict"] == "accepted"
        h = server.health()
        assert h["oracles_released"] == 1 and h["oracles_warm_target"] == 1, h
    finally:
        server.close()
