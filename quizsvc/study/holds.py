"""Suspend and unsuspend an item, bury it until tomorrow, or unbury it (Anki's Browse).

A suspended item is never served (quiz, review and flashcard sessions alike) and counts in no
due figure until it is unsuspended; a buried one comes back when the next day starts (the UTC
day the forecast counts in, ``review.scheduling.tomorrow``). Neither touches the card's
schedule or the mastery record. A hold is written under the learner's lock, so the kept due
tallies are counted again, and the item's places in sessions not yet served are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from quizsvc.review import scheduling
from quizsvc.store.holds import Hold
from quizsvc.study.context import Context


@dataclass(frozen=True)
class HoldView:
    """An item's hold as the learner sees it now."""

    question_id: str
    suspended: bool
    buried_until: datetime | None  # None: not buried now


def hold_view(hold: Hold, now: datetime) -> HoldView:
    """Return a stored hold as it stands at ``now`` (a past burial is no burial)."""
    return HoldView(hold.question_id, hold.suspended,
                    hold.buried_until if hold.buried(now) else None)


def change_hold(ctx: Context, question_id: str, suspended: bool | None = None,
                buried: bool | None = None) -> HoldView:
    """Suspend or unsuspend (``suspended``), bury until tomorrow or unbury (``buried``) one
    of the bank's questions for this learner (404 for a question the bank lacks)."""
    question = ctx.index.question(question_id)
    with ctx.uow.locked(ctx.learner_id):
        hold = ctx.uow.holds.hold_of(ctx.learner_id, question_id)
        if suspended is not None:
            hold = replace(hold, suspended=suspended)
        if buried is not None:
            hold = replace(hold, buried_until=scheduling.tomorrow(ctx.now) if buried else None)
        ctx.uow.holds.put(ctx.learner_id, question.lesson, hold, ctx.now)
        if hold.in_force(ctx.now):
            ctx.uow.sessions.drop_unserved(ctx.learner_id, question_id)
    return hold_view(hold, ctx.now)


def suspend(ctx: Context, question_id: str, suspended: bool) -> HoldView:
    """Suspend an item (never served until unsuspended), or lift the suspension."""
    return change_hold(ctx, question_id, suspended=suspended)


def bury(ctx: Context, question_id: str, buried: bool) -> HoldView:
    """Bury an item until the next day starts, or unbury it now."""
    return change_hold(ctx, question_id, buried=buried)
