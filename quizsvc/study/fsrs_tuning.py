"""Fit FSRS parameters to the learners' review logs, and reschedule cards when settings change.

Two batch use cases on a unit of work and plain values (``quizsvc fsrs optimize`` runs the
first; changing a learner's desired retention runs the second):

- ``optimize`` reads the review log (of one lesson or all), fits the pooled log of every
  learner and each learner's own (``quizsvc.review.optimizer``), stores each fit that is
  offered, and reschedules the cards the new parameters now govern. The pooled fit schedules
  everyone, so it learns only from vouched reviews (recorded here, or restored from the
  learner's own signed export): a crafted import moves no one's intervals but its own
  learner's. A log too small for a fit, or a fit fsrs would refuse, keeps what was in force,
  and the report says why.
- ``reschedule_learner`` replays each of a learner's cards from its log under the settings
  that now apply to it (``quizsvc.review.scheduling.reschedule``), so the card, and the
  state-before of every log row (which re-rating a review starts from), are what the reviews
  give under those settings. It runs under the learner's lock (its caller's
  ``UnitOfWork.locked``): an answer racing it redoes its review on the new state. The replay
  itself (``replayed``) is pure, so a caller can run it before taking the lock.

Nothing here reads or writes mastery: parameters and retention only move due dates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from quizsvc.review import optimizer, scheduling
from quizsvc.review.optimizer import Fit, NoFit
from quizsvc.review.ratings import ReviewRating
from quizsvc.review.scheduling import SchedulerSettings
from quizsvc.store.scheduler_settings import LoggedCard
from quizsvc.store.unit_of_work import UnitOfWork


@dataclass(frozen=True)
class TuningReport:
    """What one ``optimize`` run did: the pooled fit, each learner's, the cards rescheduled."""

    lesson: str | None
    fitted_at: datetime
    pooled: Fit | NoFit
    learners: tuple[tuple[int, Fit | NoFit], ...]  # every learner with reviews in scope
    rescheduled_learners: int
    rescheduled_cards: int

    @property
    def own_fits(self) -> int:
        """Count the learners who got parameters of their own."""
        return sum(isinstance(result, Fit) for _, result in self.learners)


def optimize(uow: UnitOfWork, now: datetime, lesson: str | None = None,
             min_reviews: int = optimizer.MIN_REVIEWS) -> TuningReport:
    """Fit the pooled log and each learner's own; store the fits; reschedule, in one write.

    The log is read in a read that ends before fitting (a fit takes seconds, and SQLite's
    writer lock must not wait on it); the writes are one transaction.
    """
    with uow.read():
        log = uow.settings.review_log(lesson)
        vouched = uow.settings.review_log(lesson, vouched_only=True)
    pooled = optimizer.fit([review for reviews in vouched.values() for review in reviews],
                           min_reviews)
    learners = tuple((learner_id, optimizer.fit(reviews, min_reviews))
                     for learner_id, reviews in sorted(log.items()))
    affected = (sorted(log) if isinstance(pooled, Fit)
                else [learner_id for learner_id, result in learners if isinstance(result, Fit)])
    with uow.write():
        if isinstance(pooled, Fit):
            uow.settings.add_fit(pooled, now, lesson=lesson)
        for learner_id, result in learners:
            if isinstance(result, Fit):
                uow.settings.add_fit(result, now, learner_id=learner_id, lesson=lesson)
        cards = 0
        for learner_id in affected:
            uow.answers.lock_learner(learner_id)
            cards += reschedule_learner(uow, learner_id, lesson)
    return TuningReport(lesson, now, pooled, learners, len(affected), cards)


def reschedule_learner(uow: UnitOfWork, learner_id: int, lesson: str | None = None) -> int:
    """Replay the learner's cards (of one lesson) under their settings; return how many
    changed. Runs in the caller's write, which holds the learner's lock."""
    cards = uow.settings.logged_cards(learner_id, lesson)
    changes = replayed(cards, settings_by_lesson(uow, learner_id, cards))
    changes.write(uow)
    return len(changes.cards)


def settings_by_lesson(uow: UnitOfWork, learner_id: int, cards: Sequence[LoggedCard]
                       ) -> dict[str, SchedulerSettings]:
    """Read the learner's scheduler settings once for each lesson ``cards`` belong to."""
    return {name: uow.settings.read_settings(learner_id, name)
            for name in {card.lesson for card in cards}}


@dataclass(frozen=True)
class ReplayedCard:
    """One card as written by a rescheduling: its state, and each log row's state before."""

    card_id: int
    state: scheduling.CardState
    befores: tuple[tuple[int, scheduling.CardState], ...]  # (log row id, state before)

    @property
    def rows(self) -> int:
        """Count the rows writing it changes: the card and its log rows."""
        return 1 + len(self.befores)


@dataclass(frozen=True)
class Rescheduled:
    """What replaying a learner's cards changed, card by card (a card and its log together)."""

    cards: tuple[ReplayedCard, ...]

    @property
    def rows(self) -> int:
        """Count the rows a write of this changes: the cards and their log rows."""
        return sum(card.rows for card in self.cards)

    def write(self, uow: UnitOfWork) -> None:
        """Write the changed states in the caller's write."""
        uow.settings.write_rescheduled(
            [before for card in self.cards for before in card.befores],
            [(card.card_id, card.state) for card in self.cards])

    def steps(self, rows: int) -> list[Rescheduled]:
        """Split into parts of whole cards, each of about ``rows`` rows (at least one part,
        empty if nothing changed): a card and its log are never written apart."""
        parts: list[Rescheduled] = []
        part: list[ReplayedCard] = []
        size = 0
        for card in self.cards:
            part.append(card)
            size += card.rows
            if size >= rows:
                parts.append(Rescheduled(tuple(part)))
                part, size = [], 0
        if part or not parts:
            parts.append(Rescheduled(tuple(part)))
        return parts

    def as_stored(self, read: Sequence[LoggedCard]) -> Rescheduled:
        """Return these cards as ``read`` found them before the replay (to put them back)."""
        changed = {card.card_id for card in self.cards}
        return Rescheduled(tuple(
            ReplayedCard(card.card_id, card.state, tuple((row.id, row.before) for row in card.log))
            for card in read if card.card_id in changed))


def replayed(cards: Sequence[LoggedCard], settings: dict[str, SchedulerSettings]
             ) -> Rescheduled:
    """Replay each card from its log under its lesson's ``settings``; keep what changed.

    Pure: the replay is the costly part (seconds for a long log), so a caller may run it
    outside any transaction and write the result under the learner's lock.
    """
    changed: list[ReplayedCard] = []
    for card in cards:
        replay = scheduling.reschedule(
            [(ReviewRating(row.rating), row.reviewed_at) for row in card.log],
            settings[card.lesson])
        befores = [row.before for row in card.log]
        if replay.after == card.state and list(replay.before) == befores:
            continue
        changed.append(ReplayedCard(card.card_id, replay.after, tuple(
            (row.id, before) for row, before in zip(card.log, replay.before, strict=True))))
    return Rescheduled(tuple(changed))
