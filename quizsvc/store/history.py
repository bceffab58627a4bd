"""Read a learner's whole history out for an export, and write an imported one in.

The export reads every attempt, card, review and mastery record of a learner in export order;
the import bulk-inserts a history into an empty learner (under the learner's lock), the
served variants before the attempts that refer to them.
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

    def insert_rows(self, table: Any, rows: list[dict[str, Any]]) -> None:
        """Insert ``rows`` into ``table`` in one executemany (nothing when empty)."""
        if rows:
            self.connection.execute(insert(table), rows)

    def import_history(self, learner_id: int, variants: list[dict[str, Any]],
                       attempts: list[dict[str, Any]], cards: list[dict[str, Any]],
                       logs: list[dict[str, Any]]) -> tuple[list[int], dict[str, int]]:
        """Bulk-insert an imported history into a learner who has none; return the attempts'
        ids in order and the cards' ids by question.

        ``logs`` name their card by ``question_id`` and their attempt by its index in
        ``attempts`` (``attempt_index``). Each table is one executemany; the new ids are then
        read back by the keys the rows already have (an attempt's variant, a card's question),
        which name them alone because the learner had no history. Asking each INSERT to return
        its id in the rows' order instead makes SQLite insert one row per statement: 8,000
        statements for 8,000 attempts, while the learner's lock (on SQLite, the database's one
        writer) is held.
        """
        self.insert_rows(SERVED, variants)  # before the attempts that refer to them
        self.insert_rows(ATTEMPTS, attempts)
        self.insert_rows(CARDS, cards)
        by_variant = {variant_id: attempt_id for variant_id, attempt_id in self.connection.execute(
            select(ATTEMPTS.c.variant_id, ATTEMPTS.c.id)
            .where(ATTEMPTS.c.learner_id == learner_id))}
        attempt_ids = [by_variant[row["variant_id"]] for row in attempts]
        card_ids: dict[str, int] = {question_id: card_id for question_id, card_id in
                                    self.connection.execute(
                                        select(CARDS.c.question_id, CARDS.c.id)
                                        .where(CARDS.c.learner_id == learner_id))}
        self.insert_rows(LOGS, [
            {**{key: value for key, value in log.items()
                if key not in ("question_id", "attempt_index")},
             "card_id": card_ids[log["question_id"]],
             "attempt_id": None if log["attempt_index"] is None
             else attempt_ids[log["attempt_index"]]} for log in logs])
        return attempt_ids, card_ids

    def insert_mastery(self, rows: list[dict[str, Any]]) -> None:
        """Insert mastery records the policy decided for an import."""
        self.insert_rows(MASTERY, rows)

    def optimizer_log(self, learner_id: int) -> Sequence[Any]:
        """Return a learner's reviews, by card then time, with what the fsrs optimizer reads."""
        return self.connection.execute(
            select(LOGS.c.card_id, LOGS.c.reviewed_at, LOGS.c.rating, LOGS.c.state_before,
                   LOGS.c.last_review_before, LOGS.c.duration_ms)
            .where(LOGS.c.learner_id == learner_id)
            .order_by(LOGS.c.card_id, LOGS.c.reviewed_at, LOGS.c.id)).all()
