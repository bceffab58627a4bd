"""Mastery is counted over graded questions only, and the pages say so: home's rows add up to
the whole, /progress counts mastered of the graded questions, and a flashcards session's
summary has no mastery column (cards never become mastery)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from quizsvc.bank.kinds import GRADED
from tests.support import pages as steps
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser


def graded_questions(live: LiveServer) -> int:
    """Count the bank's graded questions (the only ones that can become mastery)."""
    return sum(1 for q in live.app.config["BANK"].questions.values() if q.kind in GRADED)


def test_homes_rows_add_up_to_every_question(page: Any, live_server: LiveServer,
                                            shot: Any) -> None:
    page.goto("/")
    table = page.locator("#home-counts")
    rows = [[int(cell) for cell in row.locator("td").all_inner_texts()]
            for row in table.locator("tbody tr").all()]
    whole = [int(cell) for cell in table.locator("tfoot td").all_inner_texts()]
    assert [sum(column) for column in zip(*rows, strict=True)] == whole
    assert whole[2] == len(live_server.app.config["BANK"].questions)
    assert rows[0][2] == graded_questions(live_server)
    expect(page.locator("#counts-note")).to_contain_text("评分")
    shot(page, "home-counts")


def test_progress_counts_mastery_over_graded_questions_and_says_so(
        page: Any, live_server: LiveServer, shot: Any) -> None:
    page.goto("/progress")
    graded = graded_questions(live_server)
    assert page.locator("#stat-mastered").inner_text() == f"0 / {graded}"
    expect(page.locator("#mastery-scope")).to_contain_text(f"{graded} 道评分题")
    assert page.request.get("/api/progress").json()["graded"] == graded
    shot(page, "progress-mastery-scope")


def test_a_flashcards_summary_has_no_mastery_column(page: Any, shot: Any) -> None:
    steps.start(page, "/flashcards", size=1)
    page.locator("#submit-answer").click()
    page.locator("#reveal").wait_for()
    page.locator("button[data-rating='good']").click()
    page.wait_for_selector("#done-h")
    headers = page.locator("table.summary thead th").all_inner_texts()
    assert "掌握" not in headers and len(headers) == 3
    assert "尚未" not in page.locator("table.summary").inner_text()
    expect(page.locator("#self-rated-note")).to_contain_text("不计入掌握")
    shot(page, "flashcard-summary")
