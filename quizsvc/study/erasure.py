"""Erase everything the service holds about a learner, at their request.

A learner's data is theirs: answers, cards, reviews, mastery, self-assessments, settings,
cohort memberships, browsers and link codes all go, in one transaction under the learner's
lock (``quizsvc.store.erasure`` finds them from the schema). Cohort views and item statistics
read only what is stored, so they drop the learner from then on. The caller asks for a
confirmation first and offers the export (``GET /api/export``).
"""

from __future__ import annotations

from quizsvc.study.context import Context


def erase_learner(ctx: Context) -> dict[str, int]:
    """Delete every row of this learner's; return how many went, by table."""
    learner_id = ctx.learner_id
    with ctx.uow.locked(learner_id):
        return ctx.uow.erasure.erase(learner_id)
