"""Map a decided answer onto the rows it writes: attempt, card, review log, mastery record.

``answering.decide`` returns values (``NewAttempt``, a ``Review``, a ``MasteryChange``); this
module is the one place that turns them into column values, for the SQLite statements and the
PostgreSQL one alike (``quizsvc.store.answer_statement``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from quizsvc.review.outcome import NEW_ATTEMPT_ID, MasteryChange, Review
from quizsvc.review.scheduling import CardState

CARD_STATE = ("state", "step", "stability", "difficulty", "due", "last_review")
LOG_STATE = tuple(f"{name}_before" for name in CARD_STATE)


@dataclass(frozen=True)
class NewAttempt:
    """One answer as decided, before it is stored: the ``attempt`` row but its id.

    ``revealed_at`` is the answer's own time for a right answer or a self-rated card (shown
    at once) and None for a wrong one (shown once explained). ``practice``: answered soon
    after this question's answer was revealed, so ``closed_book`` is false.
    """

    learner_id: int
    variant_id: str
    question_id: str
    lesson: str
    kind: str
    seed: int
    bank_version: str
    content_key: str | None
    served_at: datetime
    submitted_at: datetime
    duration_ms: int
    answer: Any
    graded: bool
    correct: bool | None
    score: float | None
    misconception_id: str | None
    closed_book: bool
    practice: bool
    revealed_at: datetime | None
    idempotency_key: str
    request_digest: str

    def columns(self) -> dict[str, Any]:
        """Return the ``attempt`` columns this answer is stored with (values as they are:
        ``dataclasses.asdict`` would deep-copy the answer for nothing)."""
        return {**{name: getattr(self, name) for name in NEW_ATTEMPT_FIELDS},
                "explanation": None, "explained_at": None, "origin": "graded",
                "diagnosed_rule": None}


NEW_ATTEMPT_FIELDS = tuple(field.name for field in fields(NewAttempt))


@dataclass(frozen=True)
class AnswerWrite:
    """The rows one answer writes, fully decided, and the conditions it is written on.

    Written only while the learner's ``review_seq`` still holds ``review_seq`` and the variant
    is unanswered and as open-book as ``open_book`` said. ``review`` (None for a self-rated
    answer, reviewed only when rated) goes to card ``card_id``, or to a new card when that is
    None. ``mastery`` may name the new attempt as ``NEW_ATTEMPT_ID``.
    """

    review_seq: int
    open_book: bool
    attempt: NewAttempt
    card_id: int | None = None
    review: Review | None = None
    mastery: MasteryChange | None = None

    @property
    def learner_id(self) -> int:
        """Return the learner whose answer it is."""
        return self.attempt.learner_id


def card_values(after: CardState) -> dict[str, Any]:
    """Return a card state as ``review_card`` column values."""
    return {name: getattr(after, name) for name in CARD_STATE}


def log_values(learner_id: int, entry: Review, duration_ms: int | None, by_learner: bool
               ) -> dict[str, Any]:
    """Return a review as ``review_log`` column values (but its card and attempt)."""
    return {"learner_id": learner_id, "rating": int(entry.rating),
            "reviewed_at": entry.reviewed_at, "duration_ms": duration_ms,
            "rated_by_learner": by_learner,
            **{f"{name}_before": getattr(entry.before, name) for name in CARD_STATE}}


def new_card_values(learner_id: int, question_id: str, lesson: str, entry: Review,
                    created_at: datetime) -> dict[str, Any]:
    """Return a new ``review_card`` row for a first review."""
    return {"learner_id": learner_id, "question_id": question_id, "lesson": lesson,
            "created_at": created_at, **card_values(entry.after)}


def mastery_values(change: MasteryChange, attempt_id: int | None) -> dict[str, Any]:
    """Return the mastery columns a change sets (``attempt_id`` fills in ``NEW_ATTEMPT_ID``)."""
    evidence = [attempt_id if entry == NEW_ATTEMPT_ID else entry for entry in change.evidence]
    return {"mastered": change.mastered, "mastered_at": change.mastered_at,
            "evidence": evidence, "policy": change.policy,
            "evaluated_at": change.evaluated_at}
