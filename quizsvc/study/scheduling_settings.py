"""Show what schedules this learner's reviews, and let them choose their desired retention.

The desired retention (0.70-0.97, default 0.90) is the chance of recall the scheduler aims
for when a card falls due: lower means longer intervals and more forgetting, higher the
reverse. Changing it reschedules the learner's cards from their review logs at once, so the
due queue and the 30-day forecast follow. It only moves due dates: nothing a learner sets
here reaches their mastery records.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from quizsvc.pool import job_runtime
from quizsvc.review import scheduling
from quizsvc.store.scheduler_settings import FitRecord
from quizsvc.study import fsrs_tuning
from quizsvc.study.context import Context


@dataclass(frozen=True)
class LessonParameters:
    """Which FSRS parameters schedule this learner's cards of one lesson.

    ``source`` is ``own`` (fitted to this learner's reviews), ``everyone`` (fitted to all
    learners' reviews) or ``default`` (fsrs's defaults; ``fit`` is then None).
    """

    lesson: str
    source: str
    fit: FitRecord | None


@dataclass(frozen=True)
class SchedulingView:
    """The learner's desired retention, its allowed range, and the parameters per lesson."""

    desired_retention: float
    min_retention: float
    max_retention: float
    lessons: list[LessonParameters]
    rescheduled_cards: int | None = None  # how many cards a change just moved


RESCHEDULE_WAIT_SECONDS = 30.0  # a learner with tens of thousands of reviews takes seconds


def source_of(fit: FitRecord | None) -> str:
    """Name where a lesson's parameters come from."""
    if fit is None:
        return "default"
    return "everyone" if fit.learner_id is None else "own"


def scheduling_view(ctx: Context, rescheduled_cards: int | None = None) -> SchedulingView:
    """Report the desired retention and, for every lesson, the parameters in force."""
    learner_id = ctx.identity.learner_id if ctx.identity else None  # None: everyone's fits
    lessons = []
    with ctx.uow.read():
        for lesson_id in ctx.index.lessons:
            fit = ctx.uow.settings.chosen_fit_record(learner_id, lesson_id)
            lessons.append(LessonParameters(lesson_id, source_of(fit), fit))
        retention = (scheduling.DEFAULT_RETENTION if learner_id is None
                     else ctx.uow.settings.retention_of(learner_id))
    return SchedulingView(retention, scheduling.MIN_RETENTION, scheduling.MAX_RETENTION,
                          lessons, rescheduled_cards)


def set_desired_retention(ctx: Context, retention: float) -> SchedulingView:
    """Set the learner's desired retention and reschedule their cards by it, on the work pool.

    The argument schemas refuse a retention out of range (``http.arguments``); so does
    ``scheduling.SchedulerSettings`` for any other caller, when the cards are rescheduled.
    """
    moved = ctx.costly(RESCHEDULE_WAIT_SECONDS, retention_job, ctx.learner_id, retention,
                       ctx.now)
    return scheduling_view(ctx, moved)


def retention_job(learner_id: int, retention: float, now: datetime) -> int:
    """Store a learner's desired retention and reschedule their cards by it (a job for the
    costly-work pool); return how many cards moved.

    The replay takes seconds for a long review log, so it runs outside any transaction, on
    what one read returned; the write under the learner's lock is short. If the learner's
    reviews changed in between (``review_seq`` moved on), the replay is redone under the lock.
    """
    runtime = job_runtime()
    with runtime.unit_of_work() as uow:
        uow.deadline = runtime.deadline
        with uow.read():
            review_seq = uow.answers.review_seq_of(learner_id)
            cards = uow.settings.logged_cards(learner_id)
            settings = {name: replace(found, desired_retention=retention) for name, found
                        in fsrs_tuning.settings_by_lesson(uow, learner_id, cards).items()}
        changes = fsrs_tuning.replayed(cards, settings)
        with uow.locked(learner_id):
            uow.settings.put_retention(learner_id, retention, now)
            if uow.answers.review_seq_of(learner_id) != review_seq + 1:  # not only our lock
                return fsrs_tuning.reschedule_learner(uow, learner_id)
            changes.write(uow)
            return len(changes.cards)
