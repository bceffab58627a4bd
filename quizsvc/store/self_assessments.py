"""Keep each browser's self-assessments: its own 1..4 rating of a question or section.

Opinions, not evidence: nothing here touches attempts, cards or mastery.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from quizsvc.store.models import SelfAssessment


def of_browser(db: Session, browser_id: int) -> Sequence[SelfAssessment]:
    """List a browser's self-assessments by ref."""
    return db.scalars(select(SelfAssessment).where(SelfAssessment.browser_id == browser_id)
                      .order_by(SelfAssessment.ref)).all()


def one(db: Session, browser_id: int, ref: str) -> SelfAssessment | None:
    """Return a browser's rating of ``ref`` (None: it has none)."""
    return db.scalars(select(SelfAssessment).where(SelfAssessment.browser_id == browser_id,
                                                   SelfAssessment.ref == ref)).first()


def put(db: Session, browser_id: int, ref: str, ref_kind: str, rating: int, note: str | None,
        now: datetime) -> tuple[SelfAssessment, bool]:
    """Set a browser's rating of ``ref``; return the row and whether it was created."""
    row = one(db, browser_id, ref)
    created = row is None
    if row is None:
        row = SelfAssessment(browser_id=browser_id, ref=ref, ref_kind=ref_kind)
        db.add(row)
    row.rating = rating
    row.note = note
    row.updated_at = now
    db.flush()
    return row, created


def remove(db: Session, browser_id: int, ref: str | None = None) -> int:
    """Delete a browser's rating of ``ref`` (of every ref when None); return how many."""
    condition = [SelfAssessment.browser_id == browser_id]
    if ref is not None:
        condition.append(SelfAssessment.ref == ref)
    return db.connection().execute(delete(SelfAssessment).where(*condition)).rowcount or 0


def ratings(db: Session, browser_id: int) -> dict[str, int]:
    """Return a browser's ratings by ref."""
    rows = db.execute(select(SelfAssessment.ref, SelfAssessment.rating)
                      .where(SelfAssessment.browser_id == browser_id))
    return {ref: rating for ref, rating in rows}
