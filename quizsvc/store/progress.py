"""Read what the dashboards show: due cards and their forecast, mastery, accuracy.

The read model of the learner's history: queries only, over the tables the answers
repository writes, each shaped for an index (``review_card (learner_id, due)``,
``attempt (learner_id, question_id)``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Integer,
    Select,
    bindparam,
    exists,
    func,
    literal,
    null,
    or_,
    select,
    union_all,
)

from quizsvc.store.holds import HOLDS, held
from quizsvc.store.models import Attempt, Mastery, ReviewCard, ReviewLog, table
from quizsvc.store.repository import Repository

CARDS, ATTEMPTS, MASTERY = table(ReviewCard), table(Attempt), table(Mastery)
LOGS = table(ReviewLog)
REVIEW_STATE = 2  # fsrs's State.Review: a card already learned (1 Learning, 3 Relearning)
AGAIN = 1  # the rating of a review the learner did not recall
# Closed-book evidence: graded, closed-book, and not imported history no one can vouch for
# (origin "unverified" counts for nothing here, as it counts for nothing in mastery).
CLOSED_BOOK_EVIDENCE = (ATTEMPTS.c.graded.is_(True), ATTEMPTS.c.closed_book.is_(True),
                        ATTEMPTS.c.origin != "unverified")


def unheld(moment: Any) -> Any:
    """Return the condition "no hold keeps this card out at ``moment``" (the cards' rows)."""
    return ~held(CARDS.c.learner_id, CARDS.c.question_id, moment)


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


def built_per_lesson(build: Callable[[list[Any]], Select[Any]]) -> dict[bool, Select[Any]]:
    """Build a statement over a learner's cards once for all lessons and once for one
    (``learner_id`` and ``lesson`` bound when it runs): the due queue's statements run on
    every dashboard and quiz start, and building them anew each time cost more CPU than
    running them."""
    learner = CARDS.c.learner_id == bindparam("learner_id")
    return {False: build([learner]), True: build([learner, CARDS.c.lesson == bindparam("lesson")])}


def lesson_params(learner_id: int, lesson: str | None, **params: Any) -> dict[str, Any]:
    """Return the parameters of a ``built_per_lesson`` statement."""
    return {"learner_id": learner_id, **({} if lesson is None else {"lesson": lesson}), **params}


DUE_QUEUE = built_per_lesson(lambda where: (
    select(CARDS.c.question_id, CARDS.c.lesson, CARDS.c.due, CARDS.c.state, CARDS.c.step,
           CARDS.c.stability, CARDS.c.difficulty, CARDS.c.last_review)
    .where(*where, CARDS.c.due <= bindparam("now"), unheld(bindparam("now")))
    .order_by(CARDS.c.due, CARDS.c.id).limit(bindparam("limit"))))
DUE_SINCE = built_per_lesson(lambda where: (
    select(func.count()).select_from(CARDS)
    .where(*where, CARDS.c.due >= bindparam("since"), CARDS.c.due <= bindparam("now"),
           unheld(bindparam("now")))))


def cards_filter(learner_id: int, lesson: str | None) -> list[Any]:
    """Return the WHERE conditions for a learner's cards (of one lesson, or all)."""
    where = [CARDS.c.learner_id == learner_id]
    if lesson is not None:
        where.append(CARDS.c.lesson == lesson)
    return where


class ProgressRepository(Repository):
    """Read what progress reports show: due cards, mastery records, graded answers."""

    def card_dues(self, learner_id: int, lesson: str, now: datetime
                  ) -> list[tuple[str, datetime | None]]:
        """Return (question id, due) of a learner's cards of one lesson, soonest due first,
        then (question id, None) for each item a hold keeps out at ``now`` (card or not), by
        question id.

        One statement: the cards no hold keeps out, and the holds in force.
        """
        cards = (select(CARDS.c.question_id, CARDS.c.due, CARDS.c.id.label("card_id"))
                 .where(CARDS.c.learner_id == learner_id, CARDS.c.lesson == lesson,
                        unheld(now)))
        holds = (select(HOLDS.c.question_id, null(), literal(0, Integer))
                 .where(HOLDS.c.learner_id == learner_id, HOLDS.c.lesson == lesson,
                        or_(HOLDS.c.suspended.is_(True), HOLDS.c.buried_until > now)))
        both = union_all(cards, holds).subquery()
        rows = self.connection.execute(
            select(both.c.question_id, both.c.due)
            .order_by(both.c.due.is_(None), both.c.due, both.c.card_id, both.c.question_id))
        return [(question_id, due) for question_id, due in rows]

    def card_counts(self, learner_id: int, question_ids: Sequence[str], now: datetime
                    ) -> tuple[int, int, int]:
        """Count a learner's cards among ``question_ids``, how many of them are due and no
        hold keeps out, and the held items among them that have no card yet (not new)."""
        held_new = (select(func.count()).select_from(HOLDS)
                    .where(HOLDS.c.learner_id == learner_id,
                           HOLDS.c.question_id.in_(question_ids),
                           or_(HOLDS.c.suspended.is_(True), HOLDS.c.buried_until > now),
                           ~exists().where(CARDS.c.learner_id == learner_id,
                                           CARDS.c.question_id == HOLDS.c.question_id))
                    .scalar_subquery())
        cards, due_now, held_count = self.connection.execute(
            select(func.count(), func.count().filter(CARDS.c.due <= now, unheld(now)),
                   held_new)
            .where(CARDS.c.learner_id == learner_id, CARDS.c.question_id.in_(question_ids))).one()
        return int(cards), int(due_now), int(held_count)

    def due_queue(self, learner_id: int, now: datetime, limit: int,
                  lesson: str | None = None) -> list[DueCard]:
        """Return the cards due now, most overdue first (served by the (learner_id, due) index)."""
        rows = self.connection.execute(DUE_QUEUE[lesson is not None], lesson_params(
            learner_id, lesson, now=now, limit=limit))
        return [DueCard(*row) for row in rows]

    def day_counts(self, learner_id: int, lesson: str | None, day_start: datetime, days: int
                   ) -> DayCounts:
        """Count a learner's cards (of one lesson, or all) by the day they fall due, in one
        query of range counts.

        Every figure is a count over a range of the ``(learner_id, due)`` index, and the
        ranges do not overlap (before ``day_start``, each day of the window, after it), so
        the database walks each index entry once and computes nothing per row. Day ``i`` is
        ``[day_start + i days, day_start + i + 1 days)`` in UTC. Cards a hold keeps out
        today count nowhere (a burial ends at a day's start, so "held at ``day_start``" is
        "held all day").
        """
        where = [*cards_filter(learner_id, lesson), unheld(day_start)]

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

    def reviews_by_day(self, learner_id: int, day_start: datetime, days: int
                       ) -> tuple[int, ...]:
        """Count a learner's reviews on each of ``days`` days from ``day_start``, in one query.

        One range scan of the ``(learner_id, reviewed_at)`` index over the window; each day is
        a filtered count (``[day_start + i days, day_start + i + 1 days)``), so only counts
        leave the database.
        """
        bounds = [day_start + timedelta(days=i) for i in range(days + 1)]
        counts = self.connection.execute(
            select(*(func.count().filter(LOGS.c.reviewed_at >= bounds[i],
                                         LOGS.c.reviewed_at < bounds[i + 1])
                     for i in range(days)))
            .where(LOGS.c.learner_id == learner_id, LOGS.c.reviewed_at >= bounds[0],
                   LOGS.c.reviewed_at < bounds[-1])).one()
        return tuple(int(n) for n in counts)

    def recall_by_period(self, learner_id: int, start: datetime, period: timedelta,
                         periods: int) -> tuple[tuple[int, int], ...]:
        """Count, per period from ``start``, a learner's reviews of learned cards (state
        Review before the review) and how many of them were recalled (not rated Again), in
        one query over the ``(learner_id, reviewed_at)`` index.

        Only learned cards: a card still in its learning steps is not expected to be recalled
        at the desired retention, so Anki's "true retention" leaves it out, and so do we.
        """
        bounds = [start + period * i for i in range(periods + 1)]
        columns = []
        for i in range(periods):
            inside = (LOGS.c.reviewed_at >= bounds[i], LOGS.c.reviewed_at < bounds[i + 1])
            columns += [func.count().filter(*inside),
                        func.count().filter(*inside, LOGS.c.rating != AGAIN)]
        counts = [int(n) for n in self.connection.execute(
            select(*columns)
            .where(LOGS.c.learner_id == learner_id, LOGS.c.state_before == REVIEW_STATE,
                   LOGS.c.reviewed_at >= bounds[0], LOGS.c.reviewed_at < bounds[-1])).one()]
        return tuple((counts[2 * i], counts[2 * i + 1]) for i in range(periods))

    def due_since(self, learner_id: int, lesson: str | None, since: datetime, now: datetime
                  ) -> int:
        """Count a learner's cards that fell due from ``since`` up to ``now`` (a short range)."""
        return self.connection.scalar(DUE_SINCE[lesson is not None], lesson_params(
            learner_id, lesson, since=since, now=now)) or 0

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
                 .where(ATTEMPTS.c.learner_id == learner_id, *CLOSED_BOOK_EVIDENCE)
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
                 .where(ATTEMPTS.c.learner_id == learner_id, *CLOSED_BOOK_EVIDENCE,
                        ATTEMPTS.c.submitted_at >= since))
        if lesson is not None:
            query = query.where(ATTEMPTS.c.lesson == lesson)
        return [(submitted_at, bool(correct))
                for submitted_at, correct in self.connection.execute(query)]


class GroupProgressRepository(Repository):
    """Read the same figures for a set of learners (a cohort), each in one query over the
    whole set: never a query per learner."""

    def question_counts(self, learners: Collection[int], lesson: str
                        ) -> list[tuple[int, str, bool, int]]:
        """Count the learners' closed-book graded attempts by (learner, question, correct)."""
        rows = self.connection.execute(
            select(ATTEMPTS.c.learner_id, ATTEMPTS.c.question_id, ATTEMPTS.c.correct,
                   func.count())
            .where(ATTEMPTS.c.learner_id.in_(sorted(learners)), ATTEMPTS.c.lesson == lesson,
                   *CLOSED_BOOK_EVIDENCE)
            .group_by(ATTEMPTS.c.learner_id, ATTEMPTS.c.question_id, ATTEMPTS.c.correct))
        return [(learner, question_id, bool(correct), int(n))
                for learner, question_id, correct, n in rows]

    def mastered(self, learners: Collection[int], lesson: str) -> list[tuple[int, str]]:
        """Return (learner, question) of the learners' mastered questions of one lesson."""
        rows = self.connection.execute(
            select(MASTERY.c.learner_id, MASTERY.c.question_id)
            .where(MASTERY.c.learner_id.in_(sorted(learners)), MASTERY.c.lesson == lesson,
                   MASTERY.c.mastered.is_(True)))
        return [(learner, question_id) for learner, question_id in rows]

    def due_load(self, learners: Collection[int], lesson: str, now: datetime,
                 soon: datetime) -> dict[int, tuple[int, int]]:
        """Count each learner's cards of one lesson due now, and due by ``soon``."""
        rows = self.connection.execute(
            select(CARDS.c.learner_id, func.count().filter(CARDS.c.due <= now),
                   func.count().filter(CARDS.c.due <= soon))
            .where(CARDS.c.learner_id.in_(sorted(learners)), CARDS.c.lesson == lesson)
            .group_by(CARDS.c.learner_id))
        return {learner: (int(due_now), int(due_soon)) for learner, due_now, due_soon in rows}

    def last_activity(self, learners: Collection[int], lesson: str) -> dict[int, datetime]:
        """Return when each learner last answered a question of one lesson."""
        rows = self.connection.execute(
            select(ATTEMPTS.c.learner_id, func.max(ATTEMPTS.c.submitted_at))
            .where(ATTEMPTS.c.learner_id.in_(sorted(learners)), ATTEMPTS.c.lesson == lesson)
            .group_by(ATTEMPTS.c.learner_id))
        return {learner: at for learner, at in rows if at is not None}

    def graded_answers(self, learners: Collection[int], question_ids: Collection[str]
                       ) -> list[tuple[int, str, bool]]:
        """Return (learner, question, correct) of the learners' graded attempts on
        ``question_ids`` (what calibration pairs with self-assessments)."""
        rows = self.connection.execute(
            select(ATTEMPTS.c.learner_id, ATTEMPTS.c.question_id, ATTEMPTS.c.correct)
            .where(ATTEMPTS.c.learner_id.in_(sorted(learners)), ATTEMPTS.c.graded.is_(True),
                   ATTEMPTS.c.question_id.in_(sorted(question_ids))))
        return [(learner, question_id, bool(correct)) for learner, question_id, correct in rows]

    def explanations(self, learners: Collection[int], lesson: str
                     ) -> list[tuple[int, str, datetime, str]]:
        """Return (learner, question, when, text) of the learners' explanations of wrong
        answers in one lesson, newest first."""
        rows = self.connection.execute(
            select(ATTEMPTS.c.learner_id, ATTEMPTS.c.question_id, ATTEMPTS.c.explained_at,
                   ATTEMPTS.c.explanation)
            .where(ATTEMPTS.c.learner_id.in_(sorted(learners)), ATTEMPTS.c.lesson == lesson,
                   ATTEMPTS.c.explanation.is_not(None))
            .order_by(ATTEMPTS.c.explained_at.desc(), ATTEMPTS.c.id.desc()))
        return [(learner, question_id, at, text) for learner, question_id, at, text in rows]
