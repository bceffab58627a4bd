"""Keep a learner's holds on items: suspended (until lifted) or buried (until a day starts).

A hold in force keeps an item out of every serving and due query: those queries add
``held(...)`` as a NOT EXISTS over ``item_hold``'s unique (learner_id, question_id) index,
so each stays one statement. The holds themselves are written under the learner's lock
(``UnitOfWork.locked``), which bumps ``review_seq`` and so renews every kept due tally.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, exists, insert, or_, select, update

from quizsvc.store.models import ItemHold, table
from quizsvc.store.repository import Repository

HOLDS = table(ItemHold)


def held(learner_id: Any, question_id: Any, moment: Any) -> ColumnElement[bool]:
    """Return the condition "a hold keeps this learner's item out at ``moment``" (values or
    correlated columns): suspended, or buried until after ``moment``."""
    return exists().where(HOLDS.c.learner_id == learner_id,
                          HOLDS.c.question_id == question_id,
                          or_(HOLDS.c.suspended.is_(True), HOLDS.c.buried_until > moment))


@dataclass(frozen=True)
class Hold:
    """A learner's hold on one item as stored."""

    question_id: str
    suspended: bool
    buried_until: datetime | None

    def buried(self, now: datetime) -> bool:
        """Tell whether the item is buried at ``now``."""
        return self.buried_until is not None and self.buried_until > now

    def in_force(self, now: datetime) -> bool:
        """Tell whether the hold keeps the item out at ``now``."""
        return self.suspended or self.buried(now)


NO_HOLD = Hold("", False, None)


class HoldRepository(Repository):
    """Read and write a learner's holds on items."""

    def holds_in(self, learner_id: int, lesson: str) -> dict[str, Hold]:
        """Return a learner's holds on one lesson's items, by question."""
        rows = self.connection.execute(
            select(HOLDS.c.question_id, HOLDS.c.suspended, HOLDS.c.buried_until)
            .where(HOLDS.c.learner_id == learner_id, HOLDS.c.lesson == lesson))
        return {row.question_id: Hold(row.question_id, bool(row.suspended), row.buried_until)
                for row in rows}

    def hold_of(self, learner_id: int, question_id: str) -> Hold:
        """Return a learner's hold on one item (``suspended`` false and no burial: none)."""
        row = self.connection.execute(
            select(HOLDS.c.suspended, HOLDS.c.buried_until)
            .where(HOLDS.c.learner_id == learner_id,
                   HOLDS.c.question_id == question_id)).first()
        if row is None:
            return Hold(question_id, False, None)
        return Hold(question_id, bool(row.suspended), row.buried_until)

    def put(self, learner_id: int, lesson: str, hold: Hold, now: datetime) -> None:
        """Store a learner's hold on an item (under the learner's lock: no insert race)."""
        values = {"suspended": hold.suspended, "buried_until": hold.buried_until,
                  "updated_at": now}
        changed = self.connection.execute(
            update(HOLDS).where(HOLDS.c.learner_id == learner_id,
                                HOLDS.c.question_id == hold.question_id).values(values))
        if not changed.rowcount:
            self.connection.execute(insert(HOLDS).values(
                learner_id=learner_id, question_id=hold.question_id, lesson=lesson, **values))
