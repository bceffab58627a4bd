"""The rating buttons say when each rating would bring the question back; what they say is
what rating does."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from quizsvc.http.language import interval_text
from quizsvc.store.models import ReviewCard
from quizsvc.study import reviews
from tests.support.browsers import ApiBrowser, Study
from tests.support.context import context_of
from tests.support.fake_bank import LESSON_ID


def answered(study: Study, kind: str, right: bool) -> int:
    """Serve review questions until one of ``kind`` comes up and answer it; return the id."""
    session = study.start(LESSON_ID, mode="review", size=4)
    for _ in range(4):
        question = study.next(session["id"])["question"]
        vid = question["variant_id"]
        if question["kind"] == kind:
            if kind == "flashcard":
                return int(study.answer(vid, None).json["id"])
            answer = study.right_answer(vid) if right else study.wrong_answer(vid)
            return int(study.answer(vid, answer).json["id"])
        study.answer(vid, None if question["kind"] == "flashcard" else
                     "text" if question["kind"] == "explain" else study.right_answer(vid))
    raise AssertionError(f"no {kind} question")


@pytest.mark.parametrize(("kind", "right", "rating"), [
    ("flashcard", None, "easy"), ("flashcard", None, "again"),
    ("choice", True, "hard"), ("choice", True, "easy"),
])
def test_the_interval_shown_is_the_interval_rating_schedules(
        study: Study, browser: ApiBrowser, db: Any, clock: Any,
        kind: str, right: bool, rating: str) -> None:
    attempt_id = answered(study, kind, bool(right))
    ctx = context_of(browser, db, study.bank, clock)
    db.commit()  # the use case begins its own read
    shown = reviews.rating_intervals(ctx, attempt_id)
    assert list(shown) == (["again", "hard", "good", "easy"] if kind == "flashcard"
                           else ["hard", "good", "easy"])
    assert list(shown.values()) == sorted(shown.values()), "a better rating waits longer"
    assert browser.post(f"/api/attempts/{attempt_id}/rating",
                        json={"rating": rating}).status_code == 200
    db.expire_all()
    card = db.scalars(select(ReviewCard)).all()
    question = "computed-card" if kind == "flashcard" else "running-first"
    due = next(c.due for c in card if c.question_id == question)
    assert due - clock() == shown[rating]


def test_a_wrong_answer_shows_no_intervals(study: Study, browser: ApiBrowser, db: Any,
                                           clock: Any) -> None:
    attempt_id = answered(study, "choice", right=False)
    ctx = context_of(browser, db, study.bank, clock)
    db.commit()  # the use case begins its own read
    assert reviews.rating_intervals(ctx, attempt_id) == {}


@pytest.mark.parametrize(("delta", "zh", "en"), [
    (timedelta(seconds=20), "<1 分钟", "<1 min"),
    (timedelta(minutes=10), "10分钟", "10 min"),
    (timedelta(hours=5, minutes=40), "6小时", "6 hr"),
    (timedelta(days=3, hours=2), "3天", "3 days"),
    (timedelta(days=45), "2个月", "2 mths"),
    (timedelta(days=730), "2年", "2 yrs"),
])
def test_intervals_are_said_short_in_the_page_language(app: Any, delta: timedelta, zh: str,
                                                       en: str) -> None:
    said = []
    for lang in ("zh", "en"):
        with app.test_request_context(f"/?lang={lang}"):
            said.append(interval_text(delta))
    assert said == [zh, en]
