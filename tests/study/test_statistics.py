"""The progress page's statistics from known reviews and a fake clock: reviews per UTC day,
retention per week over reviews of learned cards, and the learner's desired retention."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, insert

from quizsvc.store.models import Learner, LearnerSetting, ReviewCard, ReviewLog
from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study import statistics
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context, Identity
from quizsvc.study.limits import Limits

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)  # a Tuesday; the windows end today
LEARNING, REVIEW = 1, 2
AGAIN, GOOD = 1, 3


def learner_with(connection: Connection, reviews: list[tuple[datetime, int, int]]) -> int:
    """Insert a learner with one card and the given (reviewed_at, state_before, rating)."""
    learner_id = connection.execute(insert(Learner).values(created_at=NOW - timedelta(days=90))
                                    ).inserted_primary_key[0]
    card_id = connection.execute(insert(ReviewCard).values(
        learner_id=learner_id, question_id="q", lesson="l", state=REVIEW, step=None,
        stability=10.0, difficulty=5.0, due=NOW + timedelta(days=3), last_review=NOW,
        created_at=NOW - timedelta(days=90))).inserted_primary_key[0]
    if reviews:
        connection.execute(insert(ReviewLog), [
            {"card_id": card_id, "learner_id": learner_id, "rating": rating,
             "reviewed_at": at, "duration_ms": 1000, "rated_by_learner": False,
             "state_before": state, "step_before": None, "stability_before": 5.0,
             "difficulty_before": 5.0, "due_before": at, "last_review_before": None}
            for at, state, rating in reviews])
    return int(learner_id)


def context(connection: Connection, bank: Any, learner_id: int | None) -> Context:
    """Return a use case's context for a learner (None: a browser that stored nothing)."""
    return Context(uow=UnitOfWork(bound=connection), bank=bank, index=BankIndex.of(bank),
                   identity=None if learner_id is None else Identity(learner_id, 0),
                   now=NOW, rng=random.Random(1), limits=Limits())


def at(days_ago: int, hour: int = 12) -> datetime:
    """Return a moment ``days_ago`` UTC days before today, at ``hour``."""
    return datetime.combine(NOW.date() - timedelta(days=days_ago),
                            datetime.min.time(), UTC) + timedelta(hours=hour)


def test_reviews_are_counted_by_utc_day_over_the_last_30_days(connection: Connection,
                                                            bank: Any) -> None:
    learner = learner_with(connection, [
        (at(0, 0), LEARNING, GOOD), (at(0, 9), REVIEW, AGAIN),      # today, 2
        (at(1, 23) + timedelta(minutes=59), REVIEW, GOOD),          # yesterday, last minute
        (at(29, 0), LEARNING, GOOD),                                # the window's first day
        (at(30, 23), REVIEW, GOOD),                                 # before it: not counted
        (NOW + timedelta(hours=1), REVIEW, GOOD)])                  # later today (clock skew)
    other = learner_with(connection, [(at(0), REVIEW, GOOD)])      # another learner's review
    stats = statistics.review_statistics(context(connection, bank, learner))
    days = stats.reviews_per_day
    assert len(days) == statistics.REVIEW_DAYS
    assert (days[0].day, days[-1].day) == (date(2026, 11, 2), date(2026, 12, 1))
    counts = {d.day: d.reviews for d in days if d.reviews}
    assert counts == {date(2026, 12, 1): 3, date(2026, 11, 30): 1, date(2026, 11, 2): 1}
    assert other != learner


def test_retention_per_week_counts_reviews_of_learned_cards_against_the_desired(
        connection: Connection, bank: Any) -> None:
    learner = learner_with(connection, [
        # this week (2026-11-25 to 2026-12-01): 3 of 4 learned reviews recalled
        (at(0), REVIEW, GOOD), (at(1), REVIEW, GOOD), (at(6), REVIEW, AGAIN),
        (at(6), REVIEW, 4), (at(2), LEARNING, AGAIN),  # a learning step: not counted
        # the week before: 1 of 2
        (at(7), REVIEW, AGAIN), (at(13), REVIEW, 2),
        # seven weeks ago, the window's first week: 1 of 1
        (at(55), REVIEW, GOOD),
        (at(56), REVIEW, GOOD)])  # before the window
    connection.execute(insert(LearnerSetting).values(learner_id=learner,
                                                      desired_retention=0.85, updated_at=NOW))
    stats = statistics.review_statistics(context(connection, bank, learner))
    weeks = stats.retention
    assert len(weeks) == statistics.RETENTION_WEEKS
    assert (weeks[-1].first_day, weeks[-1].last_day) == (date(2026, 11, 25), date(2026, 12, 1))
    assert (weeks[0].first_day, weeks[0].last_day) == (date(2026, 10, 7), date(2026, 10, 13))
    assert [(w.reviews, w.recalled) for w in weeks] == [(1, 1)] + [(0, 0)] * 5 + [(2, 1), (4, 3)]
    assert [w.retention for w in weeks[-2:]] == [0.5, 0.75]
    assert weeks[1].retention is None
    assert stats.desired_retention == 0.85


def test_a_browser_that_stored_nothing_has_empty_statistics(connection: Connection,
                                                          bank: Any) -> None:
    stats = statistics.review_statistics(context(connection, bank, None))
    assert all(d.reviews == 0 for d in stats.reviews_per_day)
    assert all(w.retention is None for w in stats.retention)
    assert stats.desired_retention == 0.9
