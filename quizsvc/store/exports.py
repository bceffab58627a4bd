"""Record the variants an LMS export took away.

``exported_variant`` rows are only added: once a class holds a variant's answer, that stays
true. A variant recorded twice (the same export made again) is recorded once. Serving reads
their contents back with the learner's revealed mistakes, in one statement
(``SessionRepository.contents_to_avoid``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.dialects import postgresql, sqlite

from quizsvc.store.models import ExportedVariant, table
from quizsvc.store.repository import Repository

EXPORTED = table(ExportedVariant)


@dataclass(frozen=True)
class Exported:
    """One variant written into an export."""

    question_id: str
    content_key: str
    seed: int
    bank_version: str


class ExportRepository(Repository):
    """Record exported variants and read their contents back."""

    def record(self, variants: Iterable[Exported], export_format: str, now: datetime) -> int:
        """Record variants written into an export (``moodle`` or ``qti``); return how many
        were not recorded before."""
        rows = [{"question_id": v.question_id, "content_key": v.content_key, "seed": v.seed,
                 "bank_version": v.bank_version, "export_format": export_format,
                 "exported_at": now} for v in variants]
        if not rows:
            return 0
        dialect_insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        statement = dialect_insert(EXPORTED).on_conflict_do_nothing(
            index_elements=[EXPORTED.c.question_id, EXPORTED.c.content_key, EXPORTED.c.seed]
        ).returning(EXPORTED.c.id)
        return sum(self.connection.execute(statement, row).first() is not None
                   for row in rows)

