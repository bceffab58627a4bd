"""Count what the progress page draws: reviews per day, and retention per week against the
learner's desired retention (the third chart, the due forecast, is ``progress.due_reviews``'s).

Read-only, from the review log and the cards, in the day boundaries the app uses elsewhere
(UTC days: ``study.progress`` counts the due forecast the same way). Every count is done in
the database, one query per figure over an index range: a heavy learner costs index scans,
not a transfer of their log.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from quizsvc.review import scheduling
from quizsvc.study.context import Context

REVIEW_DAYS = 30    # reviews per day: today and the 29 days before
RETENTION_WEEKS = 8  # retention: 8 weeks of 7 days, the last one ending today
WEEK = timedelta(days=7)


@dataclass(frozen=True)
class DayReviews:
    """How many reviews the learner made on one UTC day (flashcards and questions alike)."""

    day: date
    reviews: int


@dataclass(frozen=True)
class WeekRetention:
    """Reviews of learned cards in one week (``first_day`` to ``last_day``) and how many of
    them the learner recalled (rated anything but Again)."""

    first_day: date
    last_day: date
    reviews: int
    recalled: int

    @property
    def retention(self) -> float | None:
        """Return the share recalled (None for a week without such reviews)."""
        return self.recalled / self.reviews if self.reviews else None


@dataclass(frozen=True)
class ReviewStatistics:
    """What the progress page's charts draw."""

    today: date
    reviews_per_day: tuple[DayReviews, ...]
    retention: tuple[WeekRetention, ...]
    desired_retention: float


def day_start(day: date) -> datetime:
    """Return the moment a UTC day begins."""
    return datetime.combine(day, time(), UTC)


def review_statistics(ctx: Context) -> ReviewStatistics:
    """Count reviews per day (last ``REVIEW_DAYS`` days), retention per week (last
    ``RETENTION_WEEKS`` weeks) and the desired retention, in one read.

    A browser that has stored nothing has no reviews: every count is zero and the desired
    retention is the default.
    """
    today = ctx.now.astimezone(UTC).date()
    first_day = today - timedelta(days=REVIEW_DAYS - 1)
    first_week = today - timedelta(days=7 * RETENTION_WEEKS - 1)
    per_day: tuple[int, ...] = (0,) * REVIEW_DAYS
    per_week: tuple[tuple[int, int], ...] = ((0, 0),) * RETENTION_WEEKS
    desired = scheduling.DEFAULT_RETENTION
    with ctx.uow.read():
        if ctx.identity is not None:
            learner_id = ctx.identity.learner_id
            per_day = ctx.uow.progress.reviews_by_day(learner_id, day_start(first_day),
                                                      REVIEW_DAYS)
            per_week = ctx.uow.progress.recall_by_period(learner_id, day_start(first_week),
                                                         WEEK, RETENTION_WEEKS)
            desired = ctx.uow.settings.retention_of(learner_id)
    return ReviewStatistics(
        today=today,
        reviews_per_day=tuple(DayReviews(first_day + timedelta(days=i), n)
                              for i, n in enumerate(per_day)),
        retention=tuple(WeekRetention(first_week + WEEK * i, first_week + WEEK * i
                                      + timedelta(days=6), reviews, recalled)
                        for i, (reviews, recalled) in enumerate(per_week)),
        desired_retention=desired)
