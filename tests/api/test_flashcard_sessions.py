"""Flashcards-only sessions: ``mode: flashcards`` serves the lesson's flashcards, due first,
then new, with nothing graded in between."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.fake_bank import LESSON_ID, FakeBank, flashcard_bank

CARDS = ("computed-card", "draft-card", "budget-card")


@pytest.fixture
def bank() -> FakeBank:
    """Serve these tests from the three-card bank."""
    return flashcard_bank()


def take_all(study: Any, session_id: str, rating: str = "good") -> list[dict]:
    """Reveal and rate every card of a session; return the served questions in order."""
    served = []
    while not (item := study.next(session_id))["done"]:
        card = item["question"]
        served.append(card)
        revealed = study.answer(card["variant_id"], None)
        assert revealed.status_code == 201, revealed.json
        rated = study.browser.post(f"/api/attempts/{revealed.json['id']}/rating",
                                   json={"rating": rating})
        assert rated.status_code == 200, rated.json
    return served


def test_a_flashcards_session_serves_only_flashcards_in_bank_order(study: Any) -> None:
    session = study.start(LESSON_ID, mode="flashcards", size=10)
    assert (session["mode"], session["total"], session["new"], session["due"]) == (
        "flashcards", 3, 3, 0)
    served = take_all(study, session["id"])
    assert [card["question_id"] for card in served] == list(CARDS)
    assert {card["kind"] for card in served} == {"flashcard"}
    assert study.browser.get(f"/api/sessions/{session['id']}").json["answered"] == 3


def test_due_flashcards_come_before_new_ones(study: Any, clock: Any) -> None:
    first = study.start(LESSON_ID, mode="flashcards", size=1)
    assert [c["question_id"] for c in take_all(study, first["id"], "again")] == [CARDS[0]]
    clock.advance(minutes=2)  # Again: due after the first learning step (1 minute)
    later = study.start(LESSON_ID, mode="flashcards", size=2)
    assert (later["due"], later["new"]) == (1, 1)
    assert [c["question_id"] for c in take_all(study, later["id"])] == [CARDS[0], CARDS[1]]


def test_a_flashcard_not_yet_due_is_left_out(study: Any) -> None:
    take_all(study, study.start(LESSON_ID, mode="flashcards", size=1)["id"], "easy")
    again = study.start(LESSON_ID, mode="flashcards", size=10)
    assert (again["due"], again["new"], again["practice"]) == (0, 2, 0)


def test_an_unknown_mode_names_the_modes_including_flashcards(study: Any) -> None:
    response = study.browser.post("/api/sessions", json={"lesson": LESSON_ID, "mode": "cards",
                                                         "size": 3})
    assert response.status_code == 422
    assert "flashcards" in " ".join(response.json["errors"]["json"]["mode"])


def test_the_openapi_document_lists_the_flashcards_mode(browser: Any) -> None:
    spec = browser.get("/api/openapi.json").json
    schema = spec["components"]["schemas"]["SessionCreate"]["properties"]["mode"]
    assert schema["enum"] == ["review", "quiz", "flashcards"]
