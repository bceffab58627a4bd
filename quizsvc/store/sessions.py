"""Keep study sessions, their items and the variants served for them.

A session is an ordered list of questions picked when it starts; serving an item stores a
``served_variant`` (the seed and sealed answer key never leave the server) and points the
item at it. Reading the lesson or using the sandbox while a variant is open (served, not yet
answered) marks it open-book here.
"""

from __future__ import annotations

import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    bindparam,
    cast,
    delete,
    exists,
    func,
    insert,
    literal,
    null,
    select,
    union_all,
    update,
)

from quizsvc.store.models import (
    Attempt,
    ExportedVariant,
    Mastery,
    ReviewCard,
    ReviewLog,
    ServedVariant,
    SessionItem,
    StudySession,
    table,
)
from quizsvc.store.repository import Repository, Stale

SESSIONS, ITEMS = table(StudySession), table(SessionItem)
SERVED = table(ServedVariant)
ATTEMPTS, LOGS = table(Attempt), table(ReviewLog)
CARDS, MASTERY = table(ReviewCard), table(Mastery)


@dataclass(frozen=True)
class StoredSession:
    """A study session as stored."""

    id: str
    learner_id: int
    lesson: str
    mode: str
    size: int
    created_at: datetime


@dataclass(frozen=True)
class ItemCounts:
    """A session's items by reason, and how many are answered."""

    due: int
    new: int
    practice: int
    answered: int

    @property
    def total(self) -> int:
        """Return how many items the session holds."""
        return self.due + self.new + self.practice


@dataclass(frozen=True)
class NextItem:
    """A session's first unanswered item, with its variant if one was served already."""

    id: int
    position: int
    question_id: str
    variant_id: str | None
    seed: int | None
    served_at: datetime | None


@dataclass(frozen=True)
class PracticeVariant:
    """A variant served as practice, outside any session ("try a new variant"), and the
    attempt that answered it (None: still open)."""

    id: str
    question_id: str
    seed: int
    bank_version: str
    served_at: datetime
    attempt_id: int | None


SERVE_VARIANT = insert(SERVED)
CLAIM_ITEM = (update(ITEMS)
              .where(ITEMS.c.id == bindparam("b_item"), ITEMS.c.variant_id.is_(None))
              .values(variant_id=bindparam("b_variant")))


@functools.lru_cache(maxsize=4)
def serve_and_claim(columns: tuple[str, ...]) -> Any:
    """Build, once per set of columns, PostgreSQL's one statement that claims an item for a
    variant and stores the variant only if the claim held (``RETURNING`` its id).

    The variant's values bind as ``v_<column>``: an INSERT keeps its columns' own names for
    itself."""
    claimed = (update(ITEMS)
               .where(ITEMS.c.id == bindparam("b_item"), ITEMS.c.variant_id.is_(None))
               .values(variant_id=bindparam("b_variant")).returning(ITEMS.c.id).cte("claimed"))
    rows = select(*(bindparam(f"v_{name}", type_=SERVED.c[name].type).label(name)
                    for name in columns)).where(exists(select(claimed.c.id)))
    return (insert(SERVED).from_select(list(columns), rows).add_cte(claimed)
            .returning(SERVED.c.id))


SESSION_BY_ID = select(SESSIONS).where(SESSIONS.c.id == bindparam("b_session"))


@dataclass(frozen=True)
class ItemState:
    """One item of a session with its served variant, if any."""

    id: int
    position: int
    question_id: str
    reason: str
    variant_id: str | None
    seed: int | None
    served_at: datetime | None
    answered: bool


@dataclass(frozen=True)
class SessionState:
    """A session with all its items in order: what serving and the counts need, in one read."""

    session: StoredSession
    items: tuple[ItemState, ...]

    def counts(self) -> ItemCounts:
        """Count the items by reason, and the answered ones."""
        by_reason = {"due": 0, "new": 0, "practice": 0}
        for item in self.items:
            by_reason[item.reason] = by_reason.get(item.reason, 0) + 1
        return ItemCounts(by_reason["due"], by_reason["new"], by_reason["practice"],
                          sum(item.answered for item in self.items))

    def next_item(self) -> NextItem | None:
        """Return the first item whose variant is not answered (None: all are)."""
        for item in self.items:
            if not item.answered:
                return NextItem(item.id, item.position, item.question_id, item.variant_id,
                                item.seed, item.served_at)
        return None


SESSION_STATE = (
    select(SESSIONS.c.id, SESSIONS.c.learner_id, SESSIONS.c.lesson, SESSIONS.c.mode,
           SESSIONS.c.size, SESSIONS.c.created_at, ITEMS.c.id.label("item_id"),
           ITEMS.c.position, ITEMS.c.question_id, ITEMS.c.reason, SERVED.c.id.label("variant_id"),
           SERVED.c.seed, SERVED.c.served_at, SERVED.c.answered)
    .select_from(SESSIONS.outerjoin(ITEMS, ITEMS.c.session_id == SESSIONS.c.id)
                 .outerjoin(SERVED, SERVED.c.id == ITEMS.c.variant_id))
    .where(SESSIONS.c.id == bindparam("b_session"))
    .order_by(ITEMS.c.position))


RECENTLY_REVEALED = 8  # a question's latest revealed mistakes that serving steers away from

# The learner's latest wrong answers to a question, once revealed (latest first).
_REVEALED = (
    select(ATTEMPTS.c.content_key, ATTEMPTS.c.revealed_at, ATTEMPTS.c.id)
    .where(ATTEMPTS.c.learner_id == bindparam("b_learner"),
           ATTEMPTS.c.question_id == bindparam("b_question"),
           ATTEMPTS.c.correct.is_(False), ATTEMPTS.c.revealed_at.is_not(None),
           ATTEMPTS.c.content_key.is_not(None))
    .order_by(ATTEMPTS.c.revealed_at.desc(), ATTEMPTS.c.id.desc()).limit(RECENTLY_REVEALED)
    .subquery())
_EXPORTED = table(ExportedVariant)
# What serving a question steers away from, in one statement (asked for every question served
# afresh): the learner's latest revealed mistakes (latest first), then the contents an LMS
# export took away (``exported`` = 1; found by the unique constraint's leading column).
CONTENTS_TO_AVOID = (
    union_all(
        select(literal(0).label("exported"), _REVEALED.c.content_key,
               _REVEALED.c.revealed_at, _REVEALED.c.id),
        select(literal(1), _EXPORTED.c.content_key, cast(null(), ATTEMPTS.c.revealed_at.type),
               cast(null(), ATTEMPTS.c.id.type)).distinct()
        .where(_EXPORTED.c.question_id == bindparam("b_question")))
    .order_by("exported", _REVEALED.c.revealed_at.desc(), _REVEALED.c.id.desc()))


@dataclass(frozen=True)
class ContentsToAvoid:
    """What serving a question steers away from: the contents of the learner's latest
    revealed mistakes (latest first) and the contents that left the server in an export."""

    revealed: tuple[str, ...]
    exported: frozenset[str]


@dataclass(frozen=True)
class ItemOutcome:
    """One item of a session with how it went, for the end-of-session summary: the attempt
    (if answered), and the question's card and mastery record as they stand now."""

    position: int
    question_id: str
    reason: str
    served: bool  # a variant was served for it (an unserved item shows nothing of itself)
    attempt_id: int | None
    graded: bool | None
    correct: bool | None
    score: float | None
    closed_book: bool | None
    revealed: bool
    rating: int | None
    due: datetime | None
    mastered: bool | None
    mastered_at: datetime | None


def open_condition(learner_id: int, lesson: str | None, kinds: Collection[str] | None
                   ) -> list[Any]:
    """Return the conditions of a learner's served variants still open closed-book (a
    variant served as practice is not closed-book)."""
    condition = [SERVED.c.learner_id == learner_id, SERVED.c.answered.is_(False),
                 SERVED.c.open_book.is_(False), SERVED.c.practice.is_(False)]
    if lesson is not None:
        condition.append(SERVED.c.lesson == lesson)
    if kinds is not None:
        condition.append(SERVED.c.kind.in_(sorted(kinds)))
    return condition


class SessionRepository(Repository):
    """Keep study sessions, their items and the variants served for them."""

    def create_session(self, session: StoredSession,
                       picked: Sequence[tuple[str, str]]) -> None:
        """Store a new session and its items (``picked``: question id and reason, in order)."""
        self.connection.execute(insert(SESSIONS).values(id=session.id,
                                                        learner_id=session.learner_id,
                                           lesson=session.lesson, mode=session.mode,
                                           size=session.size, created_at=session.created_at))
        if picked:
            self.connection.execute(insert(ITEMS), [
                {"session_id": session.id, "position": position, "question_id": question_id,
                 "reason": reason}
                for position, (question_id, reason) in enumerate(picked, start=1)])

    def session_of(self, learner_id: int, session_id: str) -> StoredSession | None:
        """Return one of this learner's sessions (None: unknown, or another learner's)."""
        row = self.connection.execute(SESSION_BY_ID, {"b_session": session_id}).first()
        if row is None or row.learner_id != learner_id:
            return None
        return StoredSession(row.id, row.learner_id, row.lesson, row.mode, row.size, row.created_at)

    def session_state(self, learner_id: int, session_id: str) -> SessionState | None:
        """Read one of this learner's sessions with its items (None: unknown, or another's)."""
        rows = self.connection.execute(SESSION_STATE, {"b_session": session_id}).all()
        if not rows or rows[0].learner_id != learner_id:
            return None
        first = rows[0]
        session = StoredSession(first.id, first.learner_id, first.lesson, first.mode, first.size,
                                first.created_at)
        return SessionState(session, tuple(
            ItemState(row.item_id, row.position, row.question_id, row.reason, row.variant_id,
                      row.seed, row.served_at, bool(row.answered))
            for row in rows if row.item_id is not None))

    def contents_to_avoid(self, learner_id: int, question_id: str) -> ContentsToAvoid:
        """Return what serving ``question_id`` to the learner steers away from, in one read:
        what the learner's latest wrong answers to it asked, once revealed (content keys,
        latest first: the learner has read their answers), and the contents exports took
        away (``exports``). Serving and a practice variant (``study.variants``) both ask it."""
        rows = self.connection.execute(CONTENTS_TO_AVOID, {"b_learner": learner_id,
                                                           "b_question": question_id}).all()
        return ContentsToAvoid(
            tuple(dict.fromkeys(row.content_key for row in rows if not row.exported)),
            frozenset(row.content_key for row in rows if row.exported))

    def serve_practice(self, variant: dict[str, Any]) -> None:
        """Store a variant served as practice, outside any session (``served_variant``
        columns; ``practice`` is set here), in place of the learner's practice variant still
        open, if any: one at a time, so asking again and again stores nothing more."""
        self.connection.execute(delete(SERVED).where(
            SERVED.c.learner_id == variant["learner_id"], SERVED.c.practice.is_(True),
            SERVED.c.answered.is_(False)))
        self.connection.execute(SERVE_VARIANT, variant | {"practice": True})

    def practice_variant(self, learner_id: int, variant_id: str) -> PracticeVariant | None:
        """Return one of this learner's practice variants with its attempt, if answered
        (None: unknown, another learner's, or not served as practice)."""
        row = self.connection.execute(
            select(SERVED.c.id, SERVED.c.question_id, SERVED.c.seed, SERVED.c.bank_version,
                   SERVED.c.served_at, ATTEMPTS.c.id.label("attempt_id"))
            .select_from(SERVED.outerjoin(ATTEMPTS, ATTEMPTS.c.variant_id == SERVED.c.id))
            .where(SERVED.c.id == variant_id, SERVED.c.learner_id == learner_id,
                   SERVED.c.practice.is_(True))).first()
        return None if row is None else PracticeVariant(*row)

    def serve_item(self, item_id: int, variant: dict[str, Any]) -> None:
        """Store a served variant (``served_variant`` columns) and point the item at it; raise
        ``Stale`` (writing nothing) when another request served the item first.

        On PostgreSQL it is one statement, atomic by itself (the unit of work's ``statement``
        runs it in autocommit): the item is claimed and the variant inserted only if the claim
        held, the foreign key checked at the statement's end. On SQLite the transaction, begun
        IMMEDIATE, holds the writer lock: the variant goes in first, then the claim, and the
        unit of work rolls the variant back on ``Stale``.
        """
        conn = self.connection
        claim = {"b_item": item_id, "b_variant": variant["id"]}
        if self.dialect == "postgresql":
            values = {f"v_{name}": value for name, value in variant.items()}
            if conn.execute(serve_and_claim(tuple(variant)), values | claim).first() is None:
                raise Stale(item_id)
            return
        conn.execute(SERVE_VARIANT, variant)
        if not conn.execute(CLAIM_ITEM, claim).rowcount:
            raise Stale(item_id)

    def session_outcomes(self, learner_id: int, session_id: str) -> list[ItemOutcome]:
        """List a learner's session items in order with their outcomes, in one read."""
        rows = self.connection.execute(
            select(ITEMS.c.position, ITEMS.c.question_id, ITEMS.c.reason, ITEMS.c.variant_id,
                   ATTEMPTS.c.id.label("attempt_id"), ATTEMPTS.c.graded, ATTEMPTS.c.correct,
                   ATTEMPTS.c.score, ATTEMPTS.c.closed_book, ATTEMPTS.c.revealed_at,
                   LOGS.c.rating, CARDS.c.due, MASTERY.c.mastered, MASTERY.c.mastered_at)
            .select_from(
                ITEMS.join(SESSIONS, SESSIONS.c.id == ITEMS.c.session_id)
                .outerjoin(ATTEMPTS, ATTEMPTS.c.variant_id == ITEMS.c.variant_id)
                .outerjoin(LOGS, LOGS.c.attempt_id == ATTEMPTS.c.id)
                .outerjoin(CARDS, (CARDS.c.learner_id == SESSIONS.c.learner_id)
                           & (CARDS.c.question_id == ITEMS.c.question_id))
                .outerjoin(MASTERY, (MASTERY.c.learner_id == SESSIONS.c.learner_id)
                           & (MASTERY.c.question_id == ITEMS.c.question_id)))
            .where(ITEMS.c.session_id == session_id, SESSIONS.c.learner_id == learner_id)
            .order_by(ITEMS.c.position))
        return [ItemOutcome(row.position, row.question_id, row.reason, row.variant_id is not None,
                            row.attempt_id, row.graded,
                            row.correct, row.score, row.closed_book, row.revealed_at is not None,
                            row.rating, row.due, row.mastered, row.mastered_at) for row in rows]

    def drop_unserved(self, learner_id: int, question_id: str) -> int:
        """Delete a question's items not served yet from this learner's sessions (a hold
        now keeps it out); return how many. Served variants stay as they are."""
        mine = select(SESSIONS.c.id).where(SESSIONS.c.learner_id == learner_id)
        return self.connection.execute(
            delete(ITEMS).where(ITEMS.c.session_id.in_(mine), ITEMS.c.question_id == question_id,
                                ITEMS.c.variant_id.is_(None))).rowcount or 0

    def mark_open_book(self, learner_id: int, lesson: str | None = None) -> int:
        """Mark this learner's open variants (of ``lesson``, or all) open-book; return how many.

        An open-book answer is still graded but never counts toward mastery.
        """
        condition = [SERVED.c.learner_id == learner_id, SERVED.c.answered.is_(False),
                     SERVED.c.open_book.is_(False)]
        if lesson is not None:
            condition.append(SERVED.c.lesson == lesson)
        return self.connection.execute(update(SERVED).where(*condition)
                                       .values(open_book=True)).rowcount or 0

    def open_variants(self, learner_id: int, lesson: str | None = None,
                      kinds: Collection[str] | None = None) -> int:
        """Count this learner's open closed-book variants (of ``lesson``, or all; of
        ``kinds``, or any)."""
        condition = open_condition(learner_id, lesson, kinds)
        return self.connection.scalar(
            select(func.count()).select_from(SERVED).where(*condition)) or 0

    def session_of_open_variant(self, learner_id: int, lesson: str | None = None,
                                kinds: Collection[str] | None = None) -> str | None:
        """Return the session of this learner's latest open closed-book variant (of ``lesson``,
        of ``kinds``)."""
        condition = open_condition(learner_id, lesson, kinds)
        found: str | None = self.connection.scalar(
            select(ITEMS.c.session_id)
            .select_from(ITEMS.join(SERVED, SERVED.c.id == ITEMS.c.variant_id))
            .where(*condition).order_by(SERVED.c.served_at.desc()).limit(1))
        return found

    def drop_oldest_unfinished(self, learner_id: int, keep: int) -> int:
        """Delete this learner's oldest unfinished sessions beyond ``keep``; return how many.

        Their variants served and never answered go too (nothing refers to them); answered ones
        stay with their attempts. A session is unfinished while one of its items has no answered
        variant.
        """
        unfinished = (
            select(SESSIONS.c.id)
            .where(SESSIONS.c.learner_id == learner_id,
                   select(ITEMS.c.id)
                   .select_from(ITEMS.outerjoin(SERVED, SERVED.c.id == ITEMS.c.variant_id))
                   .where(ITEMS.c.session_id == SESSIONS.c.id,
                          ITEMS.c.variant_id.is_(None) | SERVED.c.answered.is_(False))
                   .exists())
            .order_by(SESSIONS.c.created_at.desc(), SESSIONS.c.id.desc())
            .offset(keep))
        doomed = list(self.connection.scalars(unfinished))
        if not doomed:
            return 0
        conn = self.connection
        open_variants = select(ITEMS.c.variant_id).where(ITEMS.c.session_id.in_(doomed),
                                                        ITEMS.c.variant_id.is_not(None))
        variant_ids = [v for v in self.connection.scalars(open_variants)]
        conn.execute(delete(SESSIONS).where(SESSIONS.c.id.in_(doomed)))
        if variant_ids:
            conn.execute(delete(SERVED).where(SERVED.c.id.in_(variant_ids),
                                              SERVED.c.answered.is_(False)))
        return len(doomed)
