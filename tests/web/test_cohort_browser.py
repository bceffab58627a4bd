"""A cohort in headless Chromium without JavaScript: a learner joins from the join page and
their instructor reads them on the instructor's page (screenshots of both)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import pages as steps
from tests.support.cohorts import live_cohort
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser


def test_a_learner_joins_and_the_instructor_reads_them_without_javascript(
        browser: Any, nojs_page: Any, live_server: LiveServer, shot: Any) -> None:
    cohort = live_cohort(live_server, "Browser class")
    page = nojs_page
    page.goto("/quiz?lang=en")
    steps.start(page, "/quiz", size=1)
    steps.type_answer(page, live_server, right=True)
    with page.expect_navigation():
        page.locator("#submit-answer").click()

    page.goto(f"/join/{cohort.join_code}")
    assert page.locator("#cohort-name").inner_text() == "Browser class"
    assert not page.locator("#share-explanations").is_checked()
    shot(page, "cohort-join")
    page.locator("#display-name").fill("Lin")
    page.locator("#share-explanations").check()
    with page.expect_navigation():
        page.locator("#join-form button[type=submit]").click()
    assert "/cohorts/mine" in page.url
    assert "Browser class" in page.locator("#my-cohorts").inner_text()
    shot(page, "cohort-mine")

    instructor = browser.new_context(base_url=live_server.url, java_script_enabled=False,
                                     viewport={"width": 1280, "height": 800})
    try:
        reader = instructor.new_page()
        reader.goto(f"/cohorts/{cohort.id}/{cohort.instructor_token}?lang=en")
        table = reader.locator("#cohort-table").inner_text()
        assert "Lin" in table and "100%" in table
        assert "Self-reported, pooled over the cohort" in reader.content()
        shot(reader, "cohort-instructor")
        wrong = reader.goto(f"/cohorts/{cohort.id}/not-the-token")
        assert wrong is not None and wrong.status == 404
    finally:
        instructor.close()

    with page.expect_navigation():
        page.locator(f"form[action='/cohorts/mine/{cohort.id}/leave'] button").click()
    assert "Browser class" not in page.content()
