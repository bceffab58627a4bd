"""Read what the dashboards show: due cards and their forecast, mastery, accuracy.

The read model of the learner's history: queries only, over the tables the answers
repository writes, each shaped for an index (``review_card (learner_id, due)``,
``attempt (learner_id, question_id)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from quizsvc.store.database import dialect_of
from quizsvc.store.models import Attempt, Mastery, ReviewCard, table

CARDS, ATTEMPTS = table(ReviewCard), table(Attempt)


@dataclass(frozen=True)
class DueCard:
    """One card in the due queue."""

    question_id: str
    lesson: str
    due: datetime
    state: int


def card_dues(db: Session, learner_id: int, lesson: str) -> list[tuple[str, datetime]]:
    """Return (question id, due) of a learner's cards of one lesson, soonest due first."""
    rows = db.execute(select(CARDS.c.question_id, CARDS.c.due)
                      .where(CARDS.c.learner_id == learner_id, CARDS.c.lesson == lesson)
                      .order_by(CARDS.c.due, CARDS.c.id))
    return [(question_id, due) for question_id, due in rows]


def card_counts(db: Session, learner_id: int, question_ids: Sequence[str], now: datetime
                ) -> tuple[int, int]:
    """Count a learner's cards among ``question_ids``, and how many of them are due."""
    cards, due_now = db.execute(
        select(func.count(), func.count().filter(CARDS.c.due <= now))
        .where(CARDS.c.learner_id == learner_id, CARDS.c.question_id.in_(question_ids))).one()
    return int(cards), int(due_now)


def due_queue(db: Session, learner_id: int, now: datetime, limit: int,
              lesson: str | None = None) -> list[DueCard]:
    """Return the cards due now, most overdue first (served by the (learner_id, due) index)."""
    query = (select(CARDS.c.question_id, CARDS.c.lesson, CARDS.c.due, CARDS.c.state)
             .where(CARDS.c.learner_id == learner_id, CARDS.c.due <= now)
             .order_by(CARDS.c.due, CARDS.c.id).limit(limit))
    if lesson is not None:
        query = query.where(CARDS.c.lesson == lesson)
    return [DueCard(*row) for row in db.execute(query)]


@dataclass(frozen=True)
class DueCounts:
    """How many cards a learner has, how many are due now or were due before today."""

    cards: int
    due_now: int
    overdue: int
    next_due: datetime | None


def cards_filter(learner_id: int, lesson: str | None) -> list[Any]:
    """Return the WHERE conditions for a learner's cards (of one lesson, or all)."""
    where = [CARDS.c.learner_id == learner_id]
    if lesson is not None:
        where.append(CARDS.c.lesson == lesson)
    return where


def due_counts(db: Session, learner_id: int, lesson: str | None, now: datetime,
               day_start: datetime) -> DueCounts:
    """Count a learner's cards, those due at ``now`` and those due before ``day_start``."""
    cards, due_now, overdue, next_due = db.execute(
        select(func.count(),
               func.coalesce(func.sum(case((CARDS.c.due <= now, 1), else_=0)), 0),
               func.coalesce(func.sum(case((CARDS.c.due < day_start, 1), else_=0)), 0),
               func.min(CARDS.c.due))
        .where(*cards_filter(learner_id, lesson))).one()
    return DueCounts(int(cards), int(due_now), int(overdue), next_due)


def utc_day(column: Any, dialect: str) -> Any:
    """Return a SQL expression for the UTC calendar day of a stored datetime."""
    if dialect == "postgresql":
        return func.date(func.timezone("UTC", column))
    return func.date(column)  # SQLite stores the UTC time as ISO text


def due_by_day(db: Session, learner_id: int, lesson: str | None, start: datetime,
               horizon: datetime) -> list[tuple[date, int]]:
    """Count a learner's cards falling due on each UTC day in [start, horizon)."""
    day = utc_day(CARDS.c.due, dialect_of(db))
    rows = db.execute(select(day, func.count())
                      .where(*cards_filter(learner_id, lesson), CARDS.c.due >= start,
                             CARDS.c.due < horizon).group_by(day))
    return [(date.fromisoformat(str(when)), int(n)) for when, n in rows]


def questions_with_cards(db: Session, learner_id: int, question_ids: Sequence[str]) -> set[str]:
    """Return which of ``question_ids`` a learner has a card for."""
    return set(db.scalars(select(CARDS.c.question_id).where(
        CARDS.c.learner_id == learner_id, CARDS.c.question_id.in_(question_ids))))


def mastery_records(db: Session, learner_id: int, lesson: str | None = None
                    ) -> Sequence[Mastery]:
    """List a learner's mastery records by question."""
    query = select(Mastery).where(Mastery.learner_id == learner_id)
    if lesson is not None:
        query = query.where(Mastery.lesson == lesson)
    return db.scalars(query.order_by(Mastery.question_id)).all()


def mastered_count(db: Session, learner_id: int, lesson: str | None = None) -> int:
    """Count a learner's mastered questions."""
    query = select(func.count()).select_from(Mastery).where(
        Mastery.learner_id == learner_id, Mastery.mastered.is_(True))
    if lesson is not None:
        query = query.where(Mastery.lesson == lesson)
    return db.scalar(query) or 0


def graded_counts(db: Session, learner_id: int, lesson: str | None = None
                  ) -> list[tuple[bool, bool, int]]:
    """Count a learner's graded attempts by (correct, closed_book)."""
    query = (select(ATTEMPTS.c.correct, ATTEMPTS.c.closed_book, func.count())
             .where(ATTEMPTS.c.learner_id == learner_id, ATTEMPTS.c.graded.is_(True))
             .group_by(ATTEMPTS.c.correct, ATTEMPTS.c.closed_book))
    if lesson is not None:
        query = query.where(ATTEMPTS.c.lesson == lesson)
    return [(bool(correct), bool(closed), int(n)) for correct, closed, n in db.execute(query)]


def graded_answers(db: Session, learner_id: int, question_ids: Sequence[str]
                   ) -> list[tuple[str, bool]]:
    """Return (question id, correct) of a learner's graded attempts on ``question_ids``."""
    rows = db.execute(select(ATTEMPTS.c.question_id, ATTEMPTS.c.correct)
                      .where(ATTEMPTS.c.learner_id == learner_id, ATTEMPTS.c.graded.is_(True),
                             ATTEMPTS.c.question_id.in_(question_ids))
                      .order_by(ATTEMPTS.c.id))
    return [(question_id, bool(correct)) for question_id, correct in rows]
