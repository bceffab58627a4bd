"""List the bank's lessons and read one, which opens the book on the learner's open questions.

Reading a lesson while a question is open (served, not yet answered) marks that question
open-book: it is still graded but cannot count toward mastery. ``read_lesson`` is the one
place that happens for the lesson text, so the JSON API and the lesson page both call it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from quizsvc.bank.model import Question, Section
from quizsvc.store import sessions as sessions_store
from quizsvc.study.context import Context

LANGUAGES = ("zh", "en")


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


def list_lessons(ctx: Context) -> list[LessonSummary]:
    """List the bank's lessons with their question counts by kind."""
    summaries = []
    for lesson in ctx.index.lessons.values():
        kinds: dict[str, int] = {}
        for q in ctx.index.by_lesson.get(lesson.id, ()):
            kinds[str(q.kind)] = kinds.get(str(q.kind), 0) + 1
        summaries.append(LessonSummary(lesson.id, lesson.title, lesson.sections,
                                       sum(kinds.values()), kinds))
    return summaries


def read_lesson(ctx: Context, lesson_id: str, lang: str = "zh") -> LessonText:
    """Return a lesson's text and mark this learner's open questions of it open-book."""
    lesson = ctx.index.lesson(lesson_id)
    text = ctx.bank.lesson_text(lesson_id, lang)
    opened = open_the_book(ctx, lesson_id)
    return LessonText(lesson.id, lesson.title, lang, text, lesson.sections,
                      ctx.index.by_lesson.get(lesson_id, ()), opened)


def open_the_book(ctx: Context, lesson_id: str) -> int:
    """Mark this learner's open questions of a lesson open-book; return how many; commit.

    Whatever shows a learner the lesson's text or answers calls it: the lesson and the Anki
    package, which holds the answers.
    """
    if ctx.identity is None:
        return 0
    opened = sessions_store.mark_open_book(ctx.db, ctx.identity.learner_id, lesson_id)
    ctx.db.commit()
    return opened
