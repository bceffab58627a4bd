"""One learner cannot pile up rows: caps on sessions and link codes, empty learners pruned.

The session cap is the sessions use case's: it runs on the fake unit of work, with one
end-to-end test on both databases."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc.errors import NotFound
from quizsvc.store.models import Browser, Learner, LinkCode
from quizsvc.study import answering, sessions
from quizsvc.study.limits import MAX_OPEN_LINK_CODES, MAX_OPEN_SESSIONS
from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID
from tests.support.fake_study import FakeStudy
from tests.support.repos import repos


def count(db: Any, model: Any, *where: Any) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(model).where(*where))


def test_a_learner_keeps_at_most_so_many_unfinished_sessions(learner: FakeStudy,
                                                              clock: Any) -> None:
    """The oldest go first: each session starts a second after the one before (started at
    one instant, the order among them would be their random ids')."""
    first = learner.start(LESSON_ID, mode="quiz", size=2)
    learner.next(first.id)  # serves a variant that is never answered
    for _ in range(MAX_OPEN_SESSIONS + 5):
        clock.advance(seconds=1)
        learner.start(LESSON_ID, mode="quiz", size=2)
    ids = [row["id"] for row in learner.rows("study_session")]
    assert len(ids) == MAX_OPEN_SESSIONS and first.id not in ids  # the oldest went
    assert learner.rows("served_variant") == []  # with the variant served, never answered
    with pytest.raises(NotFound):
        sessions.get_session(learner.ctx, first.id)


def test_finished_sessions_and_answers_are_never_dropped(learner: FakeStudy) -> None:
    done = learner.start(LESSON_ID, mode="quiz", size=1)
    vid = learner.next(done.id).question.variant_id
    attempt = learner.answer(vid, learner.right_answer(vid))
    for _ in range(MAX_OPEN_SESSIONS + 2):
        learner.start(LESSON_ID, mode="quiz", size=2)
    assert sessions.get_session(learner.ctx, done.id).done is True
    assert answering.get_attempt(learner.ctx, attempt.id).id == attempt.id


def test_the_api_drops_the_oldest_unfinished_session(study: Study, clock: Any) -> None:
    """End to end on both databases: the session dropped for a new one is gone (404)."""
    first = study.start(LESSON_ID, mode="quiz", size=2)
    for _ in range(MAX_OPEN_SESSIONS):
        clock.advance(seconds=1)
        study.start(LESSON_ID, mode="quiz", size=2)
    assert study.browser.get(f"/api/sessions/{first['id']}").status_code == 404


def test_a_learner_holds_at_most_so_many_open_link_codes(browser: ApiBrowser, db: Any) -> None:
    for _ in range(MAX_OPEN_LINK_CODES):
        assert browser.post("/api/link-codes").status_code == 201
    refused = browser.post("/api/link-codes")
    assert refused.status_code == 429 and refused.json["reason"] == "too_many_link_codes"
    assert count(db, LinkCode) == MAX_OPEN_LINK_CODES


def test_link_codes_free_up_when_they_expire(browser: ApiBrowser, clock: Any) -> None:
    for _ in range(MAX_OPEN_LINK_CODES):
        browser.post("/api/link-codes")
    clock.advance(hours=1)
    assert browser.post("/api/link-codes").status_code == 201


def test_empty_learners_are_pruned_and_learners_with_history_are_kept(
        new_browser: Any, study: Study, db: Any, clock: Any) -> None:
    idle = new_browser()
    idle.post("/api/link-codes")  # stored, but holds nothing a learner would miss
    rated = new_browser()
    assert rated.put("/api/self-assessments/budget", json={"rating": 2}).status_code in (200,
                                                                                       201)
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.right_answer(vid))
    assert count(db, Learner) == 3
    assert repos(db).learners.delete_empty_learners(clock.now - timedelta(days=1)) == 0  # too young
    deleted = repos(db).learners.delete_empty_learners(clock.now + timedelta(days=1))
    db.commit()
    assert deleted == 1 and count(db, Learner) == 2 and count(db, Browser) == 2
    assert count(db, LinkCode) == 0
