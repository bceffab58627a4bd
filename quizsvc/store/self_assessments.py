"""Keep each browser's self-assessments: its own 1..4 rating of a question or section.

Opinions, not evidence: nothing here touches attempts, cards or mastery.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, delete, insert, select, update

from quizsvc.store.models import Browser, SelfAssessment, table
from quizsvc.store.repository import Repository

SELF_ASSESSMENTS, BROWSERS = table(SelfAssessment), table(Browser)
COLUMNS = ("ref", "ref_kind", "rating", "note", "updated_at")
ONE = select(SELF_ASSESSMENTS).where(SELF_ASSESSMENTS.c.browser_id == bindparam("b_browser"),
                                     SELF_ASSESSMENTS.c.ref == bindparam("b_ref"))


@dataclass(frozen=True)
class StoredSelfAssessment:
    """One stored self-assessment."""

    ref: str
    ref_kind: str
    rating: int
    note: str | None
    updated_at: datetime


def stored(row: object) -> StoredSelfAssessment:
    """Return a row of the table as a ``StoredSelfAssessment``."""
    return StoredSelfAssessment(*(getattr(row, name) for name in COLUMNS))


class SelfAssessmentRepository(Repository):
    """Keep each browser's self-assessments."""

    def of_browser(self, browser_id: int) -> Sequence[StoredSelfAssessment]:
        """List a browser's self-assessments by ref."""
        rows = self.connection.execute(
            select(SELF_ASSESSMENTS).where(SELF_ASSESSMENTS.c.browser_id == browser_id)
            .order_by(SELF_ASSESSMENTS.c.ref))
        return [stored(row) for row in rows]

    def one(self, browser_id: int, ref: str) -> StoredSelfAssessment | None:
        """Return a browser's rating of ``ref`` (None: it has none)."""
        row = self.connection.execute(ONE, {"b_browser": browser_id, "b_ref": ref}).first()
        return None if row is None else stored(row)

    def put(self, browser_id: int, ref: str, ref_kind: str, rating: int, note: str | None,
            now: datetime) -> tuple[StoredSelfAssessment, bool]:
        """Set a browser's rating of ``ref``; return it and whether it was created."""
        values = {"rating": rating, "note": note, "updated_at": now}
        changed = self.connection.execute(
            update(SELF_ASSESSMENTS)
            .where(SELF_ASSESSMENTS.c.browser_id == browser_id, SELF_ASSESSMENTS.c.ref == ref)
            .values(values)).rowcount
        if not changed:
            self.connection.execute(insert(SELF_ASSESSMENTS).values(
                browser_id=browser_id, ref=ref, ref_kind=ref_kind, **values))
        found = self.one(browser_id, ref)
        assert found is not None
        return found, not changed

    def add_many(self, browser_id: int, rows: Sequence[dict[str, object]]) -> None:
        """Insert self-assessments (``COLUMNS`` each) for a browser (an import)."""
        if rows:
            self.connection.execute(insert(SELF_ASSESSMENTS),
                                    [{"browser_id": browser_id, **row} for row in rows])

    def remove(self, browser_id: int, ref: str | None = None) -> int:
        """Delete a browser's rating of ``ref`` (of every ref when None); return how many."""
        condition = [SELF_ASSESSMENTS.c.browser_id == browser_id]
        if ref is not None:
            condition.append(SELF_ASSESSMENTS.c.ref == ref)
        return self.connection.execute(delete(SELF_ASSESSMENTS).where(*condition)).rowcount or 0

    def ratings(self, browser_id: int) -> dict[str, int]:
        """Return a browser's ratings by ref."""
        rows = self.connection.execute(
            select(SELF_ASSESSMENTS.c.ref, SELF_ASSESSMENTS.c.rating)
            .where(SELF_ASSESSMENTS.c.browser_id == browser_id))
        return {ref: rating for ref, rating in rows}

    def ratings_of_learners(self, learners: Collection[int]) -> list[tuple[int, str, int]]:
        """Return (learner, ref, rating) of every rating made on the learners' browsers,
        oldest first (a later rating of the same ref, on another browser, comes after)."""
        rows = self.connection.execute(
            select(BROWSERS.c.learner_id, SELF_ASSESSMENTS.c.ref, SELF_ASSESSMENTS.c.rating)
            .select_from(SELF_ASSESSMENTS.join(
                BROWSERS, BROWSERS.c.id == SELF_ASSESSMENTS.c.browser_id))
            .where(BROWSERS.c.learner_id.in_(sorted(learners)))
            .order_by(SELF_ASSESSMENTS.c.updated_at, SELF_ASSESSMENTS.c.id))
        return [(learner, ref, rating) for learner, ref, rating in rows]
