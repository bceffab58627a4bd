"""Choose the questions and the variants a class takes to an LMS, reproducibly from one seed.

A teacher's export is ``(lesson, questions, variants per question, seeds_from, bank
version)``: the same five give the same variants, so the export can be made again from the
numbers it records. Variant seeds are drawn from ``[2**48, 2**49)``, a range the service
never serves a learner, so a class holding these answers on paper or in an LMS holds none
of the variants quizsvc shows.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from quizsvc.bank.catalog import Bank
from quizsvc.bank.errors import BankError, NotFound
from quizsvc.bank.model import GRADED, Question, Variant

SEED_FLOOR = 2**48  # the first seed an export may use; the service serves only seeds below it
SEED_CEILING = 2**49  # one past the last
MAX_VARIANTS = 50
DRAWS_PER_VARIANT = 20  # seeds tried per variant wanted before giving up on a question


@dataclass(frozen=True)
class ExportItem:
    """One question and the variants of it an export holds (a Moodle category, a QTI
    section): each student draws one of them."""

    question: Question
    variants: tuple[Variant, ...]

    @property
    def seeds(self) -> tuple[int, ...]:
        """Return the seeds of the variants, in the order they were drawn."""
        return tuple(variant.seed for variant in self.variants)


@dataclass(frozen=True)
class ExerciseSet:
    """What one export holds and the numbers that make it again: the lesson, the seed the
    variant seeds were drawn from, the bank version and, per question, its variants."""

    lesson_id: str
    seeds_from: int
    bank_version: str
    items: tuple[ExportItem, ...]

    def record(self) -> dict[str, object]:
        """Return the numbers that re-create this export, as JSON-able data."""
        return {
            "lesson": self.lesson_id,
            "seeds_from": self.seeds_from,
            "bank_version": self.bank_version,
            "variants": len(self.items[0].variants) if self.items else 0,
            "seed_range": [SEED_FLOOR, SEED_CEILING],
            "questions": {item.question.id: list(item.seeds) for item in self.items},
        }


def publishable_variants(bank: Bank, question: Question, n: int, seed: int
                         ) -> tuple[Variant, ...]:
    """Return ``n`` distinct variants of ``question`` that may leave quizsvc, drawn from ``seed``.

    The seeds come from a random stream named by the question and ``seed`` and lie in
    ``[SEED_FLOOR, SEED_CEILING)``, which the service never serves. A seed whose template
    finds no usable numbers is passed over, as the service passes it over. This is the one
    place that decides which variants may be published: a filter on their content belongs
    here.
    """
    if not 1 <= n <= MAX_VARIANTS:
        raise BankError("export", "variants", f"must be between 1 and {MAX_VARIANTS}")
    rng = random.Random(f"lms|{question.id}|{seed}")
    chosen: list[Variant] = []
    seen: set[int] = set()
    for _ in range(n * DRAWS_PER_VARIANT):
        candidate = rng.randrange(SEED_FLOOR, SEED_CEILING)
        if candidate in seen:
            continue
        seen.add(candidate)
        try:
            chosen.append(bank.variant(question.id, candidate))
        except BankError:
            continue
        if len(chosen) == n:
            return tuple(chosen)
    raise BankError(question.id, "variants",
                    f"found {len(chosen)} usable variants of {n} in {len(seen)} seeds")


def graded_questions(bank: Bank, lesson_id: str, question_ids: Sequence[str] | None
                     ) -> list[Question]:
    """Return the questions to export: those named (in that order), else every graded
    question of the lesson in teaching order. Self-rated kinds cannot go to an LMS."""
    bank.lesson_entry(lesson_id)  # NotFound for an unknown lesson
    if not question_ids:
        return [q for q in bank.questions_for(lesson_id) if q.kind in GRADED]
    chosen: list[Question] = []
    for question_id in dict.fromkeys(question_ids):
        question = bank.questions.get(question_id)
        if question is None or question.lesson != lesson_id:
            raise NotFound("question", "id",
                           f"no question {question_id[:80]!r} in lesson {lesson_id[:80]!r}")
        if question.kind not in GRADED:
            raise BankError("question", "kind",
                            f"{question_id} is a {question.kind} question: it is not graded")
        chosen.append(question)
    return chosen


def exercise_set(bank: Bank, lesson_id: str, question_ids: Sequence[str] | None, n: int,
                 seeds_from: int) -> ExerciseSet:
    """Draw ``n`` publishable variants of each chosen question from ``seeds_from``."""
    if not 0 <= seeds_from < 2**63:
        raise BankError("export", "seeds_from", "must be between 0 and 2**63 - 1")
    items = tuple(ExportItem(question, publishable_variants(bank, question, n, seeds_from))
                  for question in graded_questions(bank, lesson_id, question_ids))
    return ExerciseSet(lesson_id, seeds_from, bank.version, items)
