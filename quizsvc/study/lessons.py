"""List the bank's lessons; open the book on the learner's open questions before reading one.

Reading a lesson (its text, reference page, glossary or Anki deck) while a question of it is
open (served, not yet answered) makes that question open-book: it is still graded but cannot
count toward mastery. Opening the book is a state change, so it is never a side effect of a
read: ``read_lesson`` refuses (409 ``questions_open``) while such questions are open, and
``open_the_book`` (a POST, CSRF-protected like every state change) marks them. A link from
another site can then show the learner a page that asks, and change nothing by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from quizsvc.bank.kinds import GRADED
from quizsvc.bank.model import GlossaryTerm, Question, Rule, Section, Variant
from quizsvc.errors import N_, Conflict
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


@dataclass(frozen=True)
class ClosedBook:
    """Closed-book questions still open: how many, and the session to go back to."""

    open: int
    session_id: str | None


def closed_book(ctx: Context, lesson_id: str | None) -> ClosedBook:
    """Say what is open closed-book (of one lesson, or of any) for a page that asks first."""
    if ctx.identity is None:
        return ClosedBook(0, None)
    learner_id = ctx.identity.learner_id
    with ctx.uow.read():
        # Only graded questions are closed-book: an open flashcard is no reason to ask.
        count = ctx.uow.sessions.open_variants(learner_id, lesson_id, GRADED)
        session_id = (ctx.uow.sessions.session_of_open_variant(learner_id, lesson_id, GRADED)
                      if count else None)
    return ClosedBook(count, session_id)


def require_book_open(ctx: Context, lesson_id: str | None) -> None:
    """Refuse to show answers while closed-book questions are open (409 ``questions_open``)."""
    waiting = closed_book(ctx, lesson_id).open
    if waiting:
        raise Conflict(N_("%(open)s closed-book question(s) are open: reading now would make "
                          "them open-book. Answer them first, or open the book (POST "
                          ".../open-book)."), reason="questions_open", params={"open": waiting})


def read_lesson(ctx: Context, lesson_id: str, lang: str = "zh") -> LessonText:
    """Return a lesson's text; refused while questions of it are open closed-book."""
    lesson = ctx.index.lesson(lesson_id)
    require_book_open(ctx, lesson_id)
    text = ctx.bank.lesson_text(lesson_id, lang)
    return LessonText(lesson.id, lesson.title, lang, text, lesson.sections,
                      ctx.index.by_lesson.get(lesson_id, ()))


def read_reference(ctx: Context, lesson_id: str, lang: str = "zh") -> tuple[LessonText, str]:
    """Return a lesson and its quick reference (markdown; empty if it has none), refused
    like the lesson while questions of it are open closed-book: the page is part of the book."""
    text = read_lesson(ctx, lesson_id, lang)
    return text, ctx.bank.reference_text(lesson_id, lang)


@dataclass(frozen=True)
class GlossaryEntry:
    """A glossary term with the rule that teaches it and the flashcard that drills it."""

    term: GlossaryTerm
    rule: Rule | None
    flashcard: Variant | None


def read_glossary(ctx: Context, lesson_id: str, lang: str = "zh"
                  ) -> tuple[LessonText, list[GlossaryEntry]]:
    """Return a lesson and its glossary, refused like the lesson while questions are open."""
    text = read_lesson(ctx, lesson_id, lang)
    lesson = ctx.index.lesson(lesson_id)
    entries = [GlossaryEntry(term, lesson.rule(term.rule),
                             ctx.bank.variant(term.flashcard, 0) if term.flashcard else None)
               for term in lesson.glossary]
    return text, entries


def open_the_book(ctx: Context, lesson_id: str | None) -> int:
    """Mark this learner's open questions (of a lesson, or all) open-book; return how many.

    The learner asked to read (the lesson, its reference or glossary, its Anki deck) or to
    use the sandbox, which replays any numeric question: they may, but the questions they
    had open no longer count toward mastery.
    """
    if lesson_id is not None:
        ctx.index.lesson(lesson_id)
    if ctx.identity is None:
        return 0
    with ctx.uow.write():
        return ctx.uow.sessions.mark_open_book(ctx.identity.learner_id, lesson_id)
