"""Let a learner report a problem with a question; list the reports for the author.

A report is stored with the variant it was seen on (question id, seed, bank version), so the
author can rebuild exactly what the learner saw. Only the author's listing reads reports:
no learner ever sees another's.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

from quizsvc.errors import N_, NotFound
from quizsvc.store.reports import StoredReport
from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study.context import Context

Reason = Literal["wrong_answer", "unclear", "typo", "broken", "other"]
REASONS: tuple[Reason, ...] = get_args(Reason)  # the report_question table's check agrees


@dataclass(frozen=True)
class ReportReceipt:
    """What the learner is told of their report."""

    id: int
    question_id: str
    reason: str
    created_at: datetime


def report_problem(ctx: Context, variant_id: str, reason: str, text: str) -> ReportReceipt:
    """Store this learner's report on the question of one of their served variants (404
    for a variant that is not theirs)."""
    with ctx.uow.write():
        variant = ctx.uow.reports.variant_of(ctx.learner_id, variant_id)
        if variant is None:
            raise NotFound(N_("No such variant."), reason="unknown_variant")
        report_id = ctx.uow.reports.add(ctx.learner_id, variant, reason, text.strip(), ctx.now)
    return ReportReceipt(report_id, variant.question_id, reason, ctx.now)


def list_reports(uow: UnitOfWork, limit: int, question_id: str | None = None
                 ) -> list[StoredReport]:
    """List the newest reports for the author (``limit`` bounded by the query schema); the
    author is no learner, so this takes a unit of work, not a learner's context."""
    with uow.read():
        return uow.reports.latest(limit, question_id)
