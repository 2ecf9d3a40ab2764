"""The service's page in a real headless browser, as a learner uses it: pick the task,
read the statement, write a solution over the starter, submit, watch it wait, read the
verdict and the retrace picture.  A right and a wrong function, one after the other.

JUDGE_SCREENSHOTS=DIR keeps the screenshots there (default: the test's own folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helpers.serve_server import RIGHT, TASK, WRONG, Server, make_bank, unique

pytestmark = pytest.mark.slow

EXTRA = "canonical_pair_sum"  # a second task, so there is something to pick


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("page")
    server = Server(
        make_bank(root / "bank", (TASK, EXTRA)),
        root / "state.sqlite",
        "--workers",
        "2",
        "--warm",
        "2",
    )
    try:
        yield server
    finally:
        server.close()


def _wait(driver, condition, timeout_s=180):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout_s, poll_frequency=0.1).until(condition)


def _submit(driver, source: str) -> str:
    """Write the source into the editor as typing would, submit, wait for the verdict;
    returns the states the page went through, and the verdict."""
    from selenium.webdriver.common.by import By

    driver.execute_script(
        "const area = document.getElementById('source'); area.value = arguments[0];"
        "area.dispatchEvent(new Event('input'));",
        source,
    )
    driver.find_element(By.ID, "submit").click()
    seen = set()

    def graded(d):
        seen.add(d.find_element(By.ID, "state").get_attribute("data-state"))
        found = d.find_elements(By.CSS_SELECTOR, "#report .jj-report .verdict")
        return found[0].text if found else False

    verdict = _wait(driver, graded)
    return verdict, seen


def test_a_learner_submits_through_the_page(served, browser, tmp_path):  # noqa: F811
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    shots = Path(os.environ.get("JUDGE_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    browser.get(served.url + "/")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#task option"))
    picker = Select(browser.find_element(By.ID, "task"))
    assert {o.get_attribute("value") for o in picker.options} == {TASK, EXTRA}

    picker.select_by_value(EXTRA)  # another task's statement and starter
    _wait(browser, lambda d: EXTRA in d.find_element(By.ID, "signature").text)
    picker.select_by_value(TASK)
    _wait(browser, lambda d: TASK in d.find_element(By.ID, "signature").text)
    assert "Two sums through one cached helper" in browser.find_element(By.ID, "statement").text
    starter = (served.bank / "tasks" / TASK / "starter.py").read_text()
    assert browser.find_element(By.ID, "source").get_attribute("value") == starter

    verdict, seen = _submit(browser, unique(WRONG, "page-wrong"))
    assert verdict == "WRONG ANSWER"
    assert seen & {"queued", "running"}, "the page never showed it waiting"
    report = browser.find_element(By.ID, "report")
    failed = report.find_element(By.CSS_SELECTOR, 'li[data-check="property"]')
    assert failed.get_attribute("data-status") == "failed"
    assert "expected" in failed.find_element(By.CSS_SELECTOR, "table.ce").text
    browser.save_screenshot(str(shots / "serve-page-wrong.png"))

    verdict, _ = _submit(browser, unique(RIGHT, "page-right"))
    assert verdict == "ACCEPTED"
    boxes = browser.find_elements(By.CSS_SELECTOR, "#report g.call")
    assert [b.get_attribute("data-state") for b in boxes[:4]] == [
        "traced",
        "traced",
        "traced",
        "cached",
    ]  # 8, 16, 32, then 8 again: the cache
    drawing = browser.find_element(By.CSS_SELECTOR, "#report figure.script")
    assert "3 programs" in drawing.text
    browser.execute_script("document.querySelector('#report figure.script').scrollIntoView()")
    browser.save_screenshot(str(shots / "serve-page.png"))

    browser.refresh()  # the draft survives a reload
    _wait(browser, lambda d: "page-right" in d.find_element(By.ID, "source").get_attribute("value"))


SLOW_FIRST_TASK = """
(() => {
  const real = window.fetch;
  window.__slowTaskDone = false;
  window.fetch = async (url, init) => {
    const answer = await real(url, init);
    if (String(url).includes("/v1/tasks/") && !String(url).includes("%s")) {
      await new Promise((r) => setTimeout(r, 1500));  // this one task's answer, late
      setTimeout(() => { window.__slowTaskDone = true; }, 0);
    }
    return answer;
  };
})();
"""


def test_the_task_picked_last_is_shown_even_when_an_earlier_answer_comes_later(served, browser):
    """The page loads its first task while the learner already picks another: the first
    task's answer, arriving last, must not overwrite the statement of the one picked."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    script = browser.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": SLOW_FIRST_TASK % EXTRA}
    )
    try:
        browser.get(served.url + f"/?task={TASK}")  # the first task: its answer is slow
        _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#task option"))
        Select(browser.find_element(By.ID, "task")).select_by_value(EXTRA)
        _wait(browser, lambda d: EXTRA in d.find_element(By.ID, "signature").text)
        _wait(browser, lambda d: d.execute_script("return window.__slowTaskDone"))
        assert EXTRA in browser.find_element(By.ID, "signature").text
        assert TASK not in browser.find_element(By.ID, "signature").text
    finally:
        browser.execute_cdp_cmd(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]}
        )
