"""Put simulated reviews into a database as the service records them.

Each log row carries the card's state before its review and each card its state after the
last, all replayed under ``settings`` (fsrs's defaults: what the service schedules with
before any fit). Cards alternate between two lessons.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert

from quizsvc.review import scheduling
from quizsvc.review.scheduling import ReviewRating, SchedulerSettings
from quizsvc.store.models import Learner, ReviewCard, ReviewLog
from tests.support.population import SimulatedReview

LESSONS = ("lesson-a", "lesson-b")


def put_log(db: Any, reviews: list[SimulatedReview],
            settings: SchedulerSettings = scheduling.DEFAULT_SETTINGS,
            lessons: tuple[str, str] = LESSONS,
            learners: dict[int, int] | None = None) -> dict[int, int]:
    """Insert simulated reviews (``db``: a session or connection); return learner -> id.

    ``learners`` maps simulated learners to existing learner rows; others get new rows.
    """
    learners = dict(learners or {})
    by_card: dict[int, list[SimulatedReview]] = {}
    for review in reviews:
        by_card.setdefault(review.card, []).append(review)
        if review.learner not in learners:
            learners[review.learner] = db.execute(insert(Learner).values(
                created_at=review.reviewed_at)).inserted_primary_key[0]
    log_rows = []
    for card, card_reviews in by_card.items():
        replayed = scheduling.reschedule(
            [(ReviewRating(r.rating), r.reviewed_at) for r in card_reviews], settings)
        learner_id = learners[card_reviews[0].learner]
        card_id = db.execute(insert(ReviewCard).values(
            learner_id=learner_id, question_id=f"q{card}", lesson=lessons[card % 2],
            created_at=card_reviews[0].reviewed_at, **state_of(replayed.after))
        ).inserted_primary_key[0]
        log_rows += [{"card_id": card_id, "learner_id": learner_id, "rating": r.rating,
                      "reviewed_at": r.reviewed_at, "duration_ms": 5000,
                      "rated_by_learner": True,
                      **{f"{k}_before": v for k, v in state_of(before).items()}}
                     for r, before in zip(card_reviews, replayed.before, strict=True)]
    db.execute(insert(ReviewLog), log_rows)
    return learners


def state_of(card: scheduling.CardState) -> dict[str, Any]:
    """Return a card state as column values."""
    return {"state": card.state, "step": card.step, "stability": card.stability,
            "difficulty": card.difficulty, "due": card.due, "last_review": card.last_review}
