"""Keep the learner's answers: attempts, fsrs cards, the review log and mastery records.

The one repository that writes those four tables (answering, explaining, rating, importing),
in SQLAlchemy Core on the models' tables, so every value is converted by its column's type.

A graded answer is one read and one write:

- ``read_snapshot`` fetches, in one query, what the answer is decided from: the served
  variant and its sealed answer key, the learner's ``review_seq``, the question's card and
  mastery record, and when its right closed-book answers were first and last submitted
  (``read_run`` adds the current run of graded attempts when the mastery policy needs it);
- ``write_answer`` records the decided outcome on condition that ``review_seq`` still holds
  the value read and the variant is still claimable; otherwise it writes nothing and says so,
  and the use case redoes the answer under ``lock_learner``. On PostgreSQL the write is one
  statement of data-modifying CTEs, each step selecting from the one before, so a stale
  snapshot changes nothing at all; on SQLite it is a few statements in one transaction.

Every other writer of these tables calls ``lock_learner`` first: it bumps ``review_seq``, so a
lock-free answer that read before it knows its snapshot is stale.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    Select,
    and_,
    bindparam,
    cast,
    delete,
    exists,
    func,
    insert,
    select,
    true,
    update,
)
from sqlalchemy.orm import Session

from quizsvc.review.mastery import GradedAttempt, variant_identity
from quizsvc.review.outcome import NEW_ATTEMPT_ID, MasteryChange, MasteryRecord, Review
from quizsvc.review.scheduling import DEFAULT_SETTINGS, CardState, SchedulerSettings
from quizsvc.store.database import begin_one_statement, begin_read_only, dialect_of
from quizsvc.store.models import (
    Attempt,
    Learner,
    Mastery,
    ReviewCard,
    ReviewLog,
    ServedVariant,
    table,
)
from quizsvc.store.scheduler_settings import settings_columns, settings_of

ATTEMPTS, LEARNERS, SERVED = table(Attempt), table(Learner), table(ServedVariant)
CARDS, LOGS, MASTERY = table(ReviewCard), table(ReviewLog), table(Mastery)
CARD_STATE = ("state", "step", "stability", "difficulty", "due", "last_review")
LOG_STATE = tuple(f"{name}_before" for name in CARD_STATE)

# ---------------------------------------------------------------- the snapshot


@dataclass(frozen=True)
class StoredCard:
    """A question's fsrs card as stored: its row id and state."""

    id: int
    state: CardState


@dataclass(frozen=True)
class AnswerSnapshot:
    """What one answer is decided from, read without a lock."""

    variant_id: str
    learner_id: int
    question_id: str
    lesson: str
    kind: str
    seed: int
    served_at: datetime
    answered: bool
    bank_version: str
    open_book: bool
    answer_key: str | None
    content_key: str | None
    review_seq: int
    card: StoredCard | None
    mastery: MasteryRecord
    # When the question's right closed-book answers were submitted, first and last (None:
    # there are none): the mastery policy reads the run only if one could pair with this one.
    right_closed_book_span: tuple[datetime, datetime] | None
    # When a wrong answer of this learner to the question was last revealed (None: never):
    # an answer soon after it is practice (``review.mastery.practice_after_reveal``).
    last_wrong_reveal: datetime | None
    # The FSRS parameters and desired retention that schedule this learner's card of this
    # lesson (``store.scheduler_settings``); ``review_seq`` covers a change of either.
    settings: SchedulerSettings = DEFAULT_SETTINGS


def right_closed_book(variant: Any) -> Any:
    """Return the condition "a right closed-book answer to the variant's question"."""
    right = ATTEMPTS.alias("right_answer")
    return right, and_(right.c.learner_id == variant.c.learner_id,
                       right.c.question_id == variant.c.question_id,
                       right.c.graded.is_(True), right.c.correct.is_(True),
                       right.c.closed_book.is_(True))


def last_wrong_reveal(variant: Any) -> Any:
    """Return "when a wrong answer to the variant's question was last revealed" (a subquery)."""
    wrong = ATTEMPTS.alias("revealed_wrong")
    return (select(func.max(wrong.c.revealed_at))
            .where(wrong.c.learner_id == variant.c.learner_id,
                   wrong.c.question_id == variant.c.question_id,
                   wrong.c.graded.is_(True), wrong.c.correct.is_(False))
            .scalar_subquery())


def snapshot_query() -> Select[Any]:
    """Build the snapshot's one query (three look-ups on the attempts' question index)."""
    right, condition = right_closed_book(SERVED)
    return (
        select(SERVED.c.learner_id, SERVED.c.question_id, SERVED.c.lesson, SERVED.c.kind,
               SERVED.c.seed, SERVED.c.served_at, SERVED.c.answered, SERVED.c.bank_version,
               SERVED.c.open_book, SERVED.c.answer_key, SERVED.c.content_key,
               LEARNERS.c.review_seq,
               CARDS.c.id.label("card_id"), *(CARDS.c[name] for name in CARD_STATE),
               MASTERY.c.id.label("mastery_id"), MASTERY.c.mastered,
               select(func.min(right.c.submitted_at)).where(condition)
               .scalar_subquery().label("first_right"),
               select(func.max(right.c.submitted_at)).where(condition)
               .scalar_subquery().label("last_right"),
               last_wrong_reveal(SERVED).label("last_wrong_reveal"),
               *settings_columns(SERVED.c.learner_id, SERVED.c.lesson))
        .select_from(
            SERVED.join(LEARNERS, LEARNERS.c.id == SERVED.c.learner_id)
            .outerjoin(CARDS, and_(CARDS.c.learner_id == SERVED.c.learner_id,
                                   CARDS.c.question_id == SERVED.c.question_id))
            .outerjoin(MASTERY, and_(MASTERY.c.learner_id == SERVED.c.learner_id,
                                     MASTERY.c.question_id == SERVED.c.question_id)))
        .where(SERVED.c.id == bindparam("variant_id")))


SNAPSHOT = snapshot_query()


def read_snapshot(db: Session, variant_id: str) -> AnswerSnapshot | None:
    """Read what answering ``variant_id`` needs (None: no such variant).

    Outside a transaction the read holds no lock (``begin_read_only``): end it before
    writing. Inside one (under ``lock_learner``) it reads that transaction's state.
    """
    if not db.in_transaction():
        begin_read_only(db)
    row = db.execute(SNAPSHOT, {"variant_id": variant_id}).first()
    if row is None:
        return None
    card = None
    if row.card_id is not None:
        card = StoredCard(row.card_id, CardState(*(getattr(row, name) for name in CARD_STATE)))
    span = None if row.first_right is None else (row.first_right, row.last_right)
    return AnswerSnapshot(
        variant_id=variant_id, learner_id=row.learner_id, question_id=row.question_id,
        lesson=row.lesson, kind=row.kind, seed=row.seed, served_at=row.served_at,
        answered=row.answered, bank_version=row.bank_version, open_book=row.open_book,
        answer_key=row.answer_key, content_key=row.content_key, review_seq=row.review_seq,
        card=card,
        mastery=MasteryRecord(row.mastery_id, bool(row.mastered)),
        right_closed_book_span=span, last_wrong_reveal=row.last_wrong_reveal,
        settings=settings_of(row.desired_retention, row.fsrs_parameters))


# The current run: the graded attempts from the latest wrong one on (that one included; so are
# any submitted at the same instant, which the policy's order, submitted_at then id, may put
# before it: it resets them). The verdict depends on nothing earlier, as a wrong answer resets
# it; reading only the run keeps a long history from costing every answer.
_WRONG = ATTEMPTS.alias("wrong")
RUN = (
    select(ATTEMPTS.c.id, ATTEMPTS.c.seed, ATTEMPTS.c.bank_version, ATTEMPTS.c.content_key,
           ATTEMPTS.c.submitted_at, ATTEMPTS.c.correct, ATTEMPTS.c.closed_book)
    .where(ATTEMPTS.c.learner_id == bindparam("learner_id"),
           ATTEMPTS.c.question_id == bindparam("question_id"), ATTEMPTS.c.graded.is_(True),
           ATTEMPTS.c.submitted_at >= func.coalesce(
               select(func.max(_WRONG.c.submitted_at))
               .where(_WRONG.c.learner_id == bindparam("learner_id"),
                      _WRONG.c.question_id == bindparam("question_id"),
                      _WRONG.c.graded.is_(True), _WRONG.c.correct.is_(False))
               .scalar_subquery(),
               ATTEMPTS.c.submitted_at)))


def read_run(db: Session, learner_id: int, question_id: str) -> list[GradedAttempt]:
    """Read the question's current run of graded attempts (in the snapshot's transaction).

    ``mastery.evaluate`` gives the same verdict on it as on the whole history.
    """
    rows = db.execute(RUN, {"learner_id": learner_id, "question_id": question_id})
    return [GradedAttempt(row.id, variant_identity(row.content_key, row.seed, row.bank_version),
                          row.submitted_at,
                          bool(row.correct), row.closed_book) for row in rows]


def graded_history(db: Session, learner_id: int) -> list[tuple[str, GradedAttempt]]:
    """Return every graded attempt of a learner as (question id, what the policy reads)."""
    rows = db.execute(
        select(ATTEMPTS.c.question_id, ATTEMPTS.c.id, ATTEMPTS.c.seed,
               ATTEMPTS.c.bank_version, ATTEMPTS.c.content_key, ATTEMPTS.c.submitted_at,
               ATTEMPTS.c.correct, ATTEMPTS.c.closed_book)
        .where(ATTEMPTS.c.learner_id == learner_id, ATTEMPTS.c.graded.is_(True)))
    return [(row.question_id, GradedAttempt(row.id, variant_identity(
                row.content_key, row.seed, row.bank_version),
                                            row.submitted_at, bool(row.correct),
                                            row.closed_book)) for row in rows]


# ---------------------------------------------------------------- the conditional write


@dataclass(frozen=True)
class AnswerWrite:
    """The rows one answer writes, fully decided.

    ``attempt`` holds the ``attempt`` columns but ``id``. ``review`` (None for a self-rated
    answer, reviewed only when rated) is written to the snapshot's card, or to a new card
    when ``card_id`` is None. ``mastery`` may name the new attempt as ``NEW_ATTEMPT_ID``.
    """

    learner_id: int
    review_seq: int
    variant_id: str
    open_book: bool
    attempt: dict[str, Any]
    card_id: int | None = None
    review: Review | None = None
    mastery: MasteryChange | None = None


def card_values(after: CardState) -> dict[str, Any]:
    """Return a card state as ``review_card`` column values."""
    return {name: getattr(after, name) for name in CARD_STATE}


def log_values(learner_id: int, entry: Review, duration_ms: int | None, by_learner: bool
               ) -> dict[str, Any]:
    """Return a review as ``review_log`` column values (but its card and attempt)."""
    return {"learner_id": learner_id, "rating": int(entry.rating),
            "reviewed_at": entry.reviewed_at, "duration_ms": duration_ms,
            "rated_by_learner": by_learner,
            **{f"{name}_before": getattr(entry.before, name) for name in CARD_STATE}}


def new_card_values(learner_id: int, question_id: str, lesson: str, entry: Review,
                    created_at: datetime) -> dict[str, Any]:
    """Return a new ``review_card`` row for a first review."""
    return {"learner_id": learner_id, "question_id": question_id, "lesson": lesson,
            "created_at": created_at, **card_values(entry.after)}


def mastery_values(change: MasteryChange, attempt_id: int | None) -> dict[str, Any]:
    """Return the mastery columns a change sets (``attempt_id`` fills in ``NEW_ATTEMPT_ID``)."""
    evidence = [attempt_id if entry == NEW_ATTEMPT_ID else entry for entry in change.evidence]
    return {"mastered": change.mastered, "mastered_at": change.mastered_at,
            "evidence": evidence, "policy": change.policy,
            "evaluated_at": change.evaluated_at}


def write_answer(db: Session, write: AnswerWrite) -> int | None:
    """Record one answer; return the attempt's id, or None if the snapshot was stale.

    Outside a transaction the write is one of its own (one statement in autocommit on
    PostgreSQL); inside one (under ``lock_learner``) it joins it and the caller commits.
    None means nothing was written (on SQLite the transaction is rolled back). A reused
    idempotency key raises ``sqlalchemy.exc.IntegrityError`` with nothing written.
    """
    own = not db.in_transaction()
    attempt_id: int | None
    if dialect_of(db) == "postgresql":
        if own:
            begin_one_statement(db)
        statement, params = postgresql_write(write)
        attempt_id = db.execute(statement, params).scalar()
    else:
        attempt_id = sqlite_write(db, write)
    if own:
        if attempt_id is None:
            db.rollback()
        else:
            db.commit()
    return attempt_id


BUMP_SEQ = (update(LEARNERS)
            .where(LEARNERS.c.id == bindparam("b_learner"),
                   LEARNERS.c.review_seq == bindparam("b_seq"))
            .values(review_seq=LEARNERS.c.review_seq + 1))
CLAIM = (update(SERVED)
         .where(SERVED.c.id == bindparam("b_variant"), SERVED.c.answered.is_(False),
                SERVED.c.open_book == bindparam("b_open_book"))
         .values(answered=True))


INSERT_ATTEMPT = insert(ATTEMPTS).returning(ATTEMPTS.c.id)
INSERT_CARD = insert(CARDS).returning(CARDS.c.id)
UPDATE_CARD = (update(CARDS).where(CARDS.c.id == bindparam("b_card"))
               .values({name: bindparam(name) for name in CARD_STATE}))
INSERT_LOG = insert(LOGS)


def sqlite_write(db: Session, write: AnswerWrite) -> int | None:
    """Write an answer statement by statement, stopping at the first sign of staleness.

    The statements are built once, their values passed as parameters.
    """
    conn = db.connection()
    keys = {"b_learner": write.learner_id, "b_seq": write.review_seq,
            "b_variant": write.variant_id, "b_open_book": write.open_book}
    if conn.execute(BUMP_SEQ, keys).rowcount != 1 or conn.execute(CLAIM, keys).rowcount != 1:
        return None
    attempt_id: int = conn.execute(INSERT_ATTEMPT, write.attempt).scalar_one()
    entry = write.review
    if entry is not None:
        card_id = write.card_id
        if card_id is None:
            card_id = conn.execute(INSERT_CARD, new_card_values(
                write.learner_id, write.attempt["question_id"], write.attempt["lesson"], entry,
                write.attempt["submitted_at"])).scalar_one()
        else:
            conn.execute(UPDATE_CARD, {"b_card": card_id, **card_values(entry.after)})
        conn.execute(INSERT_LOG, {
            "card_id": card_id, "attempt_id": attempt_id,
            **log_values(write.learner_id, entry, write.attempt["duration_ms"], False)})
    if write.mastery is not None:
        write_mastery(db, write.learner_id, write.attempt, write.mastery, attempt_id)
    return attempt_id


def write_mastery(db: Session, learner_id: int, attempt: dict[str, Any],
                  change: MasteryChange, attempt_id: int) -> None:
    """Apply one mastery change (the mastery policy's decision) to its row."""
    values = mastery_values(change, attempt_id)
    if change.action == "insert":
        db.execute(insert(MASTERY).values(learner_id=learner_id,
                                          question_id=attempt["question_id"],
                                          lesson=attempt["lesson"], **values))
    else:
        db.execute(update(MASTERY).where(mastery_row(change, learner_id,
                                                      attempt["question_id"]))
                   .values(values))


def mastery_row(change: MasteryChange, learner_id: int, question_id: str) -> Any:
    """Return which mastery row an "update" or a "lapse" changes."""
    if change.action == "update":
        return MASTERY.c.id == change.record_id
    return and_(MASTERY.c.learner_id == learner_id, MASTERY.c.question_id == question_id,
                MASTERY.c.mastered.is_(True))


# ---- PostgreSQL: one statement


def typed(table: Any, prefix: str, names: Iterable[str]) -> list[Any]:
    """Return a parameter per column, cast to its type: in a SELECT list PostgreSQL would
    otherwise take an untyped parameter (a NULL, say) for text."""
    return [cast(bindparam(prefix + name, type_=table.c[name].type), table.c[name].type)
            for name in names]


ATTEMPT_COLUMNS = tuple(column.name for column in ATTEMPTS.columns if column.name != "id")
NEW_CARD_COLUMNS = ("learner_id", "question_id", "lesson", *CARD_STATE, "created_at")
LOG_COLUMNS = ("learner_id", "rating", "reviewed_at", "duration_ms", "rated_by_learner",
               *LOG_STATE)
MASTERY_COLUMNS = ("mastered", "mastered_at", "policy", "evaluated_at")
NEW_MASTERY_COLUMNS = ("learner_id", "question_id", "lesson", *MASTERY_COLUMNS)


@cache
def postgresql_statement(card: str, log: bool, mastery: str, evidence: tuple[bool, ...]
                         ) -> Select[Any]:
    """Build the one data-modifying statement for a write of this shape (built once).

    ``seq`` bumps the learner's counter only if unchanged and the variant is claimable;
    ``claim`` marks the variant answered only if ``seq`` returned its row; every later step
    selects FROM the one before, so nothing is written unless both did. Every step of a WITH
    runs to completion, so only a change to the variant committed while this very statement
    runs can leave the counter bumped with nothing else written, which costs at most one
    locked retry of another answer. Foreign keys between the new rows are checked at the
    end of the statement, when all exist. The statement's value is the new attempt's id.
    """
    claimable = exists().where(SERVED.c.id == bindparam("b_variant"),
                               SERVED.c.answered.is_(False),
                               SERVED.c.open_book == bindparam("b_open_book"))
    seq = (update(LEARNERS)
           .where(LEARNERS.c.id == bindparam("b_learner"),
                  LEARNERS.c.review_seq == bindparam("b_seq"), claimable)
           .values(review_seq=LEARNERS.c.review_seq + 1)
           .returning(LEARNERS.c.id).cte("seq"))
    claim = (update(SERVED)
             .where(SERVED.c.id == bindparam("b_variant"), SERVED.c.answered.is_(False),
                    SERVED.c.open_book == bindparam("b_open_book"),
                    SERVED.c.learner_id == seq.c.id)
             .values(answered=True).returning(SERVED.c.id).cte("claim"))
    att = (insert(ATTEMPTS)
           .from_select(ATTEMPT_COLUMNS, select(*typed(ATTEMPTS, "a_", ATTEMPT_COLUMNS))
                        .select_from(claim))
           .returning(ATTEMPTS.c.id).cte("att"))
    steps = [att]
    card_step = None
    if card == "insert":
        card_step = (insert(CARDS)
                     .from_select(NEW_CARD_COLUMNS,
                                  select(*typed(CARDS, "c_", NEW_CARD_COLUMNS)).select_from(att))
                     .returning(CARDS.c.id).cte("card"))
    elif card == "update":
        card_step = (update(CARDS)
                     .where(CARDS.c.id == bindparam("b_card"), exists(select(att.c.id)))
                     .values({name: bindparam("c_" + name, type_=CARDS.c[name].type)
                              for name in CARD_STATE})
                     .returning(CARDS.c.id).cte("card"))
    if card_step is not None:
        steps.append(card_step)
    if log and card_step is not None:
        steps.append(
            insert(LOGS)
            .from_select(("card_id", "attempt_id", *LOG_COLUMNS),
                         select(card_step.c.id, att.c.id, *typed(LOGS, "l_", LOG_COLUMNS))
                         .select_from(card_step.join(att, true())))
            .returning(LOGS.c.id).cte("log"))
    if mastery != "none":
        # An UPDATE reads the new attempt's id through a subquery: a FROM att would be a
        # join with no condition.
        new_id = att.c.id if mastery == "insert" else select(att.c.id).scalar_subquery()
        entries = [new_id if new else cast(bindparam(f"m_ev{i}"), ATTEMPTS.c.id.type)
                   for i, new in enumerate(evidence)]
        evidence_value = cast(func.json_build_array(*entries), MASTERY.c.evidence.type)
        step: Any
        if mastery == "insert":
            step = (insert(MASTERY)
                    .from_select((*NEW_MASTERY_COLUMNS, "evidence"),
                                 select(*typed(MASTERY, "m_", NEW_MASTERY_COLUMNS),
                                        evidence_value).select_from(att)))
        else:
            condition = (MASTERY.c.id == bindparam("b_mastery") if mastery == "update" else
                         and_(MASTERY.c.learner_id == bindparam("b_learner"),
                              MASTERY.c.question_id == bindparam("b_question"),
                              MASTERY.c.mastered.is_(True)))
            step = (update(MASTERY).where(condition, exists(select(att.c.id)))
                    .values({**{name: bindparam("m_" + name, type_=MASTERY.c[name].type)
                                for name in MASTERY_COLUMNS}, "evidence": evidence_value}))
        steps.append(step.returning(MASTERY.c.id).cte("mastery_change"))
    return select(att.c.id).add_cte(*steps[1:])


def postgresql_write(write: AnswerWrite) -> tuple[Select[Any], dict[str, Any]]:
    """Return the one statement for ``write`` and its parameters."""
    card = "none" if write.review is None else ("insert" if write.card_id is None else "update")
    change = write.mastery
    evidence = tuple(entry == NEW_ATTEMPT_ID for entry in change.evidence) if change else ()
    statement = postgresql_statement(card, write.review is not None,
                                     change.action if change else "none", evidence)
    attempt = write.attempt
    params: dict[str, Any] = {
        "b_learner": write.learner_id, "b_seq": write.review_seq,
        "b_variant": write.variant_id, "b_open_book": write.open_book,
        "b_card": write.card_id, "b_question": attempt["question_id"],
        **{"a_" + name: attempt[name] for name in ATTEMPT_COLUMNS}}
    if write.review is not None:
        if write.card_id is None:
            params.update({"c_" + name: value for name, value in new_card_values(
                write.learner_id, attempt["question_id"], attempt["lesson"], write.review,
                attempt["submitted_at"]).items()})
        else:
            params.update({"c_" + name: value
                           for name, value in card_values(write.review.after).items()})
        params.update({"l_" + name: value for name, value in log_values(
            write.learner_id, write.review, attempt["duration_ms"], False).items()})
    if change is not None:
        params["b_mastery"] = change.record_id
        params.update({"m_" + name: value for name, value in mastery_values(change, None)
                       .items() if name != "evidence"})
        params.update({"m_learner_id": write.learner_id,
                       "m_question_id": attempt["question_id"], "m_lesson": attempt["lesson"]})
        params.update({f"m_ev{i}": entry for i, entry in enumerate(change.evidence)
                       if entry != NEW_ATTEMPT_ID})
    return statement, params


# ---------------------------------------------------------------- the learner lock


LOCK_LEARNER = (update(LEARNERS).where(LEARNERS.c.id == bindparam("b_learner"))
                .values(review_seq=LEARNERS.c.review_seq + 1))


def lock_learner(db: Session, learner_id: int) -> None:
    """Apply this learner's reviews one at a time: lock the learner row until the commit.

    Every use case that changes a learner's attempts, cards, review log or mastery calls it
    first. The row lock keeps two browsers of one learner from both creating a question's
    card or reviewing the same state (a lost update); bumping ``review_seq`` tells a
    lock-free answer that what it read may be stale. An UPDATE of a non-key column takes
    PostgreSQL's ``FOR NO KEY UPDATE`` lock, so the learner's other inserts (foreign keys)
    are not blocked; on SQLite the writer's transaction already serialises them.
    """
    db.execute(LOCK_LEARNER, {"b_learner": learner_id})


# ---------------------------------------------------------------- attempts


@dataclass(frozen=True)
class VariantState:
    """Who a served variant belongs to and whether it was answered."""

    learner_id: int
    answered: bool


def variant_state(db: Session, variant_id: str) -> VariantState | None:
    """Return a served variant's owner and answered flag (None: no such variant)."""
    row = db.execute(select(SERVED.c.learner_id, SERVED.c.answered)
                     .where(SERVED.c.id == variant_id)).first()
    return None if row is None else VariantState(row.learner_id, row.answered)


@dataclass(frozen=True)
class KeyedAttempt:
    """An attempt found by its idempotency key, with the fingerprint of its request."""

    id: int
    request_digest: str


def find_by_key(db: Session, learner_id: int, idempotency_key: str) -> KeyedAttempt | None:
    """Return this learner's attempt under ``idempotency_key``, if any."""
    row = db.execute(select(ATTEMPTS.c.id, ATTEMPTS.c.request_digest)
                     .where(ATTEMPTS.c.learner_id == learner_id,
                            ATTEMPTS.c.idempotency_key == idempotency_key)).first()
    return None if row is None else KeyedAttempt(row.id, row.request_digest)


def attempt(db: Session, learner_id: int, attempt_id: int) -> Attempt | None:
    """Return one of this learner's attempts (None: unknown, or another learner's)."""
    found = db.get(Attempt, attempt_id)
    return found if found is not None and found.learner_id == learner_id else None


def rating_of(db: Session, attempt_id: int) -> int | None:
    """Return the fsrs rating of an attempt's review (None: not reviewed)."""
    return db.scalar(select(LOGS.c.rating).where(LOGS.c.attempt_id == attempt_id))


def record_explanation(db: Session, attempt_id: int, explanation: str, now: datetime) -> None:
    """Store why a wrong answer was wrong; that reveals its answer and solution."""
    db.execute(update(ATTEMPTS).where(ATTEMPTS.c.id == attempt_id)
               .values(explanation=explanation, explained_at=now, revealed_at=now))


# ---------------------------------------------------------------- reviews (ratings)


@dataclass(frozen=True)
class LoggedReview:
    """An attempt's review as logged: its card, rating, time and the card's state before."""

    id: int
    card_id: int
    rating: int
    reviewed_at: datetime
    before: CardState
    latest: bool  # still the card's latest review (only then can it be re-rated)
    rated_by_learner: bool = False  # False: the grade's own review (right answers: Good)
    first: bool = False  # the card's first review (its row was made by it)


def review_of_attempt(db: Session, attempt_id: int) -> LoggedReview | None:
    """Return the review logged for an attempt (None: it was not reviewed yet)."""
    row = db.execute(select(LOGS).where(LOGS.c.attempt_id == attempt_id)).first()
    if row is None:
        return None
    newest, oldest = db.execute(select(func.max(LOGS.c.id), func.min(LOGS.c.id))
                                .where(LOGS.c.card_id == row.card_id)).one()
    before = CardState(*(getattr(row, name) for name in LOG_STATE))
    return LoggedReview(row.id, row.card_id, row.rating, row.reviewed_at, before,
                        newest == row.id, bool(row.rated_by_learner), oldest == row.id)


def card_of(db: Session, learner_id: int, question_id: str) -> StoredCard | None:
    """Return the learner's card for a question (None: never reviewed)."""
    row = db.execute(select(CARDS.c.id, *(CARDS.c[name] for name in CARD_STATE))
                     .where(CARDS.c.learner_id == learner_id,
                            CARDS.c.question_id == question_id)).first()
    if row is None:
        return None
    return StoredCard(row.id, CardState(*(getattr(row, name) for name in CARD_STATE)))


def record_review(db: Session, learner_id: int, answered: Attempt, card: StoredCard | None,
                  entry: Review, by_learner: bool) -> None:
    """Write a first review of an attempt: the card (created if new) and its log entry."""
    conn = db.connection()
    if card is None:
        card_id = conn.execute(INSERT_CARD, new_card_values(
            learner_id, answered.question_id, answered.lesson, entry, entry.reviewed_at)
        ).scalar_one()
    else:
        card_id = card.id
        db.execute(update(CARDS).where(CARDS.c.id == card_id).values(card_values(entry.after)))
    db.execute(insert(LOGS).values(card_id=card_id, attempt_id=answered.id, **log_values(
        learner_id, entry, answered.duration_ms, by_learner)))


def rerate_review(db: Session, logged: LoggedReview, entry: Review) -> None:
    """Redo a logged review with another rating: the card's new state, the log's rating."""
    db.execute(update(CARDS).where(CARDS.c.id == logged.card_id)
               .values(card_values(entry.after)))
    db.execute(update(LOGS).where(LOGS.c.id == logged.id)
               .values(rating=int(entry.rating), rated_by_learner=True))


def undo_review(db: Session, logged: LoggedReview, kept: Review | None) -> None:
    """Take a learner's rating back: redo the review as the grade made it (``kept``, for a
    graded answer), or drop it (a self-rated card), restoring the card as it was before;
    a card the dropped review created goes with it."""
    if kept is not None:
        db.execute(update(CARDS).where(CARDS.c.id == logged.card_id)
                   .values(card_values(kept.after)))
        db.execute(update(LOGS).where(LOGS.c.id == logged.id)
                   .values(rating=int(kept.rating), rated_by_learner=False))
        return
    db.execute(delete(LOGS).where(LOGS.c.id == logged.id))
    if logged.first:
        db.execute(delete(CARDS).where(CARDS.c.id == logged.card_id))
    else:
        db.execute(update(CARDS).where(CARDS.c.id == logged.card_id)
                   .values(card_values(logged.before)))


# ---------------------------------------------------------------- history (export, import)


def exported_rows(db: Session, learner_id: int) -> tuple[Sequence[Attempt],
                                                         Sequence[ReviewCard],
                                                         Sequence[ReviewLog],
                                                         Sequence[Mastery]]:
    """Return a learner's attempts, cards, review log and mastery records, in export order."""
    attempts = db.scalars(select(Attempt).where(Attempt.learner_id == learner_id)
                          .order_by(Attempt.submitted_at, Attempt.id)).all()
    cards = db.scalars(select(ReviewCard).where(ReviewCard.learner_id == learner_id)
                       .order_by(ReviewCard.question_id)).all()
    logs = db.scalars(select(ReviewLog).where(ReviewLog.learner_id == learner_id)
                      .order_by(ReviewLog.reviewed_at, ReviewLog.id)).all()
    records = db.scalars(select(Mastery).where(Mastery.learner_id == learner_id)
                         .order_by(Mastery.question_id)).all()
    return attempts, cards, logs, records


def attempt_count(db: Session, learner_id: int) -> int:
    """Count a learner's attempts."""
    return db.scalar(select(func.count()).select_from(ATTEMPTS)
                     .where(ATTEMPTS.c.learner_id == learner_id)) or 0


def has_history(db: Session, learner_id: int) -> bool:
    """Tell whether a learner holds any attempts or cards."""
    return bool(db.scalar(select(exists().where(ATTEMPTS.c.learner_id == learner_id)))
                or db.scalar(select(exists().where(CARDS.c.learner_id == learner_id))))


def insert_rows(db: Session, table: Any, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` into ``table`` in one executemany (nothing when empty)."""
    if rows:
        db.execute(insert(table), rows)


def inserted_ids(db: Session, table: Any, rows: list[dict[str, Any]]) -> list[int]:
    """Insert ``rows`` into ``table``; return their new ids in the order of ``rows``."""
    if not rows:
        return []
    return list(db.execute(insert(table).returning(table.c.id, sort_by_parameter_order=True),
                           rows).scalars())


def import_history(db: Session, variants: list[dict[str, Any]],
                   attempts: list[dict[str, Any]], cards: list[dict[str, Any]],
                   card_question: Sequence[str], logs: list[dict[str, Any]]
                   ) -> tuple[list[int], dict[str, int]]:
    """Bulk-insert an imported history (under ``lock_learner``); return the new ids.

    ``logs`` name their card by ``question_id`` and their attempt by its index in
    ``attempts`` (``attempt_index``); returns the attempts' ids in order and the cards' ids
    by question.
    """
    insert_rows(db, SERVED, variants)  # before the attempts that refer to them
    attempt_ids = inserted_ids(db, ATTEMPTS, attempts)
    card_ids = dict(zip(card_question, inserted_ids(db, CARDS, cards), strict=True))
    insert_rows(db, LOGS, [
        {**{key: value for key, value in log.items() if key not in ("question_id",
                                                                    "attempt_index")},
         "card_id": card_ids[log["question_id"]],
         "attempt_id": None if log["attempt_index"] is None
         else attempt_ids[log["attempt_index"]]} for log in logs])
    return attempt_ids, card_ids


def optimizer_log(db: Session, learner_id: int) -> Sequence[Any]:
    """Return a learner's reviews, by card then time, with what the fsrs optimizer reads."""
    return db.execute(
        select(LOGS.c.card_id, LOGS.c.reviewed_at, LOGS.c.rating, LOGS.c.state_before,
               LOGS.c.last_review_before, LOGS.c.duration_ms)
        .where(LOGS.c.learner_id == learner_id)
        .order_by(LOGS.c.card_id, LOGS.c.reviewed_at, LOGS.c.id)).all()
