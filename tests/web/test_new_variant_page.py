"""Try a new variant in the browser, with scripts off: after a numeric question's reveal a
button serves other numbers for the same question, the page says it is practice, and its
answer is graded but never mastery evidence."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import pages as steps
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser


def test_a_new_variant_after_the_reveal_is_practice(nojs_page: Any, live_server: LiveServer,
                                                    shot: Any) -> None:
    page = nojs_page
    page.goto("/?lang=en")
    steps.start(page, "/quiz", size=5)
    for _ in range(5):  # answer right until a numeric question's result is on screen
        numeric = steps.question_kind(page) in ("integer", "vector")
        steps.type_answer(page, live_server, right=True)
        steps.submit_with_enter(page)
        page.wait_for_url("**/attempts/*")
        if numeric:
            break
        page.locator("#next-link").click()
    else:
        pytest.fail("no numeric question in the first five of a quiz")
    result_url = page.url
    asked = page.locator(".answered .prompt").inner_text()
    assert page.locator("#new-variant-note").inner_text().endswith(
        "it never counts toward mastery.")
    page.locator("#new-variant").click()
    page.wait_for_url("**/practice/*")
    assert "never counts toward mastery" in page.locator("#practice-note").inner_text()
    assert page.locator("#q-position").count() == 0
    assert page.locator("#q-prompt").inner_text() != asked, "other numbers"
    shot(page, "new-variant")
    steps.type_answer(page, live_server, right=True)
    steps.submit_with_enter(page)
    page.wait_for_url("**/attempts/*")
    assert page.locator("#result-h").inner_text().endswith("Right")
    assert "new variant tried after the reveal" in page.locator("#practice-note").inner_text()
    attempt = page.locator("#attempt").get_attribute("data-attempt-id")
    answered = page.request.get(f"/api/attempts/{attempt}").json()
    assert (answered["practice"], answered["closed_book"]) == (True, False)
    shot(page, "new-variant-result")
    page.locator("#next-link").click()  # back to the session it was tried from
    page.wait_for_load_state()
    assert page.url.split("?")[0] == result_url.split("/attempts/")[0]
