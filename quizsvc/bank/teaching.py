"""Say what the service asks of a question bank: the one interface a use case types its bank by.

``quizsvc.bank.catalog.Bank`` is the bank loaded from ``question_bank/``; the service tests'
small bank (``tests/support/fake_bank.py``) offers the same. A use case reaches the bank only
through these methods, so a new bank source needs nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from quizsvc.bank.answer_key import AnswerKey
from quizsvc.bank.loader import MisconceptionInfo
from quizsvc.bank.model import Grade, Lesson, Question, Variant

if TYPE_CHECKING:
    from quizsvc.bank.catalog import ModelStep
    from quizsvc.bank.examples import WorkedExample


class Teaching(Protocol):
    """A loaded question bank, as the service uses it."""

    version: str
    lessons: Mapping[str, Lesson]
    questions: Mapping[str, Question]

    def questions_for(self, lesson_id: str) -> Sequence[Question]:
        """Return a lesson's questions in teaching order."""
        ...

    def variant(self, question_id: str, seed: int) -> Variant:
        """Return the variant of a question for a seed (the same call, the same variant)."""
        ...

    def grade_key(self, key: AnswerKey, raw_answer: Any) -> Grade:
        """Grade an answer against a variant's stored answer key."""
        ...

    def misconception_info(self, lesson_id: str, misconception_id: str
                           ) -> MisconceptionInfo | None:
        """Return a named wrong model of a lesson's catalogue."""
        ...

    def model_step(self, question_id: str, seed: int, misconception_id: str, lang: str,
                   answer: Any) -> ModelStep | None:
        """Return the asked step as it ran and as a replayed wrong model runs it."""
        ...

    def lesson_text(self, lesson_id: str, lang: str) -> str:
        """Return a lesson's text in one language."""
        ...

    def reference_text(self, lesson_id: str, lang: str) -> str:
        """Return a lesson's quick reference in one language."""
        ...

    def example(self, example_id: str) -> WorkedExample:
        """Return a worked example of the lessons."""
        ...
