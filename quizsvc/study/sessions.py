"""Start closed-book study sessions and report their progress.

A session picks due reviews first, then new questions, when it starts (quiz mode then tops up
with the graded questions due soonest; flashcards mode takes only flashcards). Its questions
are then served one by one (``quizsvc.study.serving``).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, get_args

from quizsvc.bank.kinds import GRADED
from quizsvc.bank.model import Question, QuestionKind, Text
from quizsvc.errors import N_, Invalid, NotFound
from quizsvc.review.ratings import ReviewRating
from quizsvc.store import sessions as store
from quizsvc.study.context import Context
from quizsvc.study.limits import MAX_OPEN_SESSIONS

# The kinds of session; the argument schemas refuse any other (``http.arguments``).
Mode = Literal["review", "quiz", "flashcards"]
MODES: tuple[Mode, ...] = get_args(Mode)


def opaque_id(ctx: Context) -> str:
    """Return a new 128-bit url-safe id from the context's random source."""
    return base64.urlsafe_b64encode(ctx.rng.getrandbits(128).to_bytes(16, "big")
                                    ).rstrip(b"=").decode()


@dataclass(frozen=True)
class SessionView:
    """A study session as the client sees it."""

    id: str
    lesson: str
    mode: str
    size: int
    total: int
    answered: int
    due: int
    new: int
    practice: int
    created_at: datetime

    @property
    def done(self) -> bool:
        """Tell whether every question of the session has been answered."""
        return self.answered >= self.total


def wanted_in(mode: str, kind: str) -> bool:
    """Tell whether a session of ``mode`` serves questions of ``kind``."""
    if mode == "quiz":
        return kind in GRADED
    if mode == "flashcards":
        return kind == QuestionKind.FLASHCARD
    return True


def start_session(ctx: Context, lesson: str, mode: Mode, size: int,
                  retry_of: str | None = None) -> SessionView:
    """Start a session of up to ``size`` questions of ``lesson``: due first, then new.

    Review mode serves every kind that is due or new (spaced repetition); flashcards mode
    does the same for flashcards alone (front, reveal, four self-ratings, nothing graded in
    between); quiz mode leaves out self-rated cards and, when short, adds the graded
    questions due soonest. New questions come in the bank's teaching order. A learner keeps
    at most ``MAX_OPEN_SESSIONS`` unfinished sessions: starting another drops the oldest,
    with the variants served in it and never answered.

    ``retry_of`` names an earlier session of this learner: the new one serves that
    session's mistakes again (graded questions answered wrong, up to ``size``), as practice.
    """
    max_size = ctx.limits.max_session_size
    if not 1 <= size <= max_size:
        raise Invalid("size", N_("must be between %(min)s and %(max)s"), reason="range",
                      params={"min": 1, "max": max_size})
    if lesson not in ctx.index.lessons:
        raise Invalid("lesson", N_("unknown lesson"), reason="unknown_lesson")
    if retry_of is not None:
        return start_retry(ctx, lesson, mode, size, retry_of)
    candidates = [q for q in ctx.index.by_lesson[lesson] if wanted_in(mode, q.kind)]
    with ctx.uow.write():
        cards = ctx.uow.progress.card_dues(ctx.learner_id, lesson, ctx.now)
        return create(ctx, lesson, mode, size, picked_items(mode, size, candidates, cards,
                                                             ctx.now))


def picked_items(mode: str, size: int, candidates: list[Question],
                 cards: list[tuple[str, datetime | None]], now: datetime
                 ) -> list[tuple[str, str]]:
    """Pick a session's items from the learner's cards: due first, then new, then (quiz mode)
    the graded questions due soonest. An item a hold keeps out (due ``None``: suspended, or
    buried until tomorrow) is never picked."""
    wanted = {q.id for q in candidates}
    known = {question_id for question_id, _ in cards}
    due = [qid for qid, due_at in cards if qid in wanted and due_at is not None
           and due_at <= now]
    new = [q.id for q in candidates if q.id not in known]
    picked: list[tuple[str, str]] = [(qid, "due") for qid in due[:size]]
    picked += [(qid, "new") for qid in new[: size - len(picked)]]
    if mode == "quiz" and len(picked) < size:
        chosen = {qid for qid, _ in picked}
        later = [qid for qid, due_at in cards if qid in wanted and qid not in chosen
                 and due_at is not None]
        picked += [(qid, "practice") for qid in later[: size - len(picked)]]
    return picked


def start_retry(ctx: Context, lesson: str, mode: str, size: int, retry_of: str
                ) -> SessionView:
    """Start a session of an earlier session's mistakes (422 ``retry_of`` when it has none)."""
    with ctx.uow.write():
        earlier = owned_or_invalid(ctx, retry_of)
        if earlier.session.lesson != lesson:
            raise Invalid("retry_of", N_("is a session of another lesson"),
                          reason="other_lesson")
        mistakes = [outcome.question_id
                    for outcome in ctx.uow.sessions.session_outcomes(ctx.learner_id, retry_of)
                    if outcome.graded and outcome.correct is False
                    and outcome.question_id in ctx.index.questions
                    and wanted_in(mode, ctx.index.questions[outcome.question_id].kind)]
        if not mistakes:
            raise Invalid("retry_of", N_("has no mistakes to review"), reason="no_mistakes")
        return create(ctx, lesson, mode, size, [(qid, "practice") for qid in mistakes[:size]])


def owned_or_invalid(ctx: Context, session_id: str) -> store.SessionState:
    """Read a session named in a request body: unknown is the body's fault (422)."""
    try:
        return owned_session(ctx, session_id)
    except NotFound:
        raise Invalid("retry_of", N_("no such session"), reason="unknown_session") from None


def create(ctx: Context, lesson: str, mode: str, size: int,
           picked: list[tuple[str, str]]) -> SessionView:
    """Store a new session of the ``picked`` (question, reason) items (in the open write)."""
    stored = store.StoredSession(opaque_id(ctx), ctx.learner_id, lesson, mode, size, ctx.now)
    ctx.uow.sessions.drop_oldest_unfinished(ctx.learner_id, keep=MAX_OPEN_SESSIONS - 1)
    ctx.uow.sessions.create_session(stored, picked)
    reasons = [reason for _, reason in picked]
    return SessionView(stored.id, lesson, mode, size, len(picked), 0, reasons.count("due"),
                       reasons.count("new"), reasons.count("practice"), ctx.now)


@dataclass(frozen=True)
class StartCounts:
    """What a session of one mode would find now, over every lesson: due and new questions
    (an item a hold keeps out is neither)."""

    mode: str
    due_now: int
    new: int
    seen: int  # questions of these kinds this learner has a card for
    held: int = 0  # held questions of these kinds without a card (neither new nor seen)

    @property
    def total(self) -> int:
        """Count every question of the kinds the mode serves."""
        return self.new + self.seen + self.held


def start_counts(ctx: Context, mode: Mode) -> StartCounts:
    """Count the due and new questions of the kinds a session of ``mode`` serves.

    The start pages show it, so a flashcards page counts flashcards and a quiz page graded
    questions, as ``start_session`` picks them.
    """
    return counts_of(ctx, mode, lambda kind: wanted_in(mode, kind))


def counts_of(ctx: Context, name: str, wanted: Callable[[str], bool]) -> StartCounts:
    """Count the due and new questions of the ``wanted`` kinds, under ``name``."""
    ids = sorted(q.id for questions in ctx.index.by_lesson.values() for q in questions
                 if wanted(q.kind))
    if ctx.identity is None:
        return StartCounts(name, 0, len(ids), 0)
    with ctx.uow.read():
        cards, due_now, held = ctx.uow.progress.card_counts(ctx.learner_id, ids, ctx.now)
    return StartCounts(name, due_now, len(ids) - cards - held, cards, held)


def home_counts(ctx: Context) -> dict[str, StartCounts]:
    """Count the questions by how they are studied, in rows that add up to the whole: graded
    (``quiz``), ``flashcards``, ``written`` explanations (served by review alone) and
    ``review``, which serves them all."""
    return {"quiz": start_counts(ctx, "quiz"),
            "flashcards": start_counts(ctx, "flashcards"),
            "written": counts_of(ctx, "written", lambda kind: not (
                wanted_in("quiz", kind) or wanted_in("flashcards", kind))),
            "review": start_counts(ctx, "review")}


def owned_session(ctx: Context, session_id: str) -> store.SessionState:
    """Read one of this learner's sessions with its items (in the open transaction), or
    raise ``NotFound``."""
    found = (None if ctx.identity is None
             else ctx.uow.sessions.session_state(ctx.identity.learner_id, session_id))
    if found is None:
        raise NotFound(N_("No such session."), reason="unknown_session")
    return found


def session_view(state: store.SessionState) -> SessionView:
    """Return a session with its counts."""
    stored, counts = state.session, state.counts()
    return SessionView(stored.id, stored.lesson, stored.mode, stored.size, counts.total,
                       counts.answered, counts.due, counts.new, counts.practice,
                       stored.created_at)


def get_session(ctx: Context, session_id: str) -> SessionView:
    """Return one of this learner's sessions with its progress."""
    with ctx.uow.read():
        return session_view(owned_session(ctx, session_id))


@dataclass(frozen=True)
class SummaryItem:
    """One question of a finished session: how the answer went and where the question stands."""

    position: int
    question_id: str
    kind: str
    title: Text
    section: str
    attempt_id: int | None
    graded: bool
    correct: bool | None
    score: float | None
    closed_book: bool
    revealed: bool
    rating: str | None
    due: datetime | None
    mastered: bool
    mastered_in_session: bool

    @property
    def can_master(self) -> bool:
        """Tell whether the question can become mastery at all (a graded kind; flashcards and
        written explanations are self-rated and never do)."""
        return self.kind in GRADED


@dataclass(frozen=True)
class SessionSummary:
    """The end of a session: the score, every item, the next due review, what was mastered.

    ``right`` of ``graded`` counts server-graded answers only (flashcards and explanations
    are rated, not graded); ``mistakes`` are the graded items answered wrong, which a
    ``retry_of`` session serves again.
    """

    session: SessionView
    items: tuple[SummaryItem, ...]
    right: int
    graded: int
    next_due: datetime | None
    mastered_now: tuple[str, ...]
    mistakes: tuple[str, ...]


def session_summary(ctx: Context, session_id: str) -> SessionSummary:
    """Return the summary of one of this learner's sessions (finished or not).

    One read of the items with their attempts, review logs, cards and mastery records. Only
    the items served so far are listed: what a session will ask is not shown before it asks.
    """
    with ctx.uow.read():
        view = session_view(owned_session(ctx, session_id))
        outcomes = ctx.uow.sessions.session_outcomes(ctx.learner_id, session_id)
    items = []
    for outcome in outcomes:
        question = ctx.index.questions.get(outcome.question_id)
        if question is None or not outcome.served:  # gone from the bank, or not asked yet
            continue
        mastered_at = outcome.mastered_at
        items.append(SummaryItem(
            outcome.position, outcome.question_id, str(question.kind), question.title,
            question.section, outcome.attempt_id, bool(outcome.graded), outcome.correct,
            outcome.score, bool(outcome.closed_book), outcome.revealed,
            ReviewRating(outcome.rating).word if outcome.rating else None, outcome.due,
            bool(outcome.mastered),
            bool(outcome.mastered) and mastered_at is not None
            and mastered_at >= view.created_at))
    graded = [item for item in items if item.graded and item.attempt_id is not None]
    dues = [item.due for item in items if item.due is not None]
    return SessionSummary(
        view, tuple(items), sum(1 for item in graded if item.correct), len(graded),
        min(dues) if dues else None,
        tuple(item.question_id for item in items if item.mastered_in_session),
        tuple(item.question_id for item in graded if item.correct is False))
