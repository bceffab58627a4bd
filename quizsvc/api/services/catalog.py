"""Look questions, lessons and sections up in the bank, and read a lesson (which opens the book).

Reading a lesson while a question is open (served, not yet answered) marks that question
open-book: it is still graded but cannot count toward mastery. ``read_lesson`` is the one
place that happens, so the JSON API and the server-rendered lesson page must both call it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import update

from quizsvc.api.services.context import Context
from quizsvc.bank.model import Lesson, Question, QuestionKind, Section
from quizsvc.errors import NotFound
from quizsvc.store.models import ServedVariant

GRADED_KINDS = frozenset({QuestionKind.NUMERIC, QuestionKind.CHOICE, QuestionKind.MULTI,
                          QuestionKind.ORDER, QuestionKind.ANCHOR})
SELF_RATED_KINDS = frozenset({QuestionKind.FLASHCARD, QuestionKind.EXPLAIN})
LANGUAGES = ("zh", "en")


@dataclass(frozen=True)
class BankIndex:
    """Dictionaries over one loaded bank, built once per bank object."""

    bank: Any
    questions: dict[str, Question]
    lessons: dict[str, Lesson]
    sections: dict[str, tuple[str, Section]]  # section id -> (lesson id, section)
    by_lesson: dict[str, tuple[Question, ...]]


_INDEXES: dict[int, BankIndex] = {}


def entries(collection: Any) -> list[Any]:
    """Return the items of a bank collection, whether a mapping by id or a sequence."""
    return list(collection.values() if isinstance(collection, Mapping) else collection)


def index(bank: Any) -> BankIndex:
    """Return the index of ``bank`` (built on first use; banks are immutable once loaded)."""
    found = _INDEXES.get(id(bank))
    if found is not None and found.bank is bank:
        return found
    lessons = {lesson.id: lesson for lesson in entries(bank.lessons)}
    built = BankIndex(
        bank=bank,
        questions={q.id: q for q in entries(bank.questions)},
        lessons=lessons,
        sections={s.id: (lesson.id, s) for lesson in lessons.values() for s in lesson.sections},
        by_lesson={lesson_id: tuple(bank.questions_for(lesson_id)) for lesson_id in lessons},
    )
    _INDEXES[id(bank)] = built
    return built


def question(ctx: Context, question_id: str) -> Question:
    """Return a question of the bank or raise ``NotFound``."""
    found = index(ctx.bank).questions.get(question_id)
    if found is None:
        raise NotFound(f"No question {question_id[:80]!r}.")
    return found


def lesson(ctx: Context, lesson_id: str) -> Lesson:
    """Return a lesson of the bank or raise ``NotFound``."""
    found = index(ctx.bank).lessons.get(lesson_id)
    if found is None:
        raise NotFound(f"No lesson {lesson_id[:80]!r}.")
    return found


@dataclass(frozen=True)
class LessonSummary:
    """A lesson as listed: title, sections and how many questions of each kind it has."""

    id: str
    title: Any
    sections: tuple[Section, ...]
    questions: int
    kinds: dict[str, int]


@dataclass(frozen=True)
class LessonText:
    """A lesson's text in one language, with its sections and questions."""

    id: str
    title: Any
    lang: str
    text: str
    sections: tuple[Section, ...]
    questions: tuple[Question, ...]
    opened_book: int  # open questions this reading turned open-book


def summarise(idx: BankIndex, lesson_entry: Lesson) -> LessonSummary:
    """Count a lesson's questions by kind."""
    kinds: dict[str, int] = {}
    for q in idx.by_lesson.get(lesson_entry.id, ()):
        kinds[str(q.kind)] = kinds.get(str(q.kind), 0) + 1
    return LessonSummary(lesson_entry.id, lesson_entry.title, lesson_entry.sections,
                         sum(kinds.values()), kinds)


def list_lessons(ctx: Context) -> list[LessonSummary]:
    """List the bank's lessons."""
    idx = index(ctx.bank)
    return [summarise(idx, entry) for entry in idx.lessons.values()]


def read_lesson(ctx: Context, lesson_id: str, lang: str = "zh") -> LessonText:
    """Return a lesson's text and mark this learner's open questions of it open-book.

    Call this whenever a learner is shown the lesson text (the JSON endpoint and the lesson
    page both do); it commits.
    """
    entry = lesson(ctx, lesson_id)
    text = ctx.bank.lesson_text(lesson_id, lang)
    opened = open_the_book(ctx, lesson_id)
    ctx.session.commit()
    idx = index(ctx.bank)
    return LessonText(entry.id, entry.title, lang, text, entry.sections,
                      idx.by_lesson.get(lesson_id, ()), opened)


def open_the_book(ctx: Context, lesson_id: str) -> int:
    """Mark this learner's open questions of a lesson open-book; return how many.

    Whatever shows a learner the lesson's text or answers calls it: the lesson (above) and
    the Anki package, which holds the answers. The caller commits.
    """
    return ctx.session.execute(
        update(ServedVariant)
        .where(ServedVariant.learner_id == ctx.learner_id,
               ServedVariant.lesson == lesson_id,
               ServedVariant.answered.is_(False),
               ServedVariant.open_book.is_(False))
        .values(open_book=True)
    ).rowcount or 0
