"""Report what is due, what is mastered, how accurate the learner is, and how calibrated.

All read-only: nothing here writes a record. Calibration reads this browser's
self-assessments and the learner's graded attempts and writes neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import case, func, select

from quizsvc.api.services import catalog
from quizsvc.api.services.context import Context
from quizsvc.review import calibration, scheduling
from quizsvc.store.models import Attempt, Mastery, ReviewCard, SelfAssessment

DUE_LIST_LIMIT = 100


@dataclass(frozen=True)
class DueCard:
    """One card in the due queue."""

    question_id: str
    lesson: str
    due: datetime
    state: int


@dataclass(frozen=True)
class DueReport:
    """Counts, the head of the due queue, and a 30-day forecast."""

    now: datetime
    lesson: str | None
    due_now: int
    new: int
    cards: int
    next_due: datetime | None
    items: list[DueCard]
    forecast: list[scheduling.ForecastDay]


def lesson_filter(ctx: Context, lesson: str | None) -> None:
    """Validate an optional lesson filter (unknown lessons are 404)."""
    if lesson is not None:
        catalog.lesson(ctx, lesson)


def due_queue(ctx: Context, limit: int = 20, lesson: str | None = None) -> list[DueCard]:
    """Return the cards due now, most overdue first (the query a session start runs).

    Served by the (learner_id, due) index: its cost does not grow with cards not yet due.
    """
    query = (select(ReviewCard.question_id, ReviewCard.lesson, ReviewCard.due,
                    ReviewCard.state)
             .where(ReviewCard.learner_id == ctx.learner_id, ReviewCard.due <= ctx.now)
             .order_by(ReviewCard.due, ReviewCard.id).limit(limit))
    if lesson is not None:
        query = query.where(ReviewCard.lesson == lesson)
    return [DueCard(*row) for row in ctx.session.execute(query)]


def utc_day(column: Any, dialect: str) -> Any:
    """Return a SQL expression for the UTC calendar day of a stored datetime."""
    if dialect == "postgresql":
        return func.date(func.timezone("UTC", column))
    return func.date(column)  # SQLite stores the UTC time as ISO text


def due_reviews(ctx: Context, lesson: str | None = None, limit: int = 20) -> DueReport:
    """Report due and new counts, the due queue's head, and the next 30 days' load.

    Counted in SQL (one aggregate and one GROUP BY day), so a learner with tens of thousands
    of cards costs two index scans, not a transfer of every due date. The forecast equals
    ``scheduling.forecast`` over the same cards: overdue cards count today.
    """
    lesson_filter(ctx, lesson)
    cards_t = ReviewCard.__table__
    where = [cards_t.c.learner_id == ctx.learner_id]
    if lesson is not None:
        where.append(cards_t.c.lesson == lesson)
    today = ctx.now.astimezone(UTC).date()
    start = datetime.combine(today, time(), UTC)
    horizon = start + timedelta(days=scheduling.FORECAST_DAYS)
    cards, due_now, overdue, next_due = ctx.session.execute(
        select(func.count(),
               func.coalesce(func.sum(case((cards_t.c.due <= ctx.now, 1), else_=0)), 0),
               func.coalesce(func.sum(case((cards_t.c.due < start, 1), else_=0)), 0),
               func.min(cards_t.c.due))
        .where(*where)).one()
    day = utc_day(cards_t.c.due, ctx.session.get_bind().dialect.name)
    counts = [0] * scheduling.FORECAST_DAYS
    counts[0] = int(overdue)
    for when, n in ctx.session.execute(
            select(day, func.count()).where(*where, cards_t.c.due >= start,
                                            cards_t.c.due < horizon).group_by(day)):
        counts[(date.fromisoformat(str(when)) - today).days] += n
    idx = catalog.index(ctx.bank)
    lessons = [lesson] if lesson is not None else list(idx.lessons)
    in_bank = sorted({q.id for lesson_id in lessons for q in idx.by_lesson.get(lesson_id, ())})
    have_cards = set(ctx.session.scalars(
        select(cards_t.c.question_id).where(*where, cards_t.c.question_id.in_(in_bank))))
    return DueReport(
        now=ctx.now, lesson=lesson, due_now=int(due_now), new=len(in_bank) - len(have_cards),
        cards=cards, next_due=next_due,
        items=due_queue(ctx, min(limit, DUE_LIST_LIMIT), lesson),
        forecast=[scheduling.ForecastDay(today + timedelta(days=i), n)
                  for i, n in enumerate(counts)])


@dataclass(frozen=True)
class MasteryRecord:
    """One mastery record as listed."""

    question_id: str
    lesson: str
    mastered: bool
    mastered_at: datetime | None
    evidence: list[int]
    policy: str
    evaluated_at: datetime


def list_mastery(ctx: Context, lesson: str | None = None) -> list[MasteryRecord]:
    """List this learner's mastery records (written only by the mastery policy)."""
    lesson_filter(ctx, lesson)
    query = select(Mastery).where(Mastery.learner_id == ctx.learner_id)
    if lesson is not None:
        query = query.where(Mastery.lesson == lesson)
    return [MasteryRecord(m.question_id, m.lesson, m.mastered, m.mastered_at, list(m.evidence),
                          m.policy, m.evaluated_at)
            for m in ctx.session.scalars(query.order_by(Mastery.question_id))]


@dataclass(frozen=True)
class Accuracy:
    """Graded attempts and how many were right, overall and closed-book."""

    attempts: int
    correct: int
    rate: float | None
    closed_book_attempts: int
    closed_book_correct: int


@dataclass(frozen=True)
class Progress:
    """The learner's dashboard numbers."""

    lesson: str | None
    questions: int
    due_now: int
    new: int
    mastered: int
    accuracy: Accuracy
    calibration: calibration.Calibration


def accuracy(ctx: Context, lesson: str | None = None) -> Accuracy:
    """Count graded attempts and right answers."""
    query = select(Attempt.correct, Attempt.closed_book, func.count()).where(
        Attempt.learner_id == ctx.learner_id, Attempt.graded.is_(True)
    ).group_by(Attempt.correct, Attempt.closed_book)
    if lesson is not None:
        query = query.where(Attempt.lesson == lesson)
    attempts = correct = closed = closed_correct = 0
    for is_correct, closed_book, count in ctx.session.execute(query):
        attempts += count
        correct += count if is_correct else 0
        closed += count if closed_book else 0
        closed_correct += count if (closed_book and is_correct) else 0
    return Accuracy(attempts, correct, (correct / attempts) if attempts else None, closed,
                    closed_correct)


def calibration_pairs(ctx: Context, lesson: str | None = None) -> list[tuple[int, bool]]:
    """Pair each graded attempt on a self-assessed question with the rating claimed for it.

    A rating of the question itself wins over a rating of its lesson section.
    """
    idx = catalog.index(ctx.bank)
    ratings = dict(ctx.session.execute(
        select(SelfAssessment.ref, SelfAssessment.rating)
        .where(SelfAssessment.browser_id == ctx.browser_id)).all())
    claimed: dict[str, int] = {}
    for question in idx.questions.values():
        if lesson is not None and question.lesson != lesson:
            continue
        rating = ratings.get(question.id, ratings.get(question.section))
        if rating is not None:
            claimed[question.id] = rating
    if not claimed:
        return []
    rows = ctx.session.execute(
        select(Attempt.question_id, Attempt.correct)
        .where(Attempt.learner_id == ctx.learner_id, Attempt.graded.is_(True),
               Attempt.question_id.in_(sorted(claimed)))
        .order_by(Attempt.id)).all()
    return [(claimed[question_id], bool(correct)) for question_id, correct in rows]


def learner_calibration(ctx: Context, lesson: str | None = None) -> calibration.Calibration:
    """Compute calibration on read: self-assessments against graded accuracy."""
    return calibration.calibrate(calibration_pairs(ctx, lesson))


def progress_report(ctx: Context, lesson: str | None = None) -> Progress:
    """Return due, mastered, accuracy and calibration for the dashboard."""
    due = due_reviews(ctx, lesson, limit=0)
    mastered_query = select(func.count()).select_from(Mastery).where(
        Mastery.learner_id == ctx.learner_id, Mastery.mastered.is_(True))
    if lesson is not None:
        mastered_query = mastered_query.where(Mastery.lesson == lesson)
    idx = catalog.index(ctx.bank)
    questions = (len(idx.by_lesson.get(lesson, ())) if lesson is not None
                 else len(idx.questions))
    return Progress(lesson, questions, due.due_now, due.new,
                    ctx.session.scalar(mastered_query) or 0, accuracy(ctx, lesson),
                    learner_calibration(ctx, lesson))
