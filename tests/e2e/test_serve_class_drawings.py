"""Issue 22, the service over a term: the instructor's live class view draws each failed
retrace script once, with the learners whose run it is, as the batch's class report
does (the pass rates and common failures are tests/e2e/test_serve_term.py's)."""

from __future__ import annotations

import re

from helpers.serve_server import ROOT, TASK, Server, make_bank

PROF = "prof-token-0123456789abcdef"
# accepted, but a new lambda per call: jit never reuses a compile, the retrace check fails
RETRACES = (ROOT / "tasks" / TASK / "known" / "fresh_lambda.py").read_text()


def test_a_failed_retrace_script_is_drawn_once_for_all_who_ran_it(tmp_path):
    tokens = tmp_path / "tokens.yaml"
    tokens.write_text(f"tokens:\n  - name: prof\n    token: {PROF}\n    role: instructor\n")
    server = Server(
        make_bank(tmp_path / "bank"),
        tmp_path / "state.sqlite",
        "--workers",
        "1",
        "--warm",
        "1",
        "--tokens",
        str(tokens),
    )
    server.http.headers["Authorization"] = f"Bearer {PROF}"  # every call below
    try:
        ids = []
        for learner in ("alice", "bob"):
            ids.append(server.submit(RETRACES, learner=learner)["id"])
        for sub_id in ids:
            report = server.result(sub_id)
            assert report["verdict"] == "accepted", report
            retrace = next(c for c in report["checks"] if c["id"] == "retrace")
            assert retrace["status"] == "failed", retrace

        page = server.http.get("/v1/class.html")
        assert page.status_code == 200, page.text
        assert page.text.count("<h2>Failed retrace scripts</h2>") == 1
        blocks = re.findall(r'<div class="retrace" data-kind="retrace".*?</div>', page.text, re.S)
        assert len(blocks) == 1, blocks  # the same script, drawn once
        assert "(2)" in blocks[0] and "alice" in blocks[0] and "bob" in blocks[0]
        assert '<g class="call' in blocks[0]  # the picture itself
    finally:
        server.close()
