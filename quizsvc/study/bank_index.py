"""Look questions, lessons and sections up in the loaded bank, by id, in teaching order.

Built once per loaded bank (``quizsvc.runtime`` keeps it beside the bank), so no request
walks the bank's collections.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from quizsvc.bank.kinds import GRADED
from quizsvc.bank.model import Lesson, Question, Section
from quizsvc.bank.publication import Publication
from quizsvc.errors import N_, NotFound


def entries(collection: Any) -> list[Any]:
    """Return the items of a bank collection, whether a mapping by id or a sequence."""
    return list(collection.values() if isinstance(collection, Mapping) else collection)


@dataclass(frozen=True)
class BankIndex:
    """Dictionaries over one loaded bank."""

    questions: dict[str, Question]
    lessons: dict[str, Lesson]
    sections: dict[str, tuple[str, Section]]  # section id -> (lesson id, section)
    by_lesson: dict[str, tuple[Question, ...]]  # in the bank's teaching order
    publication: Publication  # which contents decks and exports take, never served

    @classmethod
    def of(cls, bank: Any) -> BankIndex:
        """Index a loaded bank (``quizsvc.bank.Bank`` or an object with its interface)."""
        lessons = {lesson.id: lesson for lesson in entries(bank.lessons)}
        return cls(
            questions={q.id: q for q in entries(bank.questions)},
            lessons=lessons,
            sections={s.id: (lesson.id, s) for lesson in lessons.values()
                      for s in lesson.sections},
            by_lesson={lesson_id: tuple(bank.questions_for(lesson_id)) for lesson_id in lessons},
            publication=Publication(bank),
        )

    def question(self, question_id: str) -> Question:
        """Return a question of the bank or raise ``NotFound``."""
        found = self.questions.get(question_id)
        if found is None:
            raise NotFound(N_("No question %(question_id)s."), reason="unknown_question",
                           params={"question_id": repr(question_id[:80])})
        return found

    def lesson(self, lesson_id: str) -> Lesson:
        """Return a lesson of the bank or raise ``NotFound``."""
        found = self.lessons.get(lesson_id)
        if found is None:
            raise NotFound(N_("No lesson %(lesson_id)s."), reason="unknown_lesson",
                           params={"lesson_id": repr(lesson_id[:80])})
        return found

    def graded_ids(self, lesson_id: str | None = None) -> list[str]:
        """Return the ids of the graded questions of one lesson (or of all), sorted."""
        lessons = [lesson_id] if lesson_id is not None else list(self.lessons)
        return sorted(q.id for lid in lessons for q in self.by_lesson.get(lid, ())
                      if q.kind in GRADED)
