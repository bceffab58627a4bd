"""Show what schedules this learner's reviews, and let them choose their desired retention.

The desired retention (0.70-0.97, default 0.90) is the chance of recall the scheduler aims
for when a card falls due: lower means longer intervals and more forgetting, higher the
reverse. Changing it reschedules the learner's cards from their review logs at once, so the
due queue and the 30-day forecast follow. It only moves due dates: nothing a learner sets
here reaches their mastery records.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy.exc import SQLAlchemyError

from quizsvc.pool import job_runtime
from quizsvc.review import scheduling
from quizsvc.store.database import first_line
from quizsvc.store.scheduler_settings import FitRecord, LoggedCard
from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study import fsrs_tuning
from quizsvc.study.context import Context

log = logging.getLogger(__name__)


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
    what one read returned. Its result is written under the learner's lock in steps of whole
    cards (``UnitOfWork.step_rows`` rows each), so that on SQLite no other learner's write
    waits long for the one writer (``write_retention``).
    """
    runtime = job_runtime()
    with runtime.unit_of_work() as uow:
        uow.deadline = runtime.deadline
        with uow.read():
            review_seq = uow.answers.review_seq_of(learner_id)
            stored = Retention(uow.settings.retention_of(learner_id),
                               uow.settings.logged_cards(learner_id))
            settings = {name: replace(found, desired_retention=retention) for name, found
                        in fsrs_tuning.settings_by_lesson(uow, learner_id, stored.cards).items()}
        changes = fsrs_tuning.replayed(stored.cards, settings)
        return write_retention(uow, learner_id, retention, now, review_seq, stored, changes)


@dataclass(frozen=True)
class Retention:
    """A learner's desired retention and cards as one read found them."""

    desired_retention: float
    cards: list[LoggedCard]


def write_retention(uow: UnitOfWork, learner_id: int, retention: float, now: datetime,
                    review_seq: int, stored: Retention, changes: fsrs_tuning.Rescheduled
                    ) -> int:
    """Write a new retention and the cards replayed by it, step by step; return how many moved.

    The first step stores the retention, and every step takes the learner's lock and checks
    ``review_seq``: it moves on only by our own locks unless the learner reviewed meanwhile (an
    answer between two steps). Then the replay is stale, and the step replays all the
    learner's cards again under its lock instead. Between steps the learner may see some cards
    already moved and others not; each card is written with its whole log.

    A job refused at its deadline writes nothing (``quizsvc.pool``): if a step is refused
    after others were committed, what they wrote is put back (``put_back``).
    """
    written: list[fsrs_tuning.Rescheduled] = []
    try:
        for step in changes.steps(uow.step_rows):
            if written:
                uow.give_way()  # between two steps, not after the last
            with uow.locked(learner_id):
                if not written:
                    uow.settings.put_retention(learner_id, retention, now)
                if uow.answers.review_seq_of(learner_id) != review_seq + 1:  # not ours alone
                    return fsrs_tuning.reschedule_learner(uow, learner_id)
                step.write(uow)
            written.append(step)
            review_seq += 1
    except BaseException:
        if written:
            put_back(uow, learner_id, retention, now, review_seq, stored, written)
        raise
    return len(changes.cards)


def put_back(uow: UnitOfWork, learner_id: int, retention: float, now: datetime,
             review_seq: int, stored: Retention, written: list[fsrs_tuning.Rescheduled]
             ) -> None:
    """Undo the committed steps of a refused reschedule, past the deadline (a unit of work of
    its own): the old retention, and the cards as they were read, unless the learner reviewed
    since; then their cards are replayed under the old retention instead. A retention the
    learner chose after this one stays, with the cards its own change wrote.

    If even that fails (the database is gone), the learner keeps the new retention with some
    cards moved by it: due dates only, which their next retention change puts right.
    """
    try:
        with uow.fresh() as undo, undo.locked(learner_id):
            if undo.settings.retention_of(learner_id) != retention:
                return
            undo.settings.put_retention(learner_id, stored.desired_retention, now)
            if undo.answers.review_seq_of(learner_id) != review_seq + 1:
                fsrs_tuning.reschedule_learner(undo, learner_id)
                return
            for step in written:
                step.as_stored(stored.cards).write(undo)
    except SQLAlchemyError as error:
        log.warning("could not undo a refused reschedule of learner %s: %s", learner_id,
                    first_line(error))
