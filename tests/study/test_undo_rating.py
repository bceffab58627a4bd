"""Undo takes back the last rating: the card as it was before, the ratings offered again.

The use case runs on the fake unit of work; the page that offers it, on both databases."""

from __future__ import annotations

import re
from typing import Any

import pytest

from quizsvc.errors import Conflict
from quizsvc.study import reviews
from quizsvc.study.serving import ServedQuestion
from quizsvc.study.sessions import Mode
from tests.support.browsers import FormBrowser
from tests.support.fake_bank import LESSON_ID
from tests.support.fake_study import FakeStudy


def cards_and_logs(learner: FakeStudy) -> tuple[list[tuple[Any, ...]], int]:
    """Return the learner's cards (question, state, stability, due) and the log's length."""
    cards = sorted((c["question_id"], c["state"], c["stability"], c["due"])
                   for c in learner.rows("review_card"))
    return cards, len(learner.rows("review_log"))


def first_of_kind(learner: FakeStudy, kind: str, mode: Mode) -> ServedQuestion:
    session = learner.start(LESSON_ID, mode=mode, size=4)
    for _ in range(4):
        question = learner.next(session.id).question
        assert question is not None
        if question.kind == kind:
            return question
        learner.answer(question.variant_id, None if question.kind == "flashcard"
                       else "text" if question.kind == "explain"
                       else learner.right_answer(question.variant_id))
    raise AssertionError(kind)


def test_undoing_a_cards_first_rating_makes_it_new_again(learner: FakeStudy) -> None:
    question = first_of_kind(learner, "flashcard", "flashcards")
    before = cards_and_logs(learner)
    attempt = learner.answer(question.variant_id, None)
    assert learner.rate(attempt.id, "easy").rating == "easy"
    assert cards_and_logs(learner) != before
    undone = reviews.undo_rating(learner.ctx, attempt.id)
    assert undone.rating is None
    assert undone.rating_choices == ("again", "hard", "good", "easy")
    assert cards_and_logs(learner) == before, "no card, no log: the card is new again"
    assert learner.rate(attempt.id, "hard").rating == "hard"


def test_undoing_a_right_answers_rating_goes_back_to_good(learner: FakeStudy) -> None:
    question = first_of_kind(learner, "choice", "quiz")
    attempt = learner.answer(question.variant_id, learner.right_answer(question.variant_id))
    graded = cards_and_logs(learner)
    learner.rate(attempt.id, "easy")
    assert cards_and_logs(learner) != graded
    undone = reviews.undo_rating(learner.ctx, attempt.id)
    assert undone.rating == "good" and cards_and_logs(learner) == graded


def test_there_is_nothing_to_undo_before_a_rating(learner: FakeStudy) -> None:
    question = first_of_kind(learner, "choice", "quiz")
    attempt = learner.answer(question.variant_id, learner.right_answer(question.variant_id))
    with pytest.raises(Conflict) as refused:
        reviews.undo_rating(learner.ctx, attempt.id)
    assert refused.value.reason == "nothing_to_undo"


def test_a_rating_the_card_has_moved_past_cannot_be_undone(learner: FakeStudy,
                                                           clock: Any) -> None:
    question = first_of_kind(learner, "flashcard", "flashcards")
    first = learner.answer(question.variant_id, None)
    learner.rate(first.id, "again")
    clock.advance(days=1)
    again = first_of_kind(learner, "flashcard", "flashcards")
    second = learner.answer(again.variant_id, None)
    learner.rate(second.id, "good")
    with pytest.raises(Conflict) as refused:
        reviews.undo_rating(learner.ctx, first.id)
    assert refused.value.reason == "reviewed_since"


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
