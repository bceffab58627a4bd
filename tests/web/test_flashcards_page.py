"""The ``/flashcards`` page starts a flashcards-only session (no graded question between cards)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.fake_bank import LESSON_ID, FakeBank, flashcard_bank


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
    assert "第 1 题，共 3 题" in page  # three cards, none of the graded questions
    assert "<title>题 computed-card · 闪卡" in page


@pytest.mark.parametrize(("path", "due", "new"), [
    ("/flashcards", 0, 3),  # three flashcards, none reviewed yet
    ("/quiz", 1, 1),  # the numeric question answered wrong is due; the choice is new
    ("/review", 1, 5),  # every kind: the reviewed numeric question is due, five are new
])
def test_each_start_page_counts_the_kinds_its_session_serves(
        app: Any, bank: FakeBank, clock: Any, path: str, due: int, new: int) -> None:
    client = app.test_client()
    client.get("/api/me")
    csrf = client.get_cookie("csrf_token").value
    headers = {"X-CSRF-Token": csrf}
    session = client.post("/api/sessions", json={"lesson": LESSON_ID, "mode": "quiz",
                                                  "size": 1}, headers=headers).json
    question = client.get(f"/api/sessions/{session['id']}/next").json["question"]
    assert question["question_id"] == "budget-split"
    wrong = [x + 1 for x in bank.variant("budget-split", 0).answer]  # never a parse error
    answered = client.post("/api/attempts", json={"variant_id": question["variant_id"],
                                                  "answer": wrong},
                           headers={**headers, "Idempotency-Key": "k1"})
    assert answered.status_code == 201 and answered.json["correct"] is False
    clock.advance(days=1)  # the Again review is due by now
    page = client.get(path).get_data(as_text=True)
    assert f"到期 {due} 题，新题 {new} 题" in page
