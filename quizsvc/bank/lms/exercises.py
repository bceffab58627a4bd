"""Choose the questions and the variants a class takes to an LMS, reproducibly from one seed.

A teacher's export is ``(lesson, questions, variants per question, seeds_from, bank
version)``: the same five give the same variants, so the export can be made again from the
numbers it records. Variants are the contents ``quizsvc.bank.publication`` keeps for what
leaves the server, at seeds in ``[2**48, 2**49)``: the service never serves them, so a class
holding these answers on paper or in an LMS holds none of the variants quizsvc shows. A
question too small to spare a content is not exported.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from quizsvc.bank.catalog import Bank
from quizsvc.bank.errors import BankError, NotFound
from quizsvc.bank.model import Question, Variant
from quizsvc.bank.publication import PUBLISHED_SEEDS, Publication

SEED_FLOOR = PUBLISHED_SEEDS.start  # the service serves only seeds below it
SEED_CEILING = PUBLISHED_SEEDS.stop  # one past the last
MAX_VARIANTS = 50
START_SPAN = 2**40  # where among the published seeds a question's variants start


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


def publishable_variants(bank: Bank, question: Question, n: int, seed: int,
                         publication: Publication | None = None) -> tuple[Variant, ...]:
    """Return up to ``n`` variants of ``question`` that may leave quizsvc, drawn from ``seed``.

    They are distinct published contents (``Publication.variants``), found from a start
    named by the question and ``seed``; a question with few published contents gives fewer.
    A question that publishes nothing is refused.
    """
    if not 1 <= n <= MAX_VARIANTS:
        raise BankError("export", "variants", f"must be between 1 and {MAX_VARIANTS}")
    publication = publication or Publication(bank)
    start = random.Random(f"lms|{question.id}|{seed}").randrange(START_SPAN)
    if not publication.publishes(question):
        raise BankError(question.id, "variants",
                        "asks too few different things to spare any for an export: every "
                        "content it has is kept for closed-book questions")
    chosen = publication.variants(question, n, start)
    if not chosen:
        raise BankError(question.id, "variants", "no usable published variant was found")
    return tuple(chosen)


def graded_questions(bank: Bank, lesson_id: str, question_ids: Sequence[str] | None
                     ) -> list[Question]:
    """Return the questions to export: those named (in that order), else every graded
    question of the lesson that may leave the server, in teaching order. Self-rated kinds
    cannot go to an LMS."""
    bank.lesson_entry(lesson_id)  # NotFound for an unknown lesson
    if not question_ids:
        publication = Publication(bank)
        return [q for q in bank.questions_for(lesson_id)
                if bank.kinds[q.kind].graded and publication.publishes(q)]
    chosen: list[Question] = []
    for question_id in dict.fromkeys(question_ids):
        question = bank.questions.get(question_id)
        if question is None or question.lesson != lesson_id:
            raise NotFound("question", "id",
                           f"no question {question_id[:80]!r} in lesson {lesson_id[:80]!r}")
        if not bank.kinds[question.kind].graded:
            raise BankError("question", "kind",
                            f"{question_id} is a {question.kind} question: it is not graded")
        chosen.append(question)
    return chosen


def exercise_set(bank: Bank, lesson_id: str, question_ids: Sequence[str] | None, n: int,
                 seeds_from: int) -> ExerciseSet:
    """Draw ``n`` publishable variants of each chosen question from ``seeds_from``."""
    if not 0 <= seeds_from < 2**63:
        raise BankError("export", "seeds_from", "must be between 0 and 2**63 - 1")
    publication = Publication(bank)
    items = tuple(ExportItem(question, publishable_variants(bank, question, n, seeds_from,
                                                            publication))
                  for question in graded_questions(bank, lesson_id, question_ids))
    return ExerciseSet(lesson_id, seeds_from, bank.version, items)
