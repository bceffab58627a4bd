"""Undo takes back the last rating: the card as it was before, the ratings offered again."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, select

from quizsvc.store.models import ReviewCard, ReviewLog
from tests.support.browsers import ApiBrowser, FormBrowser, Study
from tests.support.fake_bank import LESSON_ID


def cards_and_logs(db: Any) -> tuple[list[tuple[Any, ...]], int]:
    db.expire_all()
    cards = [(c.question_id, c.state, c.stability, c.due) for c in db.scalars(
        select(ReviewCard).order_by(ReviewCard.question_id))]
    return cards, db.scalar(select(func.count()).select_from(ReviewLog))


def first_of_kind(study: Study, kind: str, mode: str) -> dict:
    session = study.start(LESSON_ID, mode=mode, size=4)
    for _ in range(4):
        question = study.next(session["id"])["question"]
        if question["kind"] == kind:
            return question
        study.answer(question["variant_id"], None if question["kind"] == "flashcard"
                     else "text" if question["kind"] == "explain"
                     else study.right_answer(question["variant_id"]))
    raise AssertionError(kind)


def test_undoing_a_cards_first_rating_makes_it_new_again(study: Study, browser: ApiBrowser,
                                                          db: Any) -> None:
    question = first_of_kind(study, "flashcard", "flashcards")
    before = cards_and_logs(db)
    attempt = study.answer(question["variant_id"], None).json
    assert browser.post(f"/api/attempts/{attempt['id']}/rating",
                        json={"rating": "easy"}).status_code == 200
    assert cards_and_logs(db) != before
    undone = browser.delete(f"/api/attempts/{attempt['id']}/rating")
    assert undone.status_code == 200, undone.json
    assert undone.json["rating"] is None
    assert undone.json["rating_choices"] == ["again", "hard", "good", "easy"]
    assert cards_and_logs(db) == before, "no card, no log: the card is new again"
    assert browser.post(f"/api/attempts/{attempt['id']}/rating",
                        json={"rating": "hard"}).json["rating"] == "hard"


def test_undoing_a_right_answers_rating_goes_back_to_good(study: Study, browser: ApiBrowser,
                                                          db: Any) -> None:
    question = first_of_kind(study, "choice", "quiz")
    attempt = study.answer(question["variant_id"], study.right_answer(question["variant_id"])
                           ).json
    graded = cards_and_logs(db)
    browser.post(f"/api/attempts/{attempt['id']}/rating", json={"rating": "easy"})
    assert cards_and_logs(db) != graded
    undone = browser.delete(f"/api/attempts/{attempt['id']}/rating").json
    assert undone["rating"] == "good" and cards_and_logs(db) == graded


def test_there_is_nothing_to_undo_before_a_rating(study: Study, browser: ApiBrowser) -> None:
    question = first_of_kind(study, "choice", "quiz")
    attempt = study.answer(question["variant_id"], study.right_answer(question["variant_id"])
                           ).json
    refused = browser.delete(f"/api/attempts/{attempt['id']}/rating")
    assert refused.status_code == 409 and refused.json["reason"] == "nothing_to_undo"


def test_the_next_page_offers_undo_and_it_reopens_the_ratings(app: Any) -> None:
    learner = FormBrowser(app)
    started = learner.post("/study", lesson=LESSON_ID, mode="flashcards", size="1")
    session_url = started.headers["Location"]
    page = learner.get(session_url).get_data(as_text=True)
    fields = {name: re.search(rf'name="{name}" value="([^"]+)"', page).group(1)
              for name in ("variant_id", "idempotency_key")}
    attempt_url = learner.post(f"{session_url}/answer", **fields).headers["Location"]
    rated = learner.post(f"{attempt_url}/rating", rating="good")
    assert rated.status_code == 303 and "rated=" in rated.headers["Location"]
    done = learner.get(rated.headers["Location"]).get_data(as_text=True)
    assert 'id="undo-rating"' in done
    undone = learner.post(f"{attempt_url}/rating/undo")
    assert undone.status_code == 303 and undone.headers["Location"].endswith(attempt_url)
    again = learner.get(attempt_url).get_data(as_text=True)
    assert again.count('data-rating="') == 4 and 'aria-pressed="true"' not in again
