"""Keep learners' reports of problems with questions, each with the variant it was seen on.

Written by the learner who reports; read only by the author's listing (newest first, bounded).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select

from quizsvc.store.models import QuestionReport, ServedVariant, table
from quizsvc.store.repository import Repository

REPORTS, SERVED = table(QuestionReport), table(ServedVariant)


@dataclass(frozen=True)
class StoredReport:
    """A report as stored: the variant ``(question_id, seed, bank_version)``, who and when."""

    id: int
    learner_id: int
    variant_id: str | None
    question_id: str
    lesson: str
    seed: int
    bank_version: str
    reason: str
    text: str
    created_at: datetime


@dataclass(frozen=True)
class ReportedVariant:
    """What a report records of the variant the learner saw."""

    variant_id: str
    question_id: str
    lesson: str
    seed: int
    bank_version: str


class ReportRepository(Repository):
    """Store reports; list them for the author."""

    def variant_of(self, learner_id: int, variant_id: str) -> ReportedVariant | None:
        """Return one of this learner's served variants (None: unknown, or another's)."""
        row = self.connection.execute(
            select(SERVED.c.id, SERVED.c.question_id, SERVED.c.lesson, SERVED.c.seed,
                   SERVED.c.bank_version)
            .where(SERVED.c.id == variant_id, SERVED.c.learner_id == learner_id)).first()
        return None if row is None else ReportedVariant(*row)

    def add(self, learner_id: int, variant: ReportedVariant, reason: str, text: str,
            now: datetime) -> int:
        """Store a report of ``variant``; return its id."""
        found = self.connection.execute(insert(REPORTS).values(
            learner_id=learner_id, variant_id=variant.variant_id,
            question_id=variant.question_id, lesson=variant.lesson, seed=variant.seed,
            bank_version=variant.bank_version, reason=reason, text=text, created_at=now)
            .returning(REPORTS.c.id)).scalar_one()
        return int(found)

    def latest(self, limit: int, question_id: str | None = None) -> list[StoredReport]:
        """List the newest reports (of one question, or all), newest first."""
        query = select(REPORTS).order_by(REPORTS.c.created_at.desc(), REPORTS.c.id.desc())
        if question_id is not None:
            query = query.where(REPORTS.c.question_id == question_id)
        return [StoredReport(row.id, row.learner_id, row.variant_id, row.question_id, row.lesson,
                             row.seed, row.bank_version, row.reason, row.text, row.created_at)
                for row in self.connection.execute(query.limit(limit))]
