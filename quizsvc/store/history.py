"""Read a learner's whole history out for an export, and write an imported one in.

The export reads every attempt, card, review and mastery record of a learner in export order;
the import bulk-inserts a history into the empty learner it stages, part by part (``IMPORTED``),
the served variants before the attempts that refer to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exists, func, insert, select

from quizsvc.store.models import (
    Attempt,
    Mastery,
    ReviewCard,
    ReviewLog,
    ServedVariant,
    table,
)
from quizsvc.store.repository import Repository

ATTEMPTS, SERVED = table(Attempt), table(ServedVariant)
CARDS, LOGS, MASTERY = table(ReviewCard), table(ReviewLog), table(Mastery)
# The parts of an import, in the order they are written (each refers to the ones before).
IMPORTED = {"variants": SERVED, "attempts": ATTEMPTS, "cards": CARDS, "review_log": LOGS,
            "mastery": MASTERY}


@dataclass(frozen=True)
class LearnerHistory:
    """A learner's attempts, cards, review log and mastery records, in export order (rows
    with their columns as attributes)."""

    attempts: Sequence[Any]
    cards: Sequence[Any]
    logs: Sequence[Any]
    mastery: Sequence[Any]


class HistoryRepository(Repository):
    """Read a learner's history out; write an imported one in."""

    def of_learner(self, learner_id: int) -> LearnerHistory:
        """Return a learner's whole history, in export order."""
        conn = self.connection
        return LearnerHistory(
            attempts=conn.execute(select(ATTEMPTS).where(ATTEMPTS.c.learner_id == learner_id)
                                  .order_by(ATTEMPTS.c.submitted_at, ATTEMPTS.c.id)).all(),
            cards=conn.execute(select(CARDS).where(CARDS.c.learner_id == learner_id)
                               .order_by(CARDS.c.question_id)).all(),
            logs=conn.execute(select(LOGS).where(LOGS.c.learner_id == learner_id)
                              .order_by(LOGS.c.reviewed_at, LOGS.c.id)).all(),
            mastery=conn.execute(select(MASTERY).where(MASTERY.c.learner_id == learner_id)
                                 .order_by(MASTERY.c.question_id)).all())

    def attempt_count(self, learner_id: int) -> int:
        """Count a learner's attempts."""
        return self.connection.scalar(select(func.count()).select_from(ATTEMPTS)
                                      .where(ATTEMPTS.c.learner_id == learner_id)) or 0

    def has_history(self, learner_id: int) -> bool:
        """Tell whether a learner holds any attempts or cards."""
        return bool(
            self.connection.scalar(select(exists().where(ATTEMPTS.c.learner_id == learner_id)))
            or self.connection.scalar(select(exists().where(CARDS.c.learner_id == learner_id))))

    def insert_imported(self, part: str, rows: list[dict[str, Any]]) -> None:
        """Insert rows of one part of an import (``IMPORTED``) in one executemany."""
        if rows:
            self.connection.execute(insert(IMPORTED[part]), rows)

    def imported_ids(self, learner_id: int) -> tuple[dict[str, int], dict[str, int]]:
        """Return the ids of an imported learner's attempts by variant and cards by question.

        An import inserts without asking for ids back (asking for them in the rows' order makes
        SQLite insert one row per statement) and reads them here by keys the rows already
        carry, which pick them out alone because the learner holds nothing else.
        """
        attempts = {variant_id: attempt_id for variant_id, attempt_id in self.connection.execute(
            select(ATTEMPTS.c.variant_id, ATTEMPTS.c.id)
            .where(ATTEMPTS.c.learner_id == learner_id))}
        cards = {question_id: card_id for question_id, card_id in self.connection.execute(
            select(CARDS.c.question_id, CARDS.c.id).where(CARDS.c.learner_id == learner_id))}
        return attempts, cards

    def optimizer_log(self, learner_id: int) -> Sequence[Any]:
        """Return a learner's reviews, by card then time, with what the fsrs optimizer reads."""
        return self.connection.execute(
            select(LOGS.c.card_id, LOGS.c.reviewed_at, LOGS.c.rating, LOGS.c.state_before,
                   LOGS.c.last_review_before, LOGS.c.duration_ms)
            .where(LOGS.c.learner_id == learner_id)
            .order_by(LOGS.c.card_id, LOGS.c.reviewed_at, LOGS.c.id)).all()
