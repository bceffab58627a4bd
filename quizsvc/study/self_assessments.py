"""Keep each browser's self-assessments: its own 1..4 rating of a question or section.

These are opinions, not evidence: stored per browser, listed and cleared by that browser,
read by calibration, and never by the mastery policy (``quizsvc.review.mastery`` takes only
graded attempts, and nothing here calls it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from quizsvc.errors import N_, NotFound
from quizsvc.review.ratings import SelfRating
from quizsvc.store.self_assessments import StoredSelfAssessment
from quizsvc.study.context import Context


@dataclass(frozen=True)
class SelfAssessmentView:
    """One self-assessment as the browser sees it."""

    ref: str
    ref_kind: str
    rating: int
    label: str
    note: str | None
    updated_at: datetime


def view(row: StoredSelfAssessment) -> SelfAssessmentView:
    """Build the view of a stored self-assessment."""
    return SelfAssessmentView(row.ref, row.ref_kind, row.rating, SelfRating(row.rating).word,
                              row.note, row.updated_at)


def ref_kind(ctx: Context, ref: str) -> str:
    """Say whether ``ref`` names a question or a lesson section (404 if neither)."""
    if ref in ctx.index.questions:
        return "question"
    if ref in ctx.index.sections:
        return "section"
    raise NotFound(N_("No question or lesson section %(ref)s."), reason="unknown_ref",
                   params={"ref": repr(ref[:80])})


def put_self_assessment(ctx: Context, ref: str, rating: int, note: str | None
                        ) -> tuple[SelfAssessmentView, bool]:
    """Set this browser's rating of ``ref``; return it and whether it was newly created."""
    kind = ref_kind(ctx, ref)
    with ctx.uow.write():
        row, created = ctx.uow.self_assessments.put(ctx.browser_id, ref, kind, rating,
                                                    note or None, ctx.now)
    return view(row), created


def list_self_assessments(ctx: Context) -> list[SelfAssessmentView]:
    """List this browser's self-assessments."""
    if ctx.identity is None:
        return []
    with ctx.uow.read():
        rows = ctx.uow.self_assessments.of_browser(ctx.identity.browser_id)
    return [view(row) for row in rows]


def get_self_assessment(ctx: Context, ref: str) -> SelfAssessmentView:
    """Return this browser's rating of ``ref`` (404 if it has none)."""
    row = None
    if ctx.identity is not None:
        with ctx.uow.read():
            row = ctx.uow.self_assessments.one(ctx.identity.browser_id, ref)
    if row is None:
        raise NotFound(N_("No self-assessment of %(ref)s in this browser."),
                       reason="unknown_self_assessment", params={"ref": repr(ref[:80])})
    return view(row)


def delete_self_assessment(ctx: Context, ref: str) -> None:
    """Remove this browser's rating of ``ref`` (404 if it has none)."""
    with ctx.uow.write():
        if not ctx.uow.self_assessments.remove(ctx.browser_id, ref):
            raise NotFound(N_("No self-assessment of %(ref)s in this browser."),
                           reason="unknown_self_assessment", params={"ref": repr(ref[:80])})


def clear_self_assessments(ctx: Context) -> int:
    """Remove all of this browser's self-assessments; return how many there were."""
    with ctx.uow.write():
        return ctx.uow.self_assessments.remove(ctx.browser_id)
