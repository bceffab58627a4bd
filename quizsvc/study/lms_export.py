"""Record what an LMS export took away: the variants a class now holds with their answers.

The exports draw only contents the service never serves (``quizsvc.bank.publication``).
This record holds that promise beyond today's bank: each exported variant's question, content
and seed are kept (``exported_variant``), and serving refuses those contents whatever a later
bank's partition says (``serving.draw_variant``).
"""

from __future__ import annotations

from datetime import datetime

from quizsvc.bank.content import content_key
from quizsvc.bank.lms.exercises import ExerciseSet
from quizsvc.store.exports import Exported
from quizsvc.store.unit_of_work import UnitOfWork


def exported_variants(exercises: ExerciseSet) -> list[Exported]:
    """Return what to record of every variant an export holds."""
    return [Exported(item.question.id, content_key(variant), variant.seed,
                     variant.bank_version)
            for item in exercises.items for variant in item.variants]


def record_export(uow: UnitOfWork, exercises: ExerciseSet, export_format: str,
                  now: datetime) -> int:
    """Record an export's variants in one write; return how many were not recorded before."""
    with uow.write():
        return uow.exports.record(exported_variants(exercises), export_format, now)
