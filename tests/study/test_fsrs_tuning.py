"""``optimize`` over a database of simulated learners, and rescheduling from the logs.

The logs are put in as the service records them (each row with the card's state before its
review, each card with its state after the last, all under fsrs's defaults). One learner
studies a lot and forgets faster than the rest; two study a little.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc.review import scheduling
from quizsvc.review.optimizer import DEFAULT_PARAMETERS, Fit, NoFit
from quizsvc.review.scheduling import ReviewRating
from quizsvc.store.models import FsrsParameters, Mastery, ReviewCard, ReviewLog
from quizsvc.study import fsrs_tuning
from tests.support.population import Population, SimulatedReview, settings_with, simulate
from tests.support.repos import repos, unit_of_work
from tests.support.simulated_log import put_log

NOW = datetime(2026, 9, 1, 3, 0, tzinfo=UTC)
FAST = settings_with(w0=0.1, w1=0.6, w2=1.2, w3=4.0, w8=2.3)
SLOW = settings_with(w0=0.6, w1=3.5, w2=7.0, w3=25.0, w8=1.3)
MIN_REVIEWS = 300


@pytest.fixture(scope="module")
def reviews() -> list[SimulatedReview]:
    """One learner with a long log who forgets fast; two with short logs who forget slowly."""
    heavy = simulate(Population(FAST, learners=1, cards=200, days=90, new_per_day=10),
                     random.Random(3))
    light = simulate(Population(SLOW, learners=2, cards=20, days=40), random.Random(4),
                     first_learner=1)
    return heavy + light


def cards_of(db: Any, learner_id: int) -> dict[int, tuple]:
    """Return a learner's card states by card id."""
    return {row.id: tuple(row)[1:] for row in db.execute(
        select(ReviewCard.id, ReviewCard.state, ReviewCard.step, ReviewCard.stability,
               ReviewCard.difficulty, ReviewCard.due).where(ReviewCard.learner_id == learner_id))}


def test_optimize_fits_everyone_and_the_learner_with_a_long_log(db, reviews):
    learners = put_log(db, reviews)
    heavy, light = learners[0], learners[1]
    before = {learner: cards_of(db, learner) for learner in learners.values()}
    report = fsrs_tuning.optimize(unit_of_work(db), NOW, min_reviews=MIN_REVIEWS)
    assert isinstance(report.pooled, Fit)
    outcomes = dict(report.learners)
    assert isinstance(outcomes[heavy], Fit)
    assert outcomes[light] == NoFit("too_few_reviews", outcomes[light].review_count,
                                    MIN_REVIEWS)
    assert report.own_fits == 1 and report.rescheduled_learners == 3
    rows = db.scalars(select(FsrsParameters).order_by(FsrsParameters.id)).all()
    assert [(row.learner_id, row.lesson) for row in rows] == [(None, None), (heavy, None)]
    assert rows[0].fitted_at == NOW and rows[0].review_count == report.pooled.review_count
    assert rows[0].log_loss < rows[0].default_log_loss
    # The learner with a long log is scheduled by their own fit, the others by everyone's.
    assert repos(db).settings.read_settings(heavy, "lesson-a").parameters == tuple(
        rows[1].parameters)
    assert repos(db).settings.read_settings(light, "lesson-b").parameters == tuple(
        rows[0].parameters)
    # Their cards were rescheduled from their logs.
    changed = {learner: sum(state != before[learner][card]
                            for card, state in cards_of(db, learner).items())
               for learner in learners.values()}
    assert changed[heavy] > 150 and changed[light] > 15
    assert report.rescheduled_cards == sum(changed.values())


def test_rescheduled_cards_are_what_their_logs_give_under_the_new_settings(db, reviews):
    learners = put_log(db, reviews)
    fsrs_tuning.optimize(unit_of_work(db), NOW, min_reviews=MIN_REVIEWS)
    heavy = learners[0]
    settings = repos(db).settings.read_settings(heavy, "lesson-a")
    card = db.scalars(select(ReviewCard).where(ReviewCard.learner_id == heavy)
                      .order_by(ReviewCard.id)).first()
    logs = db.scalars(select(ReviewLog).where(ReviewLog.card_id == card.id)
                      .order_by(ReviewLog.reviewed_at, ReviewLog.id)).all()
    replayed = scheduling.reschedule(
        [(ReviewRating(log.rating), log.reviewed_at) for log in logs], settings)
    assert (card.stability, card.difficulty, card.due) == (
        replayed.after.stability, replayed.after.difficulty, replayed.after.due)
    assert [(log.stability_before, log.due_before) for log in logs] == [
        (b.stability, b.due) for b in replayed.before]
    # Nothing is left to change: a second rescheduling finds every card as it should be.
    assert rescheduled(db, heavy) == 0


def rescheduled(db: Any, learner_id: int) -> int:
    """Reschedule one learner's cards under the learner's lock; return how many moved."""
    uow = unit_of_work(db)
    with uow.locked(learner_id):
        return fsrs_tuning.reschedule_learner(uow, learner_id)


def test_logs_recorded_under_the_settings_in_force_need_no_rescheduling(db, reviews):
    learners = put_log(db, reviews)
    assert all(rescheduled(db, learner) == 0
               for learner in learners.values())


def test_too_few_reviews_keep_the_defaults_and_store_nothing(db, reviews):
    light = [review for review in reviews if review.learner != 0]
    learners = put_log(db, light)
    before = cards_of(db, learners[1])
    report = fsrs_tuning.optimize(unit_of_work(db), NOW, min_reviews=MIN_REVIEWS)
    assert isinstance(report.pooled, NoFit) and report.pooled.reason == "too_few_reviews"
    assert report.rescheduled_cards == 0 and report.own_fits == 0
    assert db.scalar(select(func.count()).select_from(FsrsParameters)) == 0
    assert cards_of(db, learners[1]) == before
    assert repos(db).settings.read_settings(learners[1], "lesson-a").parameters == (
        DEFAULT_PARAMETERS)


def test_a_lesson_fit_learns_from_and_reschedules_only_that_lesson(db, reviews):
    learners = put_log(db, reviews)
    heavy = learners[0]
    other_lesson = {card_id: state for card_id, state in cards_of(db, heavy).items()
                    if db.get(ReviewCard, card_id).lesson == "lesson-b"}
    report = fsrs_tuning.optimize(unit_of_work(db), NOW, lesson="lesson-a", min_reviews=MIN_REVIEWS)
    assert isinstance(report.pooled, Fit)
    assert report.pooled.review_count < fsrs_tuning.optimizer.review_count(
        [r.logged() for r in reviews])
    rows = db.scalars(select(FsrsParameters)).all()
    assert {row.lesson for row in rows} == {"lesson-a"}
    assert repos(db).settings.read_settings(heavy, "lesson-b").parameters == (
        DEFAULT_PARAMETERS)
    assert {c: s for c, s in cards_of(db, heavy).items() if c in other_lesson} == other_lesson


def test_tuning_never_touches_mastery(db, reviews):
    put_log(db, reviews)
    fsrs_tuning.optimize(unit_of_work(db), NOW + timedelta(days=1), min_reviews=MIN_REVIEWS)
    assert db.scalar(select(func.count()).select_from(Mastery)) == 0


def test_a_rescheduling_splits_into_steps_of_whole_cards():
    state = scheduling.new_card(NOW)

    def card(card_id: int, logs: int) -> fsrs_tuning.ReplayedCard:
        return fsrs_tuning.ReplayedCard(card_id, state, tuple(
            (card_id * 100 + n, state) for n in range(logs)))

    changes = fsrs_tuning.Rescheduled((card(1, 3), card(2, 1), card(3, 5), card(4, 0)))
    assert changes.rows == 4 + 2 + 6 + 1
    steps = changes.steps(5)
    # a step closes once it holds 5 rows or more; no card is split between two
    assert [[c.card_id for c in step.cards] for step in steps] == [[1, 2], [3], [4]]
    assert [c for step in steps for c in step.cards] == list(changes.cards)
    assert fsrs_tuning.Rescheduled(()).steps(5) == [fsrs_tuning.Rescheduled(())]  # one step
