"""The rating buttons say when each rating would bring the question back; what they say is
what rating does."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from quizsvc import create_app
from quizsvc.http.language import interval_text
from quizsvc.study import reviews
from tests.support.fake_bank import LESSON_ID
from tests.support.fake_study import FakeStudy


def answered(learner: FakeStudy, kind: str, right: bool) -> int:
    """Serve review questions until one of ``kind`` comes up and answer it; return the id."""
    session = learner.start(LESSON_ID, mode="review", size=4)
    for _ in range(4):
        question = learner.next(session.id).question
        assert question is not None
        vid = question.variant_id
        if question.kind == kind:
            if kind == "flashcard":
                return learner.answer(vid, None).id
            answer = learner.right_answer(vid) if right else learner.wrong_answer(vid)
            return learner.answer(vid, answer).id
        learner.answer(vid, None if question.kind == "flashcard" else
                       "text" if question.kind == "explain" else learner.right_answer(vid))
    raise AssertionError(f"no {kind} question")


@pytest.mark.parametrize(("kind", "right", "rating"), [
    ("flashcard", None, "easy"), ("flashcard", None, "again"),
    ("choice", True, "hard"), ("choice", True, "easy"),
])
def test_the_interval_shown_is_the_interval_rating_schedules(
        learner: FakeStudy, clock: Any, kind: str, right: bool, rating: str) -> None:
    attempt_id = answered(learner, kind, bool(right))
    shown = reviews.rating_intervals(learner.ctx, attempt_id)
    assert list(shown) == (["again", "hard", "good", "easy"] if kind == "flashcard"
                           else ["hard", "good", "easy"])
    assert list(shown.values()) == sorted(shown.values()), "a better rating waits longer"
    learner.rate(attempt_id, rating)
    question = "computed-card" if kind == "flashcard" else "running-first"
    [card] = learner.rows("review_card", learner_id=learner.learner_id, question_id=question)
    assert card["due"] - clock() == shown[rating]


def test_a_wrong_answer_shows_no_intervals(learner: FakeStudy) -> None:
    attempt_id = answered(learner, "choice", right=False)
    assert reviews.rating_intervals(learner.ctx, attempt_id) == {}


@pytest.fixture(scope="module")
def bare_app(bank: Any) -> Any:
    """Return an app that never opens its database: the words are the request language's."""
    return create_app({"TESTING": True, "DATABASE_URL": "sqlite://", "SECRET_KEY": "test",
                       "BANK": bank})


@pytest.mark.parametrize(("delta", "zh", "en"), [
    (timedelta(seconds=20), "<1 分钟", "<1 min"),
    (timedelta(minutes=10), "10分钟", "10 min"),
    (timedelta(hours=5, minutes=40), "6小时", "6 hr"),
    (timedelta(days=3, hours=2), "3天", "3 days"),
    (timedelta(days=45), "2个月", "2 mths"),
    (timedelta(days=730), "2年", "2 yrs"),
])
def test_intervals_are_said_short_in_the_page_language(bare_app: Any, delta: timedelta,
                                                       zh: str, en: str) -> None:
    said = []
    for lang in ("zh", "en"):
        with bare_app.test_request_context(f"/?lang={lang}"):
            said.append(interval_text(delta))
    assert said == [zh, en]
