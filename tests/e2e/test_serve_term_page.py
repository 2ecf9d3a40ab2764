"""The instructor's page in a real headless browser: the token asked for and kept in the
tab, the live class report (the batch's page) in a frame that runs no script, a
learner's history, a wrong token refused.  A learner's hostile id cannot get in (the
service refuses it), and what a learner's code prints cannot become markup."""

from __future__ import annotations

import time

import pytest

from helpers.serve_server import RIGHT, TASK, WRONG, Server, make_bank, unique

pytestmark = pytest.mark.slow
PROF = "prof-token-0123456789abcdef"
SITE = "site-token-0123456789abcdef"
# a wrong answer whose printed output and messages carry markup
MARKUP = WRONG + "\nprint('<img src=x onerror=\"document.title=1\">')\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("term-page")
    tokens = root / "tokens.yaml"
    tokens.write_text(
        f"tokens:\n  - name: site\n    token: {SITE}\n"
        f"  - name: prof\n    token: {PROF}\n    role: instructor\n"
    )
    server = Server(
        make_bank(root / "bank"),
        root / "state.sqlite",
        "--workers",
        "2",
        "--warm",
        "1",
        "--tokens",
        str(tokens),
    )
    try:
        for learner, source in (("alice", unique(RIGHT, "p1")), ("bob", unique(MARKUP, "p2"))):
            sub = server.http.post(
                "/v1/submissions",
                json={"task": TASK, "source": source, "learner": learner},
                headers={"Authorization": f"Bearer {SITE}"},
            ).json()
            deadline = time.monotonic() + 240
            while (
                server.http.get(
                    f"/v1/submissions/{sub['id']}",
                    params={"wait": 30},
                    headers={"Authorization": f"Bearer {SITE}"},
                ).status_code
                != 200
            ):
                assert time.monotonic() < deadline, server.log
        yield server
    finally:
        server.close()


def _wait(driver, condition, timeout_s=60):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout_s, poll_frequency=0.1).until(condition)


def _enter(driver, token: str) -> None:
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys(token)
    driver.find_element(By.ID, "load").click()


def test_the_instructor_sees_the_class(served, browser):
    from selenium.webdriver.common.by import By

    browser.get(served.url + "/instructor")
    _enter(browser, "not-the-token-0123456789")
    error = _wait(
        browser,
        lambda d: d.find_element(By.ID, "error").is_displayed() and d.find_element(By.ID, "error"),
    )
    assert error.text.startswith("401")
    assert not browser.find_element(By.ID, "class").is_displayed()

    _enter(browser, SITE)  # a site's token is not an instructor's
    _wait(browser, lambda d: d.find_element(By.ID, "error").text.startswith("403"))

    _enter(browser, PROF)
    frame = _wait(
        browser,
        lambda d: d.find_element(By.ID, "class").is_displayed() and d.find_element(By.ID, "class"),
    )
    assert frame.get_attribute("sandbox") == ""  # the report runs no script
    browser.switch_to.frame(frame)
    try:
        row = _wait(
            browser,
            lambda d: d.find_elements(
                By.CSS_SELECTOR, f'tr[data-task="{TASK}"] td[data-metric="pass_rate"]'
            ),
        )
        assert row[0].get_attribute("data-value") == "0.5"
        learners = {
            e.get_attribute("data-learner")
            for e in browser.find_elements(By.CSS_SELECTOR, "tr[data-learner]")
        }
        assert learners == {"alice", "bob"}
        assert not browser.find_elements(By.CSS_SELECTOR, "img")  # markup stayed text
    finally:
        browser.switch_to.default_content()
    assert browser.title != "1"
    assert browser.execute_script("return sessionStorage.getItem('jj-instructor-token')") == PROF
    assert browser.execute_script("return localStorage.getItem('jj-instructor-token')") is None

    browser.find_element(By.ID, "learner").send_keys("alice")
    browser.find_element(By.CSS_SELECTOR, "#learner-form button").click()
    rows = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#history tbody tr"))
    cells = [td.text for td in rows[0].find_elements(By.TAG_NAME, "td")]
    assert cells[1:4] == [TASK, "done", "accepted"], cells
