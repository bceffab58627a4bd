"""Keep the learner's answers: attempts, fsrs cards, the review log and mastery records.

The one repository that writes those four tables for answering, explaining and rating, in
SQLAlchemy Core on the models' tables, so every value is converted by its column's type.

A graded answer is one read and one write:

- ``read_snapshot`` fetches, in one query, what the answer is decided from: the served
  variant and its sealed answer key, the learner's ``review_seq``, the question's card and
  mastery record, when its right closed-book answers were first and last submitted and when
  a wrong answer to it was last revealed (``read_run`` adds the current run of graded
  attempts when the mastery policy needs it);
- ``write_answer`` records the decided outcome on condition that ``review_seq`` still holds
  the value read and the variant is still claimable; otherwise it writes nothing and raises
  ``Stale``, and the use case redoes the answer under the learner's lock. On PostgreSQL the
  write is one statement (``quizsvc.store.answer_statement``); on SQLite a few statements in
  one transaction, which the unit of work rolls back on ``Stale``.

Every other writer of these tables takes the learner's lock first (``lock_learner``): it
bumps ``review_seq``, so a lock-free answer that read before it knows its snapshot is stale.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, bindparam, delete, func, insert, select, update

from quizsvc.review import mastery
from quizsvc.review.mastery import GradedAttempt
from quizsvc.review.outcome import MasteryChange, MasteryRecord, Review
from quizsvc.review.scheduling import DEFAULT_SETTINGS, CardState, SchedulerSettings
from quizsvc.store.answer_rows import (
    CARD_STATE,
    LOG_STATE,
    AnswerWrite,
    card_values,
    log_values,
    mastery_values,
    new_card_values,
)
from quizsvc.store.answer_statement import postgresql_write
from quizsvc.store.models import (
    Attempt,
    Learner,
    Mastery,
    ReviewCard,
    ReviewLog,
    ServedVariant,
    table,
)
from quizsvc.store.repository import Repository, Stale
from quizsvc.store.scheduler_settings import settings_columns, settings_of

ATTEMPTS, LEARNERS, SERVED = table(Attempt), table(Learner), table(ServedVariant)
CARDS, LOGS, MASTERY = table(ReviewCard), table(ReviewLog), table(Mastery)


# ---------------------------------------------------------------- what is read


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
    # Served as practice ("try a new variant" after a reveal): its answer is never evidence.
    practice: bool = False


@dataclass(frozen=True)
class StoredAttempt:
    """One stored attempt: every column of its row."""

    id: int
    learner_id: int
    variant_id: str
    question_id: str
    lesson: str
    kind: str
    seed: int
    bank_version: str
    answer: Any
    graded: bool
    correct: bool | None
    score: float | None
    misconception_id: str | None
    served_at: datetime
    submitted_at: datetime
    duration_ms: int
    closed_book: bool
    explanation: str | None
    explained_at: datetime | None
    revealed_at: datetime | None
    idempotency_key: str
    request_digest: str
    origin: str
    content_key: str | None
    practice: bool
    diagnosed_rule: str | None = None

    @classmethod
    def of(cls, row: Any) -> StoredAttempt:
        """Build one from a row of the ``attempt`` table."""
        return cls(**{field.name: getattr(row, field.name) for field in fields(cls)})


@dataclass(frozen=True)
class VariantState:
    """Who a served variant belongs to and whether it was answered."""

    learner_id: int
    answered: bool


@dataclass(frozen=True)
class KeyedAttempt:
    """An attempt found by its idempotency key, with the fingerprint of its request."""

    id: int
    request_digest: str


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


# ---------------------------------------------------------------- the queries


def meets(attempts: Any, *conditions: mastery.Condition) -> Any:
    """Return the SQL form of the mastery rule's conditions on an attempt table (or alias):
    the rule is written once, in ``review.mastery``."""
    return and_(*(attempts.c[name].is_(value) for condition in conditions
                  for name, value in condition))


def right_closed_book(variant: Any) -> Any:
    """Return the condition "a right closed-book answer to the variant's question" (what
    counts as mastery evidence)."""
    right = ATTEMPTS.alias("right_answer")
    return right, and_(right.c.learner_id == variant.c.learner_id,
                       right.c.question_id == variant.c.question_id,
                       meets(right, mastery.READ, mastery.EVIDENCE))


def last_wrong_reveal(variant: Any) -> Any:
    """Return "when a wrong answer to the variant's question was last revealed" (a subquery)."""
    wrong = ATTEMPTS.alias("revealed_wrong")
    return (select(func.max(wrong.c.revealed_at))
            .where(wrong.c.learner_id == variant.c.learner_id,
                   wrong.c.question_id == variant.c.question_id,
                   meets(wrong, mastery.READ, mastery.ENDS_RUN))
            .scalar_subquery())


def snapshot_query() -> Select[Any]:
    """Build the snapshot's one query (three look-ups on the attempts' question index)."""
    right, condition = right_closed_book(SERVED)
    return (
        select(SERVED.c.learner_id, SERVED.c.question_id, SERVED.c.lesson, SERVED.c.kind,
               SERVED.c.seed, SERVED.c.served_at, SERVED.c.answered, SERVED.c.bank_version,
               SERVED.c.open_book, SERVED.c.answer_key, SERVED.c.content_key,
               SERVED.c.practice, LEARNERS.c.review_seq,
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

# The current run: the graded attempts from the latest wrong one on (that one included; so are
# any submitted at the same instant, which the policy's order, submitted_at then id, may put
# before it: it resets them). The verdict depends on nothing earlier, as a wrong answer resets
# it; reading only the run keeps a long history from costing every answer.
_WRONG = ATTEMPTS.alias("wrong")
RUN = (
    select(ATTEMPTS.c.id, ATTEMPTS.c.seed, ATTEMPTS.c.bank_version, ATTEMPTS.c.content_key,
           ATTEMPTS.c.submitted_at, ATTEMPTS.c.correct, ATTEMPTS.c.closed_book)
    .where(ATTEMPTS.c.learner_id == bindparam("learner_id"),
           ATTEMPTS.c.question_id == bindparam("question_id"), meets(ATTEMPTS, mastery.READ),
           ATTEMPTS.c.submitted_at >= func.coalesce(
               select(func.max(_WRONG.c.submitted_at))
               .where(_WRONG.c.learner_id == bindparam("learner_id"),
                      _WRONG.c.question_id == bindparam("question_id"),
                      meets(_WRONG, mastery.READ, mastery.ENDS_RUN))
               .scalar_subquery(),
               ATTEMPTS.c.submitted_at))
    .order_by(ATTEMPTS.c.submitted_at, ATTEMPTS.c.id))

BUMP_SEQ = (update(LEARNERS)
            .where(LEARNERS.c.id == bindparam("b_learner"),
                   LEARNERS.c.review_seq == bindparam("b_seq"))
            .values(review_seq=LEARNERS.c.review_seq + 1))
CLAIM = (update(SERVED)
         .where(SERVED.c.id == bindparam("b_variant"), SERVED.c.answered.is_(False),
                SERVED.c.open_book == bindparam("b_open_book"))
         .values(answered=True))
LOCK_LEARNER = (update(LEARNERS).where(LEARNERS.c.id == bindparam("b_learner"))
                .values(review_seq=LEARNERS.c.review_seq + 1))
INSERT_ATTEMPT = insert(ATTEMPTS).returning(ATTEMPTS.c.id)
INSERT_CARD = insert(CARDS).returning(CARDS.c.id)
UPDATE_CARD = (update(CARDS).where(CARDS.c.id == bindparam("b_card"))
               .values({name: bindparam(name) for name in CARD_STATE}))
INSERT_LOG = insert(LOGS)
ATTEMPT_BY_ID = select(ATTEMPTS).where(ATTEMPTS.c.id == bindparam("b_attempt"))


def graded_attempt(row: Any) -> GradedAttempt:
    """Return what the mastery policy reads of an attempt row."""
    return mastery.graded_attempt(row.id, row.content_key, row.seed, row.bank_version,
                                  row.submitted_at, row.correct, row.closed_book)


def mastery_row(change: MasteryChange, learner_id: int, question_id: str) -> Any:
    """Return which mastery row an "update" or a "lapse" changes."""
    if change.action == "update":
        return MASTERY.c.id == change.record_id
    return and_(MASTERY.c.learner_id == learner_id, MASTERY.c.question_id == question_id,
                MASTERY.c.mastered.is_(True))


class AnswerRepository(Repository):
    """Read and write the learner's attempts, cards, review log and mastery records."""

    # ------------------------------------------------------------ answering

    def read_snapshot(self, variant_id: str) -> AnswerSnapshot | None:
        """Read what answering ``variant_id`` needs (None: no such variant)."""
        row = self.connection.execute(SNAPSHOT, {"variant_id": variant_id}).first()
        if row is None:
            return None
        card = None
        if row.card_id is not None:
            card = StoredCard(row.card_id,
                              CardState(*(getattr(row, name) for name in CARD_STATE)))
        span = None if row.first_right is None else (row.first_right, row.last_right)
        return AnswerSnapshot(
            variant_id=variant_id, learner_id=row.learner_id, question_id=row.question_id,
            lesson=row.lesson, kind=row.kind, seed=row.seed, served_at=row.served_at,
            answered=row.answered, bank_version=row.bank_version, open_book=row.open_book,
            answer_key=row.answer_key, content_key=row.content_key,
            review_seq=row.review_seq, card=card,
            mastery=MasteryRecord(row.mastery_id, bool(row.mastered)),
            right_closed_book_span=span, last_wrong_reveal=row.last_wrong_reveal,
            settings=settings_of(row.desired_retention, row.fsrs_parameters),
            practice=bool(row.practice))

    def read_run(self, learner_id: int, question_id: str) -> list[GradedAttempt]:
        """Read the question's current run of graded attempts, oldest first
        (``mastery.evaluate`` gives the same verdict on it as on the whole history)."""
        rows = self.connection.execute(RUN, {"learner_id": learner_id,
                                             "question_id": question_id})
        return [graded_attempt(row) for row in rows]

    def graded_history(self, learner_id: int) -> list[tuple[str, GradedAttempt]]:
        """Return every graded attempt of a learner as (question id, what the policy reads)."""
        rows = self.connection.execute(
            select(ATTEMPTS.c.question_id, ATTEMPTS.c.id, ATTEMPTS.c.seed,
                   ATTEMPTS.c.bank_version, ATTEMPTS.c.content_key, ATTEMPTS.c.submitted_at,
                   ATTEMPTS.c.correct, ATTEMPTS.c.closed_book)
            .where(ATTEMPTS.c.learner_id == learner_id, meets(ATTEMPTS, mastery.READ)))
        return [(row.question_id, graded_attempt(row)) for row in rows]

    def write_answer(self, write: AnswerWrite) -> int:
        """Record one answer and return the attempt's id; raise ``Stale`` if its snapshot was.

        A reused idempotency key raises ``sqlalchemy.exc.IntegrityError``. Either way the
        unit of work's shape rolls back whatever this wrote.
        """
        if self.dialect == "postgresql":
            statement, params = postgresql_write(write)
            found: int | None = self.connection.execute(statement, params).scalar()
        else:
            found = self.sqlite_write(write)
        if found is None:
            raise Stale(write.attempt.variant_id)
        return found

    def sqlite_write(self, write: AnswerWrite) -> int | None:
        """Write an answer statement by statement, stopping at the first sign of staleness."""
        conn = self.connection
        attempt = write.attempt
        keys = {"b_learner": write.learner_id, "b_seq": write.review_seq,
                "b_variant": attempt.variant_id, "b_open_book": write.open_book}
        if conn.execute(BUMP_SEQ, keys).rowcount != 1 or conn.execute(CLAIM,
                                                                      keys).rowcount != 1:
            return None
        attempt_id: int = conn.execute(INSERT_ATTEMPT, attempt.columns()).scalar_one()
        entry = write.review
        if entry is not None:
            card_id = write.card_id
            if card_id is None:
                card_id = conn.execute(INSERT_CARD, new_card_values(
                    write.learner_id, attempt.question_id, attempt.lesson, entry,
                    attempt.submitted_at)).scalar_one()
            else:
                conn.execute(UPDATE_CARD, {"b_card": card_id, **card_values(entry.after)})
            conn.execute(INSERT_LOG, {
                "card_id": card_id, "attempt_id": attempt_id,
                **log_values(write.learner_id, entry, attempt.duration_ms, False)})
        if write.mastery is not None:
            self.write_mastery(write.learner_id, attempt.question_id, attempt.lesson,
                               write.mastery, attempt_id)
        return attempt_id

    def write_mastery(self, learner_id: int, question_id: str, lesson: str,
                      change: MasteryChange, attempt_id: int) -> None:
        """Apply one mastery change (the mastery policy's decision) to its row."""
        values = mastery_values(change, attempt_id)
        if change.action == "insert":
            self.connection.execute(insert(MASTERY).values(
                learner_id=learner_id, question_id=question_id, lesson=lesson, **values))
        else:
            self.connection.execute(update(MASTERY)
                                    .where(mastery_row(change, learner_id, question_id))
                                    .values(values))

    def review_version(self, learner_id: int) -> tuple[int, datetime | None]:
        """Return the learner's review counter, which moves with every change to their
        attempts, cards, review log or mastery, and when the learner was made (a row id a
        database reuses after a deletion names another learner); (0, None) if not stored."""
        row = self.connection.execute(select(LEARNERS.c.review_seq, LEARNERS.c.created_at)
                                      .where(LEARNERS.c.id == learner_id)).first()
        return (0, None) if row is None else (row.review_seq, row.created_at)

    def lock_learner(self, learner_id: int) -> None:
        """Apply this learner's reviews one at a time: lock the learner row until the commit.

        Every use case that changes a learner's attempts, cards, review log or mastery takes
        it first (``UnitOfWork.locked``). The row lock keeps two browsers of one learner from
        both creating a question's card or reviewing the same state (a lost update); bumping
        ``review_seq`` tells a lock-free answer that what it read may be stale. An UPDATE of
        a non-key column takes PostgreSQL's ``FOR NO KEY UPDATE`` lock, so the learner's
        other inserts (foreign keys) are not blocked; on SQLite the writer's transaction
        already serialises them.
        """
        self.connection.execute(LOCK_LEARNER, {"b_learner": learner_id})

    def review_seq_of(self, learner_id: int) -> int:
        """Return the learner's ``review_seq``: it moves on with every change to their
        reviews or settings, so a reader can tell afterwards whether what it read still holds."""
        return int(self.connection.scalar(select(LEARNERS.c.review_seq)
                                          .where(LEARNERS.c.id == learner_id)) or 0)

    # ------------------------------------------------------------ attempts

    def variant_state(self, variant_id: str) -> VariantState | None:
        """Return a served variant's owner and answered flag (None: no such variant)."""
        row = self.connection.execute(select(SERVED.c.learner_id, SERVED.c.answered)
                                      .where(SERVED.c.id == variant_id)).first()
        return None if row is None else VariantState(row.learner_id, row.answered)

    def find_by_key(self, learner_id: int, idempotency_key: str) -> KeyedAttempt | None:
        """Return this learner's attempt under ``idempotency_key``, if any."""
        row = self.connection.execute(
            select(ATTEMPTS.c.id, ATTEMPTS.c.request_digest)
            .where(ATTEMPTS.c.learner_id == learner_id,
                   ATTEMPTS.c.idempotency_key == idempotency_key)).first()
        return None if row is None else KeyedAttempt(row.id, row.request_digest)

    def attempt(self, learner_id: int, attempt_id: int) -> StoredAttempt | None:
        """Return one of this learner's attempts (None: unknown, or another learner's)."""
        row = self.connection.execute(ATTEMPT_BY_ID, {"b_attempt": attempt_id}).first()
        return StoredAttempt.of(row) if row is not None and row.learner_id == learner_id \
            else None

    def rating_of(self, attempt_id: int) -> int | None:
        """Return the fsrs rating of an attempt's review (None: not reviewed)."""
        rating: int | None = self.connection.scalar(
            select(LOGS.c.rating).where(LOGS.c.attempt_id == attempt_id))
        return rating

    def record_explanation(self, attempt_id: int, explanation: str, rule: str | None,
                           now: datetime) -> None:
        """Store why a wrong answer was wrong and the rule the learner names as broken; that
        reveals its answer and solution."""
        self.connection.execute(update(ATTEMPTS).where(ATTEMPTS.c.id == attempt_id)
                                .values(explanation=explanation, diagnosed_rule=rule,
                                        explained_at=now, revealed_at=now))

    # ------------------------------------------------------------ reviews (ratings)

    def review_of_attempt(self, attempt_id: int) -> LoggedReview | None:
        """Return the review logged for an attempt (None: it was not reviewed yet)."""
        row = self.connection.execute(select(LOGS).where(LOGS.c.attempt_id == attempt_id)).first()
        if row is None:
            return None
        newest, oldest = self.connection.execute(
            select(func.max(LOGS.c.id), func.min(LOGS.c.id))
            .where(LOGS.c.card_id == row.card_id)).one()
        before = CardState(*(getattr(row, name) for name in LOG_STATE))
        return LoggedReview(row.id, row.card_id, row.rating, row.reviewed_at, before,
                            newest == row.id, bool(row.rated_by_learner), oldest == row.id)

    def card_of(self, learner_id: int, question_id: str) -> StoredCard | None:
        """Return the learner's card for a question (None: never reviewed)."""
        row = self.connection.execute(
            select(CARDS.c.id, *(CARDS.c[name] for name in CARD_STATE))
            .where(CARDS.c.learner_id == learner_id,
                   CARDS.c.question_id == question_id)).first()
        if row is None:
            return None
        return StoredCard(row.id, CardState(*(getattr(row, name) for name in CARD_STATE)))

    def record_review(self, learner_id: int, answered: StoredAttempt, card: StoredCard | None,
                      entry: Review, by_learner: bool) -> None:
        """Write a first review of an attempt: the card (created if new) and its log entry."""
        conn = self.connection
        if card is None:
            card_id = conn.execute(INSERT_CARD, new_card_values(
                learner_id, answered.question_id, answered.lesson, entry, entry.reviewed_at)
            ).scalar_one()
        else:
            card_id = card.id
            conn.execute(update(CARDS).where(CARDS.c.id == card_id)
                         .values(card_values(entry.after)))
        conn.execute(insert(LOGS).values(card_id=card_id, attempt_id=answered.id, **log_values(
            learner_id, entry, answered.duration_ms, by_learner)))

    def rerate_review(self, logged: LoggedReview, entry: Review) -> None:
        """Redo a logged review with another rating: the card's new state, the log's rating."""
        self.connection.execute(update(CARDS).where(CARDS.c.id == logged.card_id)
                                .values(card_values(entry.after)))
        self.connection.execute(update(LOGS).where(LOGS.c.id == logged.id)
                                .values(rating=int(entry.rating), rated_by_learner=True))

    def undo_review(self, logged: LoggedReview, kept: Review | None) -> None:
        """Take a learner's rating back: redo the review as the grade made it (``kept``, for a
        graded answer), or drop it (a self-rated card), restoring the card as it was before;
        a card the dropped review created goes with it."""
        conn = self.connection
        if kept is not None:
            conn.execute(update(CARDS).where(CARDS.c.id == logged.card_id)
                         .values(card_values(kept.after)))
            conn.execute(update(LOGS).where(LOGS.c.id == logged.id)
                         .values(rating=int(kept.rating), rated_by_learner=False))
            return
        conn.execute(delete(LOGS).where(LOGS.c.id == logged.id))
        if logged.first:
            conn.execute(delete(CARDS).where(CARDS.c.id == logged.card_id))
        else:
            conn.execute(update(CARDS).where(CARDS.c.id == logged.card_id)
                         .values(card_values(logged.before)))
