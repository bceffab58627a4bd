"""Decide what one answer changes: its fsrs review and its question's mastery record.

Pure functions over values, in the spirit of py-fsrs's ``review_card(card, rating, now)``:
the use case reads what is needed (the card, the mastery record, the question's current run
of graded attempts when the policy needs it), calls these, and hands the result to the answers
repository to write. Nothing here reads a clock, a database or a random source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from quizsvc.review import mastery, scheduling
from quizsvc.review.ratings import ReviewRating
from quizsvc.review.scheduling import DEFAULT_SETTINGS, CardState, SchedulerSettings

# The new attempt has no id until it is written; the mastery evidence names it by this
# stand-in (larger than any row id, so it sorts after every earlier attempt).
NEW_ATTEMPT_ID = 2**62


@dataclass(frozen=True)
class Review:
    """One fsrs review: the rating, when, and the card before and after it."""

    rating: ReviewRating
    reviewed_at: datetime
    before: CardState
    after: CardState


def review(card: CardState | None, rating: ReviewRating, reviewed_at: datetime,
           created_at: datetime, settings: SchedulerSettings = DEFAULT_SETTINGS) -> Review:
    """Review ``card`` under ``settings`` (a new card, due ``created_at``, if there is none)."""
    before = card if card is not None else scheduling.new_card(created_at)
    return Review(rating, reviewed_at, before,
                  scheduling.review(before, rating, reviewed_at, settings))


def review_graded(card: CardState | None, correct: bool, now: datetime,
                  settings: SchedulerSettings = DEFAULT_SETTINGS) -> Review:
    """Review a graded answer's card: Again when wrong, Good when right (Hard/Easy later)."""
    return review(card, scheduling.rating_for_grade(correct), now, now, settings)


@dataclass(frozen=True)
class MasteryRecord:
    """A question's stored mastery record, as the policy needs it (``id`` None: no row)."""

    id: int | None
    mastered: bool


NO_RECORD = MasteryRecord(None, False)


@dataclass(frozen=True)
class MasteryChange:
    """How one graded answer changes its question's mastery row.

    ``action``: "insert" a new row, "update" row ``record_id``, or "lapse" the mastered row.
    ``evidence`` may name the new attempt as ``NEW_ATTEMPT_ID``.
    """

    action: Literal["insert", "update", "lapse"]
    record_id: int | None
    mastered: bool
    mastered_at: datetime | None
    evidence: tuple[int, ...]
    policy: str
    evaluated_at: datetime


def history_needed(record: MasteryRecord, correct: bool, closed_book: bool,
                   right_closed_book_span: tuple[datetime, datetime] | None,
                   submitted_at: datetime) -> bool:
    """Tell whether deciding this answer's mastery change needs the question's current run.

    Only a right closed-book answer to a question not mastered yet can master it, and only
    by pairing with an earlier right closed-book answer far enough away
    (``mastery.partner_possible``); every other answer is decided from the record alone.
    """
    return (mastery.holds(mastery.EVIDENCE, {"correct": correct, "closed_book": closed_book})
            and not record.mastered
            and mastery.partner_possible(right_closed_book_span, submitted_at))


def mastery_change(record: MasteryRecord, answer: mastery.GradedAttempt,
                   run: Sequence[mastery.GradedAttempt], now: datetime
                   ) -> MasteryChange | None:
    """Decide how one new graded answer changes its question's mastery record.

    Incremental, and equal to re-running ``mastery.evaluate`` over the whole history: a wrong
    answer lapses a mastered record; a right open-book answer changes nothing; a right
    closed-book answer can only turn "not mastered" into "mastered", judged on the current
    ``run`` (the graded attempts from the latest wrong one on; the verdict on the run is the
    verdict on the whole history, since a wrong answer resets it). Pass ``run`` empty when
    ``history_needed`` says it is not needed. A row exists once the question was ever
    mastered; ``evaluated_at`` is when its verdict last changed.
    """
    if mastery.holds(mastery.ENDS_RUN, answer):
        if record.id is None or not record.mastered:
            return None
        return MasteryChange("lapse", record.id, False, None, (), mastery.POLICY, now)
    if not mastery.holds(mastery.EVIDENCE, answer) or record.mastered or not run:
        return None
    verdict = mastery.evaluate([*run, answer])
    if not verdict.mastered:
        return None
    return MasteryChange("update" if record.id is not None else "insert", record.id, True,
                         verdict.mastered_at, verdict.evidence, mastery.POLICY, now)
