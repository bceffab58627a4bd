"""The item-analysis page in Chromium without JavaScript: an author signs in with the token,
reads the tables, unfolds a question's variants and downloads the CSV."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from tests.support import pages as steps
from tests.support.live import LIVE_AUTHOR_TOKEN, LiveServer
from tests.support.population import simulate_class

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


def test_a_simulated_class_of_forty_on_the_page(browser: Any, live_server: LiveServer,
                                                shot: Any) -> None:
    """40 simulated learners answer 20 questions of known difficulty; the author's page
    draws their facility and discrimination (desktop screenshots, zh and en)."""
    from quizsvc.store.database import make_engine
    from quizsvc.study.bank_index import BankIndex
    from quizsvc.study.item_analysis import scope_questions
    from tests.study.test_item_analysis import simulated_items, store_class

    bank = live_server.app.config["BANK"]
    lesson = live_server.lesson.id
    items = simulated_items([q.id for q in scope_questions(BankIndex.of(bank), lesson)])
    engine = make_engine(live_server.database_url)
    try:
        with engine.begin() as connection:
            store_class(connection, simulate_class(40, items, random.Random(5)), lesson,
                        prefix="browser-sim")
    finally:
        engine.dispose()
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280,
                                                                      "height": 800},
                                  java_script_enabled=False)
    author = context.new_page()
    try:
        author.goto("/author/item-analysis?lang=en")
        author.locator("#author-token").fill(LIVE_AUTHOR_TOKEN)
        with author.expect_navigation():
            author.locator("#author-sign-in button").click()
        assert author.locator("#facility-chart rect.bar").count() >= 20
        assert author.locator("#discrimination-chart rect.bar").count() >= 15
        for summary in author.locator(".chart-data summary").all():
            summary.click()
        shot(author, "item-analysis-class-of-40-en")
        author.goto("/author/item-analysis?lang=zh")
        shot(author, "item-analysis-class-of-40-zh")
    finally:
        context.close()
