"""Record what an LMS export took away: the variants a class now holds with their answers.

The exports draw only contents the service never serves (``quizsvc.bank.publication``).
This record holds that promise beyond today's bank: each exported variant's question, content
and seed are kept (``exported_variant``), and serving refuses those contents whatever a later
bank's partition says (``serving.draw_variant``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from quizsvc.bank.content import content_key
from quizsvc.bank.errors import BankError
from quizsvc.bank.errors import NotFound as NoSuchEntry
from quizsvc.bank.lms.exercises import ExerciseSet, exercise_set
from quizsvc.bank.lms.formats import WRITERS
from quizsvc.errors import N_, Invalid, NotFound
from quizsvc.pool import job_runtime
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


EXPORT_WAIT_SECONDS = 60.0  # every graded question at 50 variants replays the ledger often
MEDIA_TYPES = {"moodle": "application/xml", "qti": "application/zip"}
SUFFIXES = {"moodle": "xml", "qti": "zip"}


@dataclass(frozen=True)
class ExportFile:
    """An LMS export as the author downloads it, with the seeds that make it again."""

    data: bytes
    media_type: str
    filename: str
    seeds_from: int
    questions: int
    recorded: int  # variants not recorded as exported before


def export_job(export_format: str, lesson: str, questions: list[str] | None, variants: int,
               lang: str, seeds_from: int | None, now: datetime) -> ExportFile:
    """Draw and write an LMS export, and record its variants as exported (a job for the
    costly-work pool): ``quizsvc export moodle|qti`` through the API, so serving never hands
    out a variant whose answer a class holds. The file is returned only once the record is
    written."""
    runtime = job_runtime()
    start = seeds_from if seeds_from is not None else secrets.randbelow(2**32)
    try:
        exercises = exercise_set(runtime.bank, lesson, questions, variants, start)
        data = WRITERS[export_format](runtime.bank, exercises, lang)
    except NoSuchEntry as error:
        raise NotFound(N_("%(what)s: %(reason)s"), reason="unknown_lesson_or_question",
                       params={"what": error.path, "reason": error.reason}) from None
    except BankError as error:
        raise Invalid(error.field, N_("%(reason)s"), params={"reason": error.reason},
                      reason="unexportable") from None
    with runtime.unit_of_work() as uow:
        uow.deadline = runtime.deadline
        added = record_export(uow, exercises, export_format, now)
    return ExportFile(data, MEDIA_TYPES[export_format],
                      f"{lesson}-{export_format}-{start}.{SUFFIXES[export_format]}", start,
                      len(exercises.items), added)
