"""The item-analysis page in Chromium without JavaScript: an author signs in with the token,
reads the tables, unfolds a question's variants and downloads the CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support import pages as steps
from tests.support.live import LIVE_AUTHOR_TOKEN, LiveServer

pytestmark = pytest.mark.browser


def test_an_author_reads_the_item_analysis_without_javascript(
        nojs_page: Any, page: Any, live_server: LiveServer, shot: Any) -> None:
    # A learner (JavaScript on) answers a quiz first, so there is something to analyse.
    steps.start(page, "/quiz", size=2)
    steps.type_answer(page, live_server, right=True)
    with page.expect_navigation():
        page.locator("#submit-answer").click()

    author = nojs_page
    author.goto("/author/item-analysis?lang=en")
    assert author.locator("#author-sign-in").is_visible()
    shot(author, "item-analysis-sign-in-en")
    author.locator("#author-token").fill("not the token")
    with author.expect_navigation():
        author.locator("#author-sign-in button").click()
    assert author.locator("#author-token-error").is_visible()
    author.locator("#author-token").fill(LIVE_AUTHOR_TOKEN)
    with author.expect_navigation():
        author.locator("#author-sign-in button").click()
    assert LIVE_AUTHOR_TOKEN not in author.url
    assert author.locator("#questions-table").is_visible()
    assert author.locator("#rules-table tbody tr").count() > 0
    assert not author.locator("#scope-counts").inner_text().startswith("0 learners")
    summary = author.locator("#variants-h ~ details summary").first
    summary.click()
    assert author.locator("#variants-h ~ details[open] table").first.is_visible()
    shot(author, "item-analysis-en")
    with author.expect_download() as download:
        author.locator("a", has_text="Download the questions as CSV").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert text.startswith("question_id,lesson,kind,")
    author.goto("/author/item-analysis?lang=zh")
    assert author.locator("h1").inner_text() == "题目分析"
    shot(author, "item-analysis-zh")
