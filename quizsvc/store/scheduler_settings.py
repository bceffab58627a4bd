"""Read and write what schedules a learner's cards: fitted FSRS parameters, desired retention.

The parameters for a card of learner L in lesson X are the newest fit of the most specific
scope there is: L's own for X, L's own for every lesson, everyone's for X, everyone's for every
lesson; else fsrs's defaults. That rule is written once (``chosen_fit``), so that the answers
repository's one-query snapshot (``settings_columns`` inside it) and every other path that
reviews a card pick alike. The desired retention is the learner's row in
``learner_setting``, else 0.90.

This module holds the statements and nothing of policy; ``quizsvc.study.fsrs_tuning`` and the
other use cases decide what to write.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, bindparam, case, insert, or_, select, update

from quizsvc.review.optimizer import Fit, LoggedReview
from quizsvc.review.scheduling import DEFAULT_RETENTION, CardState, SchedulerSettings
from quizsvc.store.models import FsrsParameters, LearnerSetting, ReviewCard, ReviewLog, table
from quizsvc.store.repository import Repository

CARDS, LOGS = table(ReviewCard), table(ReviewLog)
PARAMETERS, SETTINGS = table(FsrsParameters), table(LearnerSetting)


def chosen_fit(learner: Any, lesson: Any) -> Select[Any]:
    """Return the query of the one fit that schedules ``learner``'s cards of ``lesson``.

    Both are SQL expressions: columns of an enclosing query (the answer's snapshot passes the
    served variant's) or bound parameters.
    """
    return (select(PARAMETERS)
            .where(or_(PARAMETERS.c.learner_id == learner, PARAMETERS.c.learner_id.is_(None)),
                   or_(PARAMETERS.c.lesson == lesson, PARAMETERS.c.lesson.is_(None)))
            .order_by(case((PARAMETERS.c.learner_id.is_(None), 1), else_=0),
                      case((PARAMETERS.c.lesson.is_(None), 1), else_=0),
                      PARAMETERS.c.fitted_at.desc(), PARAMETERS.c.id.desc())
            .limit(1))


def settings_columns(learner: Any, lesson: Any) -> tuple[ColumnElement[Any], ColumnElement[Any]]:
    """Return two scalar subqueries, the desired retention and the chosen fit's parameters
    (either NULL: the default), for the snapshot of an answer or any other query."""
    retention = (select(SETTINGS.c.desired_retention)
                 .where(SETTINGS.c.learner_id == learner).scalar_subquery())
    parameters = (chosen_fit(learner, lesson).with_only_columns(PARAMETERS.c.parameters)
                  .scalar_subquery())
    return retention.label("desired_retention"), parameters.label("fsrs_parameters")


READ_SETTINGS = select(*settings_columns(bindparam("learner_id"), bindparam("lesson")))
READ_CHOSEN_FIT = chosen_fit(bindparam("learner_id"), bindparam("lesson"))


def settings_of(retention: float | None, parameters: Any) -> SchedulerSettings:
    """Build the settings from the two columns ``settings_columns`` reads.

    The parameters arrive as a list (psycopg parses JSON) or as JSON text (sqlite3).
    """
    if isinstance(parameters, str):
        parameters = json.loads(parameters)
    retention = DEFAULT_RETENTION if retention is None else float(retention)
    if parameters is None:
        return SchedulerSettings(desired_retention=retention)
    return SchedulerSettings(parameters=tuple(parameters), desired_retention=retention)


@dataclass(frozen=True)
class FitRecord:
    """A stored fit, as reported: whose, for which lesson, when, on how many reviews."""

    id: int
    learner_id: int | None
    lesson: str | None
    fitted_at: datetime
    review_count: int
    log_loss: float
    default_log_loss: float


@dataclass(frozen=True)
class LoggedReviewRow:
    """One row of a card's log: the review, and the card's state before it as stored."""

    id: int
    rating: int
    reviewed_at: datetime
    before: CardState


@dataclass(frozen=True)
class LoggedCard:
    """One card with its log in review order, as rescheduling reads them."""

    card_id: int
    lesson: str
    state: CardState
    log: tuple[LoggedReviewRow, ...]


def card_state(columns: Sequence[Any]) -> CardState:
    """Build a card's state from its six columns in ``CardState``'s order."""
    state, step, stability, difficulty, due, last_review = columns
    return CardState(state, step, stability, difficulty, due, last_review)


UPDATE_LOG_BEFORE = update(LOGS).where(LOGS.c.id == bindparam("b_log"))
UPDATE_CARD_STATE = update(CARDS).where(CARDS.c.id == bindparam("b_card"))


class SettingsRepository(Repository):
    """Read and write the FSRS parameters and desired retention that schedule a learner's cards."""

    def read_settings(self, learner_id: int, lesson: str) -> SchedulerSettings:
        """Return the settings that schedule ``learner_id``'s cards of ``lesson``."""
        retention, parameters = self.connection.execute(
            READ_SETTINGS, {"learner_id": learner_id, "lesson": lesson}).one()
        return settings_of(retention, parameters)

    def chosen_fit_record(self, learner_id: int | None, lesson: str
                          ) -> FitRecord | None:
        """Return the fit that schedules ``learner_id``'s cards of ``lesson`` (None: defaults).

        ``learner_id`` None asks for everyone's: the fits that schedule a learner with none of
        their own.
        """
        row = self.connection.execute(READ_CHOSEN_FIT,
                                      {"learner_id": learner_id, "lesson": lesson}).first()
        if row is None:
            return None
        return FitRecord(row.id, row.learner_id, row.lesson, row.fitted_at, row.review_count,
                         row.log_loss, row.default_log_loss)

    def add_fit(self, fit: Fit, fitted_at: datetime, learner_id: int | None = None,
                lesson: str | None = None) -> int:
        """Store a fit for everyone (``learner_id`` None) or one learner; return its id."""
        fit_id: int = self.connection.execute(insert(PARAMETERS).returning(PARAMETERS.c.id), {
            "learner_id": learner_id, "lesson": lesson, "parameters": list(fit.parameters),
            "fitted_at": fitted_at, "review_count": fit.review_count, "log_loss": fit.log_loss,
            "default_log_loss": fit.default_log_loss}).scalar_one()
        return fit_id

    def retention_of(self, learner_id: int) -> float:
        """Return the learner's desired retention (the default without a row)."""
        value = self.connection.scalar(select(SETTINGS.c.desired_retention).where(
            SETTINGS.c.learner_id == learner_id))
        return DEFAULT_RETENTION if value is None else float(value)

    def put_retention(self, learner_id: int, retention: float, now: datetime) -> None:
        """Set the learner's desired retention (checked by the caller)."""
        changed = self.connection.execute(
            update(SETTINGS).where(SETTINGS.c.learner_id == learner_id)
            .values(desired_retention=retention, updated_at=now)).rowcount
        if not changed:
            self.connection.execute(insert(SETTINGS), {"learner_id": learner_id,
                                               "desired_retention": retention, "updated_at": now})

    def review_log(self, lesson: str | None = None,
                   learner_id: int | None = None, vouched_only: bool = False
                   ) -> dict[int, list[LoggedReview]]:
        """Read the review log (of one lesson, of one learner), by learner, in review order.

        ``vouched_only`` leaves out the reviews an import brought that no one vouches for.
        """
        query = (select(LOGS.c.learner_id, LOGS.c.card_id, LOGS.c.reviewed_at, LOGS.c.rating)
                 .select_from(LOGS.join(CARDS, CARDS.c.id == LOGS.c.card_id))
                 .order_by(LOGS.c.card_id, LOGS.c.reviewed_at, LOGS.c.id))
        if lesson is not None:
            query = query.where(CARDS.c.lesson == lesson)
        if learner_id is not None:
            query = query.where(LOGS.c.learner_id == learner_id)
        if vouched_only:
            query = query.where(LOGS.c.vouched.is_(True))
        by_learner: dict[int, list[LoggedReview]] = {}
        for learner, card, reviewed_at, rating in self.connection.execute(query):
            by_learner.setdefault(learner, []).append(LoggedReview(card, reviewed_at, rating))
        return by_learner

    def logged_cards(self, learner_id: int, lesson: str | None = None
                     ) -> list[LoggedCard]:
        """Read a learner's cards (of one lesson) that have reviews, each with its log."""
        card_query = select(CARDS.c.id, CARDS.c.lesson, CARDS.c.state, CARDS.c.step,
                            CARDS.c.stability, CARDS.c.difficulty, CARDS.c.due,
                            CARDS.c.last_review).where(CARDS.c.learner_id == learner_id)
        if lesson is not None:
            card_query = card_query.where(CARDS.c.lesson == lesson)
        cards = {row[0]: row for row in self.connection.execute(card_query)}
        logs: dict[int, list[LoggedReviewRow]] = {}
        for row in self.connection.execute(
                select(LOGS.c.id, LOGS.c.card_id, LOGS.c.rating, LOGS.c.reviewed_at,
                       LOGS.c.state_before, LOGS.c.step_before, LOGS.c.stability_before,
                       LOGS.c.difficulty_before, LOGS.c.due_before, LOGS.c.last_review_before)
                .where(LOGS.c.learner_id == learner_id)
                .order_by(LOGS.c.card_id, LOGS.c.reviewed_at, LOGS.c.id)):
            if row[1] in cards:
                logs.setdefault(row[1], []).append(
                    LoggedReviewRow(row[0], row[2], row[3], card_state(row[4:])))
        return [LoggedCard(card_id, cards[card_id][1], card_state(cards[card_id][2:]), tuple(rows))
                for card_id, rows in sorted(logs.items())]

    def write_rescheduled(self, logs: Iterable[tuple[int, CardState]],
                          cards: Iterable[tuple[int, CardState]]) -> None:
        """Write replayed states: each log row's state before its review, each card's after."""
        log_rows = [{"b_log": log_id, "state_before": s.state, "step_before": s.step,
                     "stability_before": s.stability, "difficulty_before": s.difficulty,
                     "due_before": s.due, "last_review_before": s.last_review}
                    for log_id, s in logs]
        card_rows = [{"b_card": card_id, "state": s.state, "step": s.step,
                      "stability": s.stability, "difficulty": s.difficulty, "due": s.due,
                      "last_review": s.last_review} for card_id, s in cards]
        connection = self.connection
        if log_rows:
            connection.execute(UPDATE_LOG_BEFORE, log_rows)
        if card_rows:
            connection.execute(UPDATE_CARD_STATE, card_rows)
