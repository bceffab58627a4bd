"""Browse a lesson's flashcards and questions as Anki's Browse does: search, state, history.

Every item of a lesson, in the bank's teaching order, with what this learner has of it: new
or due (and when), the interval its card was last given, mastery (graded questions only:
flashcards and free text are rated, never mastered), the latest answers, and the hold on it.
The search matches every word of the query against the question's id, its zh and en title
(and a flashcard's front), its tags, its rules (id and title), its section and kind;
``is:new``, ``is:due``, ``is:suspended`` and ``is:buried`` filter by state. Pages hold
``PAGE_SIZE`` items.

An item's history lists its attempts with their dates, results and ratings: what each
attempt's own page shows at once, never an answer or anything else not yet revealed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from quizsvc.bank.errors import BankError
from quizsvc.bank.kinds import GRADED
from quizsvc.bank.model import Lesson, Question, QuestionKind, Text
from quizsvc.review.ratings import ReviewRating
from quizsvc.store.holds import Hold
from quizsvc.store.items import LAST_ANSWERS, AnswerRow, CardRow
from quizsvc.study.context import Context
from quizsvc.study.holds import HoldView, hold_view

PAGE_SIZE = 25  # items per page of the browser
STATES = ("new", "due", "scheduled", "suspended", "buried")  # what ``is:`` may name


@dataclass(frozen=True)
class AnswerEntry:
    """One attempt as the browser shows it (no answer: only its result and rating)."""

    attempt_id: int
    session_id: str | None
    submitted_at: datetime
    graded: bool
    correct: bool | None
    score: float | None
    closed_book: bool
    practice: bool
    counts: bool  # vouched for: not an unverified import
    revealed: bool
    rating: str | None


@dataclass(frozen=True)
class ItemState:
    """One item of the lesson and where this learner stands with it."""

    question_id: str
    kind: str
    title: Text
    section: str
    section_title: Text | None
    tags: tuple[str, ...]
    rules: tuple[str, ...]
    status: str  # one of STATES
    due: datetime | None
    interval_days: float | None
    graded: bool
    mastered: bool | None  # None: a kind that is never mastered
    hold: HoldView
    last_answers: tuple[AnswerEntry, ...]


@dataclass(frozen=True)
class ItemPage:
    """One page of a lesson's items matching a search."""

    lesson: str
    title: Text
    query: str
    page: int
    pages: int
    total: int
    size: int
    items: tuple[ItemState, ...]


@dataclass(frozen=True)
class ItemHistory:
    """One item with this learner's every attempt at it, newest first."""

    lesson: str
    item: ItemState
    attempts: tuple[AnswerEntry, ...]


def answer_entry(row: AnswerRow) -> AnswerEntry:
    """Return an attempt as the browser shows it."""
    return AnswerEntry(row.attempt_id, row.session_id, row.submitted_at, row.graded,
                       row.correct, row.score, row.closed_book, row.practice,
                       row.origin != "unverified", row.revealed,
                       ReviewRating(row.rating).word if row.rating else None)


def status_of(card: CardRow | None, hold: HoldView, now: datetime) -> str:
    """Name an item's state: a hold first, then new (no card), due, or scheduled."""
    if hold.suspended:
        return "suspended"
    if hold.buried_until is not None:
        return "buried"
    if card is None:
        return "new"
    return "due" if card.due <= now else "scheduled"


def item_state(lesson: Lesson, q: Question, card: CardRow | None, hold: Hold,
               mastered: bool, answers: list[AnswerRow], now: datetime) -> ItemState:
    """Put together what the browser shows of one item."""
    view = hold_view(hold, now)
    interval = None
    if card is not None and card.last_review is not None:
        interval = round((card.due - card.last_review).total_seconds() / 86400, 2)
    section = next((s.title for s in lesson.sections if s.id == q.section), None)
    graded = q.kind in GRADED
    return ItemState(q.id, str(q.kind), q.title, q.section, section, q.tags, q.rules,
                     status_of(card, view, now), card.due if card else None, interval, graded,
                     mastered if graded else None, view,
                     tuple(answer_entry(row) for row in answers))


def haystack(lesson: Lesson, q: Question, front: Text | None = None) -> str:
    """Return the text a search looks in for ``q`` (and a flashcard's ``front``), folded to
    lower case."""
    words = [q.id, q.title.zh, q.title.en, str(q.kind), q.section, *q.tags, *q.rules]
    if front is not None:
        words += [front.zh, front.en]
    for rule_id in q.rules:
        rule = lesson.rule(rule_id)
        if rule is not None:
            words += [rule.title.zh, rule.title.en]
    for section in lesson.sections:
        if section.id == q.section:
            words += [section.title.zh, section.title.en]
    return "\n".join(words).casefold()


def front_of(ctx: Context, q: Question) -> Text | None:
    """Return a flashcard's front (the same at every seed, shown before any reveal); None for
    other kinds, whose prompts vary with the seed, and never a back."""
    if q.kind != QuestionKind.FLASHCARD:
        return None
    try:
        return ctx.bank.variant(q.id, 0).prompt
    except BankError:  # a flashcard the bank cannot build is still found by its title
        return None


def matches(query: str, text: str, status: str) -> bool:
    """Tell whether every word of ``query`` is in ``text`` (``is:<state>`` names a state)."""
    for word in query.casefold().split():
        if word.startswith("is:") and word[3:] in STATES:
            if status != word[3:]:
                return False
        elif word not in text:
            return False
    return True


def browse(ctx: Context, lesson_id: str, query: str = "", page: int = 1) -> ItemPage:
    """Return one page of a lesson's items matching ``query``, with this learner's states
    (a page past the last shows the last)."""
    lesson = ctx.index.lesson(lesson_id)
    questions = ctx.index.by_lesson.get(lesson_id, ())
    cards: dict[str, CardRow] = {}
    holds: dict[str, Hold] = {}
    mastered: dict[str, bool] = {}
    answers: dict[str, list[AnswerRow]] = {}
    if ctx.identity is not None:
        learner_id = ctx.identity.learner_id
        with ctx.uow.read():
            cards = ctx.uow.items.cards_in(learner_id, lesson_id)
            holds = ctx.uow.holds.holds_in(learner_id, lesson_id)
            mastered = ctx.uow.items.mastered_in(learner_id, lesson_id)
            answers = ctx.uow.items.last_answers_in(learner_id, lesson_id)
    found = []
    for q in questions:
        state = item_state(lesson, q, cards.get(q.id), holds.get(q.id, Hold(q.id, False, None)),
                           mastered.get(q.id, False), answers.get(q.id, []), ctx.now)
        if matches(query, haystack(lesson, q, front_of(ctx, q)), state.status):
            found.append(state)
    pages = max(1, math.ceil(len(found) / PAGE_SIZE))
    page = min(max(page, 1), pages)
    shown = found[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
    return ItemPage(lesson_id, lesson.title, query, page, pages, len(found), PAGE_SIZE,
                    tuple(shown))


def item_history(ctx: Context, question_id: str) -> ItemHistory:
    """Return one item with this learner's attempts at it, newest first (404: not in the
    bank). Nothing here is more than each attempt's page already shows."""
    q = ctx.index.question(question_id)
    lesson = ctx.index.lesson(q.lesson)
    card, hold, mastered, rows = None, Hold(q.id, False, None), False, []
    if ctx.identity is not None:
        learner_id = ctx.identity.learner_id
        with ctx.uow.read():
            card = ctx.uow.items.card_of(learner_id, question_id)
            hold = ctx.uow.holds.hold_of(learner_id, question_id)
            mastered = ctx.uow.items.mastered_of(learner_id, question_id)
            rows = ctx.uow.items.history_of(learner_id, question_id)
    state = item_state(lesson, q, card, hold, mastered, rows[:LAST_ANSWERS], ctx.now)
    return ItemHistory(q.lesson, state, tuple(answer_entry(row) for row in rows))
