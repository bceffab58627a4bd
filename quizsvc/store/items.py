"""Read what the card browser shows of a learner's items: cards, mastery, latest answers, and
one item's whole history.

Queries only, each bounded: the lesson's cards and mastery records (one row per question), the
latest ``LAST_ANSWERS`` answers per question (a window over ``attempt (learner_id,
question_id)``), and one question's attempts, newest first, up to ``HISTORY_LIMIT``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from quizsvc.store.models import Attempt, Mastery, ReviewCard, ReviewLog, SessionItem, table
from quizsvc.store.repository import Repository

CARDS, MASTERY, ATTEMPTS = table(ReviewCard), table(Mastery), table(Attempt)
LOGS, ITEMS = table(ReviewLog), table(SessionItem)

LAST_ANSWERS = 3  # latest answers the browser lists per item
HISTORY_LIMIT = 200  # attempts one item's history lists, newest first


@dataclass(frozen=True)
class CardRow:
    """A learner's card of one question as the browser shows it."""

    question_id: str
    state: int
    due: datetime
    last_review: datetime | None


@dataclass(frozen=True)
class AnswerRow:
    """One attempt as the browser and the history show it: no answer, nothing unrevealed
    beyond what its attempt page shows at once (right or wrong, the score, the rating)."""

    attempt_id: int
    question_id: str
    session_id: str | None
    submitted_at: datetime
    graded: bool
    correct: bool | None
    score: float | None
    closed_book: bool
    practice: bool
    origin: str
    revealed: bool
    rating: int | None


def answer_columns() -> tuple[Any, ...]:
    """Return the columns an ``AnswerRow`` is read from (attempts joined to their review
    and their session item)."""
    return (ATTEMPTS.c.id, ATTEMPTS.c.question_id, ITEMS.c.session_id, ATTEMPTS.c.submitted_at,
            ATTEMPTS.c.graded, ATTEMPTS.c.correct, ATTEMPTS.c.score, ATTEMPTS.c.closed_book,
            ATTEMPTS.c.practice, ATTEMPTS.c.origin,
            ATTEMPTS.c.revealed_at.is_not(None).label("revealed"), LOGS.c.rating)


ANSWERS_JOINED = (ATTEMPTS.outerjoin(LOGS, LOGS.c.attempt_id == ATTEMPTS.c.id)
                  .outerjoin(ITEMS, ITEMS.c.variant_id == ATTEMPTS.c.variant_id))


def answer_row(row: Any) -> AnswerRow:
    """Build an ``AnswerRow`` from a row of ``answer_columns``."""
    values = tuple(row)
    (attempt_id, question_id, session_id, submitted_at, graded, correct, score, closed_book,
     practice, origin, revealed, rating) = values[:12]
    return AnswerRow(attempt_id, question_id, session_id, submitted_at, bool(graded), correct,
                     score, bool(closed_book), bool(practice), origin, bool(revealed), rating)


class ItemRepository(Repository):
    """Read a learner's items for the card browser."""

    def cards_in(self, learner_id: int, lesson: str) -> dict[str, CardRow]:
        """Return a learner's cards of one lesson, by question."""
        rows = self.connection.execute(
            select(CARDS.c.question_id, CARDS.c.state, CARDS.c.due, CARDS.c.last_review)
            .where(CARDS.c.learner_id == learner_id, CARDS.c.lesson == lesson))
        return {row.question_id: CardRow(*row) for row in rows}

    def card_of(self, learner_id: int, question_id: str) -> CardRow | None:
        """Return a learner's card of one question (None: never reviewed)."""
        row = self.connection.execute(
            select(CARDS.c.question_id, CARDS.c.state, CARDS.c.due, CARDS.c.last_review)
            .where(CARDS.c.learner_id == learner_id,
                   CARDS.c.question_id == question_id)).first()
        return None if row is None else CardRow(*row)

    def mastered_in(self, learner_id: int, lesson: str) -> dict[str, bool]:
        """Return a learner's mastery verdicts of one lesson, by question."""
        rows = self.connection.execute(
            select(MASTERY.c.question_id, MASTERY.c.mastered)
            .where(MASTERY.c.learner_id == learner_id, MASTERY.c.lesson == lesson))
        return {question_id: bool(mastered) for question_id, mastered in rows}

    def mastered_of(self, learner_id: int, question_id: str) -> bool:
        """Tell whether a learner's mastery record of one question says mastered."""
        return bool(self.connection.scalar(
            select(MASTERY.c.mastered).where(MASTERY.c.learner_id == learner_id,
                                             MASTERY.c.question_id == question_id)))

    def last_answers_in(self, learner_id: int, lesson: str) -> dict[str, list[AnswerRow]]:
        """Return each question's latest ``LAST_ANSWERS`` attempts (newest first), by question."""
        ranked = (select(*answer_columns(),
                         func.row_number().over(
                             partition_by=ATTEMPTS.c.question_id,
                             order_by=(ATTEMPTS.c.submitted_at.desc(), ATTEMPTS.c.id.desc()))
                         .label("recency"))
                  .select_from(ANSWERS_JOINED)
                  .where(ATTEMPTS.c.learner_id == learner_id, ATTEMPTS.c.lesson == lesson)
                  .subquery())
        rows = self.connection.execute(
            select(ranked).where(ranked.c.recency <= LAST_ANSWERS)
            .order_by(ranked.c.question_id, ranked.c.recency))
        found: dict[str, list[AnswerRow]] = {}
        for row in rows:
            entry = answer_row(row)
            found.setdefault(entry.question_id, []).append(entry)
        return found

    def history_of(self, learner_id: int, question_id: str) -> list[AnswerRow]:
        """Return a learner's attempts at one question, newest first (``HISTORY_LIMIT``)."""
        rows = self.connection.execute(
            select(*answer_columns())
            .select_from(ANSWERS_JOINED)
            .where(ATTEMPTS.c.learner_id == learner_id, ATTEMPTS.c.question_id == question_id)
            .order_by(ATTEMPTS.c.submitted_at.desc(), ATTEMPTS.c.id.desc())
            .limit(HISTORY_LIMIT))
        return [answer_row(row) for row in rows]
