"""Keep each browser's self-assessments: its own 1..4 rating of a question or section.

These are opinions, not evidence: stored per browser, listed and cleared by that browser,
read by calibration, and never by the mastery policy (``quizsvc.review.mastery`` takes only
graded attempts, and nothing here calls it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select

from quizsvc.api.services import catalog
from quizsvc.api.services.context import Context
from quizsvc.errors import Invalid, NotFound
from quizsvc.review.calibration import RATING_LABELS
from quizsvc.store.models import SelfAssessment

MAX_NOTE = 2000


@dataclass(frozen=True)
class SelfAssessmentView:
    """One self-assessment as the browser sees it."""

    ref: str
    ref_kind: str
    rating: int
    label: str
    note: str | None
    updated_at: datetime


def view(row: SelfAssessment) -> SelfAssessmentView:
    """Build the view of a stored self-assessment."""
    return SelfAssessmentView(row.ref, row.ref_kind, row.rating, RATING_LABELS[row.rating],
                              row.note, row.updated_at)


def ref_kind(ctx: Context, ref: str) -> str:
    """Say whether ``ref`` names a question or a lesson section (404 if neither)."""
    idx = catalog.index(ctx.bank)
    if ref in idx.questions:
        return "question"
    if ref in idx.sections:
        return "section"
    raise NotFound(f"No question or lesson section {ref[:80]!r}.")


def put_self_assessment(ctx: Context, ref: str, rating: int, note: str | None
                        ) -> tuple[SelfAssessmentView, bool]:
    """Set this browser's rating of ``ref``; return it and whether it was newly created."""
    kind = ref_kind(ctx, ref)
    if rating not in RATING_LABELS:
        raise Invalid("rating", "must be 1 (not yet) .. 4 (solid)")
    if note is not None and len(note) > MAX_NOTE:
        raise Invalid("note", f"at most {MAX_NOTE} characters")
    row = ctx.session.scalars(select(SelfAssessment).where(
        SelfAssessment.browser_id == ctx.browser_id, SelfAssessment.ref == ref)).first()
    created = row is None
    if row is None:
        row = SelfAssessment(browser_id=ctx.browser_id, ref=ref, ref_kind=kind)
        ctx.session.add(row)
    row.rating = rating
    row.note = note or None
    row.updated_at = ctx.now
    ctx.session.commit()
    return view(row), created


def list_self_assessments(ctx: Context) -> list[SelfAssessmentView]:
    """List this browser's self-assessments."""
    rows = ctx.session.scalars(select(SelfAssessment)
                               .where(SelfAssessment.browser_id == ctx.browser_id)
                               .order_by(SelfAssessment.ref))
    return [view(row) for row in rows]


def get_self_assessment(ctx: Context, ref: str) -> SelfAssessmentView:
    """Return this browser's rating of ``ref`` (404 if it has none)."""
    row = ctx.session.scalars(select(SelfAssessment).where(
        SelfAssessment.browser_id == ctx.browser_id, SelfAssessment.ref == ref)).first()
    if row is None:
        raise NotFound(f"No self-assessment of {ref[:80]!r} in this browser.")
    return view(row)


def delete_self_assessment(ctx: Context, ref: str) -> None:
    """Remove this browser's rating of ``ref`` (404 if it has none)."""
    deleted = ctx.session.execute(delete(SelfAssessment).where(
        SelfAssessment.browser_id == ctx.browser_id, SelfAssessment.ref == ref)).rowcount
    if not deleted:
        ctx.session.rollback()
        raise NotFound(f"No self-assessment of {ref[:80]!r} in this browser.")
    ctx.session.commit()


def clear_self_assessments(ctx: Context) -> int:
    """Remove all of this browser's self-assessments; return how many there were."""
    deleted = ctx.session.execute(delete(SelfAssessment).where(
        SelfAssessment.browser_id == ctx.browser_id)).rowcount
    ctx.session.commit()
    return deleted or 0
