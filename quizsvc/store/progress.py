"""Read what the dashboards show: due cards and their forecast, mastery, accuracy.

The read model of the learner's history: queries only, over the tables the answers
repository writes, each shaped for an index (``review_card (learner_id, due)``,
``attempt (learner_id, question_id)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from quizsvc.store.models import Attempt, Mastery, ReviewCard, table
from quizsvc.store.repository import Repository

CARDS, ATTEMPTS, MASTERY = table(ReviewCard), table(Attempt), table(Mastery)


@dataclass(frozen=True)
class DueCard:
    """One card in the due queue, with the fsrs memory that says how well it is recalled."""

    question_id: str
    lesson: str
    due: datetime
    state: int
    step: int | None = None
    stability: float | None = None
    difficulty: float | None = None
    last_review: datetime | None = None


@dataclass(frozen=True)
class DayCounts:
    """A learner's cards by when they fall due: before the window's first day (overdue), on
    each of its days, after it; and the next due date."""

    overdue: int
    by_day: tuple[int, ...]
    later: int
    next_due: datetime | None

    @property
    def cards(self) -> int:
        """Count every card."""
        return self.overdue + sum(self.by_day) + self.later


def cards_filter(learner_id: int, lesson: str | None) -> list[Any]:
    """Return the WHERE conditions for a learner's cards (of one lesson, or all)."""
    where = [CARDS.c.learner_id == learner_id]
    if lesson is not None:
        where.append(CARDS.c.lesson == lesson)
    return where


class ProgressRepository(Repository):
    """Read what progress reports show: due cards, mastery records, graded answers."""

    def card_dues(self, learner_id: int, lesson: str) -> list[tuple[str, datetime]]:
        """Return (question id, due) of a learner's cards of one lesson, soonest due first."""
        rows = self.connection.execute(select(CARDS.c.question_id, CARDS.c.due)
                          .where(CARDS.c.learner_id == learner_id, CARDS.c.lesson == lesson)
                          .order_by(CARDS.c.due, CARDS.c.id))
        return [(question_id, due) for question_id, due in rows]

    def card_counts(self, learner_id: int, question_ids: Sequence[str], now: datetime
                    ) -> tuple[int, int]:
        """Count a learner's cards among ``question_ids``, and how many of them are due."""
        cards, due_now = self.connection.execute(
            select(func.count(), func.count().filter(CARDS.c.due <= now))
            .where(CARDS.c.learner_id == learner_id, CARDS.c.question_id.in_(question_ids))).one()
        return int(cards), int(due_now)

    def due_queue(self, learner_id: int, now: datetime, limit: int,
                  lesson: str | None = None) -> list[DueCard]:
        """Return the cards due now, most overdue first (served by the (learner_id, due) index)."""
        query = (select(CARDS.c.question_id, CARDS.c.lesson, CARDS.c.due, CARDS.c.state,
                        CARDS.c.step, CARDS.c.stability, CARDS.c.difficulty, CARDS.c.last_review)
                 .where(CARDS.c.learner_id == learner_id, CARDS.c.due <= now)
                 .order_by(CARDS.c.due, CARDS.c.id).limit(limit))
        if lesson is not None:
            query = query.where(CARDS.c.lesson == lesson)
        return [DueCard(*row) for row in self.connection.execute(query)]

    def day_counts(self, learner_id: int, lesson: str | None, day_start: datetime, days: int
                   ) -> DayCounts:
        """Count a learner's cards (of one lesson, or all) by the day they fall due, in one
        query of range counts.

        Every figure is a count over a range of the ``(learner_id, due)`` index, and the
        ranges do not overlap (before ``day_start``, each day of the window, after it), so
        the database walks each index entry once and computes nothing per row. Day ``i`` is
        ``[day_start + i days, day_start + i + 1 days)`` in UTC.
        """
        where = cards_filter(learner_id, lesson)

        def count(*conditions: Any) -> Any:
            return (select(func.count()).select_from(CARDS).where(*where, *conditions)
                    .scalar_subquery())

        bounds = [day_start + timedelta(days=i) for i in range(days + 1)]
        overdue, later, next_due, *by_day = self.connection.execute(select(
            count(CARDS.c.due < day_start), count(CARDS.c.due >= bounds[-1]),
            select(func.min(CARDS.c.due)).where(*where).scalar_subquery(),
            *(count(CARDS.c.due >= bounds[i], CARDS.c.due < bounds[i + 1]) for i in range(days)),
        )).one()
        return DayCounts(int(overdue), tuple(int(n) for n in by_day), int(later), next_due)

    def due_since(self, learner_id: int, lesson: str | None, since: datetime, now: datetime
                  ) -> int:
        """Count a learner's cards that fell due from ``since`` up to ``now`` (a short range)."""
        return self.connection.scalar(
            select(func.count()).select_from(CARDS)
            .where(*cards_filter(learner_id, lesson), CARDS.c.due >= since,
                   CARDS.c.due <= now)) or 0

    def questions_with_cards(self, learner_id: int, question_ids: Sequence[str]) -> set[str]:
        """Return which of ``question_ids`` a learner has a card for."""
        return set(self.connection.scalars(select(CARDS.c.question_id).where(
            CARDS.c.learner_id == learner_id, CARDS.c.question_id.in_(question_ids))))

    def mastery_records(self, learner_id: int, lesson: str | None = None) -> Sequence[Any]:
        """List a learner's mastery records by question (rows of every column)."""
        query = select(MASTERY).where(MASTERY.c.learner_id == learner_id)
        if lesson is not None:
            query = query.where(MASTERY.c.lesson == lesson)
        return self.connection.execute(query.order_by(MASTERY.c.question_id)).all()

    def mastered_count(self, learner_id: int, lesson: str | None = None) -> int:
        """Count a learner's mastered questions."""
        query = select(func.count()).select_from(Mastery).where(
            Mastery.learner_id == learner_id, Mastery.mastered.is_(True))
        if lesson is not None:
            query = query.where(Mastery.lesson == lesson)
        return self.connection.scalar(query) or 0

    def graded_counts(self, learner_id: int, lesson: str | None = None
                      ) -> list[tuple[bool, bool, int]]:
        """Count a learner's graded attempts by (correct, closed_book)."""
        query = (select(ATTEMPTS.c.correct, ATTEMPTS.c.closed_book, func.count())
                 .where(ATTEMPTS.c.learner_id == learner_id, ATTEMPTS.c.graded.is_(True))
                 .group_by(ATTEMPTS.c.correct, ATTEMPTS.c.closed_book))
        if lesson is not None:
            query = query.where(ATTEMPTS.c.lesson == lesson)
        return [(bool(correct), bool(closed), int(n))
                for correct, closed, n in self.connection.execute(query)]

    def graded_answers(self, learner_id: int, question_ids: Sequence[str]
                       ) -> list[tuple[str, bool]]:
        """Return (question id, correct) of a learner's graded attempts on ``question_ids``."""
        rows = self.connection.execute(select(ATTEMPTS.c.question_id, ATTEMPTS.c.correct)
                          .where(ATTEMPTS.c.learner_id == learner_id, ATTEMPTS.c.graded.is_(True),
                                 ATTEMPTS.c.question_id.in_(question_ids))
                          .order_by(ATTEMPTS.c.id))
        return [(question_id, bool(correct)) for question_id, correct in rows]

    def question_counts(self, learner_id: int, lesson: str | None = None
                        ) -> list[tuple[str, bool, int]]:
        """Count a learner's closed-book graded attempts by (question, correct), in one read.

        Imported history no one can vouch for (origin "unverified") counts for nothing here, as
        it counts for nothing in mastery.
        """
        query = (select(ATTEMPTS.c.question_id, ATTEMPTS.c.correct, func.count())
                 .where(ATTEMPTS.c.learner_id == learner_id, ATTEMPTS.c.graded.is_(True),
                        ATTEMPTS.c.closed_book.is_(True), ATTEMPTS.c.origin != "unverified")
                 .group_by(ATTEMPTS.c.question_id, ATTEMPTS.c.correct))
        if lesson is not None:
            query = query.where(ATTEMPTS.c.lesson == lesson)
        return [(question_id, bool(correct), int(n))
                for question_id, correct, n in self.connection.execute(query)]

    def diagnoses_since(self, learner_id: int, since: datetime, lesson: str | None = None
                        ) -> list[tuple[datetime, str, str, str]]:
        """Return (explained_at, lesson, misconception id, diagnosed rule) of a learner's
        diagnosed wrong answers that matched a wrong model, explained since ``since``: the
        diagnoses that can be graded. Unverified imports (no misconception kept) have none."""
        query = (select(ATTEMPTS.c.explained_at, ATTEMPTS.c.lesson,
                        ATTEMPTS.c.misconception_id, ATTEMPTS.c.diagnosed_rule)
                 .where(ATTEMPTS.c.learner_id == learner_id,
                        ATTEMPTS.c.diagnosed_rule.is_not(None),
                        ATTEMPTS.c.misconception_id.is_not(None),
                        ATTEMPTS.c.origin != "unverified",
                        ATTEMPTS.c.explained_at >= since))
        if lesson is not None:
            query = query.where(ATTEMPTS.c.lesson == lesson)
        return [(row.explained_at, row.lesson, row.misconception_id, row.diagnosed_rule)
                for row in self.connection.execute(query)]

    def closed_book_answers_since(self, learner_id: int, since: datetime,
                                  lesson: str | None = None) -> list[tuple[datetime, bool]]:
        """Return (submitted_at, correct) of a learner's closed-book graded answers since
        ``since`` (for the accuracy history; bounded by what one learner answers in a month)."""
        query = (select(ATTEMPTS.c.submitted_at, ATTEMPTS.c.correct)
                 .where(ATTEMPTS.c.learner_id == learner_id, ATTEMPTS.c.graded.is_(True),
                        ATTEMPTS.c.closed_book.is_(True), ATTEMPTS.c.origin != "unverified",
                        ATTEMPTS.c.submitted_at >= since))
        if lesson is not None:
            query = query.where(ATTEMPTS.c.lesson == lesson)
        return [(submitted_at, bool(correct))
                for submitted_at, correct in self.connection.execute(query)]
