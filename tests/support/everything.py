"""A learner who has left a row in every table a learner can fill (erasure, migrations)."""

from __future__ import annotations

from typing import Any

from tests.support.cohorts import answer_quiz
from tests.support.fake_bank import LESSON_ID


def study_everything(browser: Any, study: Any, clock: Any) -> None:
    """Leave a row in every table a learner can fill: sessions, variants, attempts (one
    explained), cards, reviews, mastery, a self-assessment, a retention, a link code, a hold
    on an item and a report of a problem."""
    answer_quiz(study, right=False, explanation="I split the budget evenly.")
    clock.advance(days=3)
    answer_quiz(study, right=True)
    answer_quiz(study, right=True)
    assert browser.put("/api/self-assessments/budget", json={"rating": 3, "note": "mine"}
                       ).status_code == 201
    assert browser.put("/api/scheduling", json={"desired_retention": 0.85}).status_code == 200
    assert browser.post("/api/link-codes").status_code == 201
    served = study.next(study.start(LESSON_ID, mode="flashcards", size=1)["id"])["question"]
    assert browser.post("/api/reports", json={
        "variant_id": served["variant_id"], "reason": "wrong_answer",
        "text": "the budget looks off"}).status_code == 201
    assert browser.put(f"/api/items/{served['question_id']}/suspension",
                       json={"suspended": True}).status_code == 200
