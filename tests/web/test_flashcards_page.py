"""The ``/flashcards`` page starts a flashcards-only session (no graded question between cards)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.fake_bank import LESSON_ID, FakeBank, flashcard_bank


@pytest.fixture
def bank() -> FakeBank:
    """Serve these tests from a bank with three flashcards among other kinds."""
    return flashcard_bank()


def test_the_flashcards_page_starts_a_flashcards_session(app: Any) -> None:
    client = app.test_client()
    start = client.get("/flashcards").get_data(as_text=True)
    assert re.search(r'name="mode" value="flashcards"', start)
    csrf = client.get_cookie("csrf_token").value
    started = client.post("/study", data={"csrf_token": csrf, "mode": "flashcards",
                                          "lesson": LESSON_ID, "size": "10"})
    assert started.status_code == 303
    page = client.get(started.headers["Location"]).get_data(as_text=True)
    assert 'data-input-type="flashcard"' in page
    assert "第 1 题,共 3 题" in page  # three cards, none of the graded questions
    assert "<title>题 computed-card · 闪卡" in page
