"""A worked solution reads the same in the browser with JavaScript on and off.

A solution is markdown: two or three sentences, a table of numbers and the ledger trace folded
below. The attempt page renders it on the server; the script's reveal must show that rendering,
not the raw text (pipes, ``::: details``). A new learner's first question is the first worked
example, a numeric question whose solution has all three parts.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import pages as steps
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser

RAW_MARKS = ("::: details", "|---", "| 请求 |")


def answer_wrong_and_explain(page: Any, live_server: LiveServer) -> None:
    """Answer the first question of a one-question quiz wrongly and explain why."""
    steps.start(page, "/quiz", size=1)
    steps.type_answer(page, live_server, right=False)
    steps.submit_with_enter(page)
    page.locator("#explanation").wait_for()
    steps.explain(page, "I gave the waiting request its whole prompt")


def assert_rendered(page: Any) -> None:
    """The reveal's solution has a table and a closed fold, and no raw markdown."""
    solution = page.locator("#reveal .solution.rendered")
    solution.wait_for()
    text = solution.inner_text()
    assert not any(mark in text for mark in RAW_MARKS), text[:300]
    assert solution.locator("table th").first.inner_text() == "请求"
    fold = solution.locator("details")
    assert fold.count() == 1 and fold.get_attribute("open") is None
    assert "第 " in fold.locator("summary").inner_text()
    assert solution.evaluate("box => getComputedStyle(box).whiteSpace") == "normal"


def test_the_scripted_reveal_shows_the_rendered_solution(page: Any, live_server: LiveServer,
                                                         shot: Any) -> None:
    answer_wrong_and_explain(page, live_server)
    assert_rendered(page)
    shot(page, "quiz-reveal-rendered")


def test_the_reveal_without_javascript_shows_the_same_rendering(
        nojs_page: Any, live_server: LiveServer) -> None:
    answer_wrong_and_explain(nojs_page, live_server)
    assert_rendered(nojs_page)
