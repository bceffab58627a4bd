"""Give question authors what learners never get: whole variants and the bank's contents.

Reached only with the configured ``AUTHOR_TOKEN`` (``quizsvc.api.resources.author`` checks
it); these functions take no learner and touch no learner data.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from quizsvc.study.bank_index import BankIndex


def preview_variant(bank: Any, index: BankIndex, question_id: str, seed: int) -> dict[str, Any]:
    """Return one variant in full: prompt, answer, solution, misconceptions, scenario
    (``seed`` within the bank's ``MAX_SEED``, as the argument schema holds it)."""
    index.question(question_id)
    return dataclasses.asdict(bank.variant(question_id, seed))


def export_bank(bank: Any, index: BankIndex) -> dict[str, Any]:
    """Return the bank's version, lessons and questions (no variants: they are generated)."""
    return {
        "version": str(bank.version),
        "lessons": [dataclasses.asdict(lesson) for lesson in index.lessons.values()],
        "questions": [dataclasses.asdict(q) for q in index.questions.values()],
    }
