"""Read and write a graded answer in one statement each (the service's hot path).

``read_snapshot`` fetches, in one query, what the answer use case decides from: the served
variant (and its sealed answer key), the learner's ``review_seq``, the question's fsrs card,
the settings that schedule it and its mastery record (``read_snapshot_as_browser`` also
finds the browser behind the cookie, so the API's hot path needs no separate lookup); both
are read holding no lock, on either backend. ``read_run`` adds the question's current run of
graded attempts when the mastery policy needs it (a right closed-book answer to a question not
yet mastered). The use case then grades, reviews and applies the mastery policy in Python, and
``write_answer`` records the outcome:

- on PostgreSQL as **one statement** (data-modifying CTEs, run in autocommit): one round trip
  instead of nine. Its first step bumps ``learner.review_seq`` only if it still holds the value
  read, and every later step reads the row the step before returned, so a stale snapshot
  (another transaction changed this learner's reviews meanwhile) changes nothing at all;
- on SQLite as a few statements inside the writer's transaction, stopping at the first that
  finds the snapshot stale (the caller rolls back).

Either way ``write_answer`` returns the new attempt's id, or None when the snapshot was stale
or the variant could no longer be claimed; the caller then takes the locking slow path, which
sorts out retries and conflicts. Statements here carry no policy: the rows to write arrive
fully decided (``AnswerWrite``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from quizsvc.review.scheduling import DEFAULT_SETTINGS, SchedulerSettings
from quizsvc.store.driver import (
    Statement,
    StatementRunner,
    from_db_datetime,
    to_db_datetime,
    to_db_json,
)
from quizsvc.store.scheduler_settings import settings_columns, settings_of

# ---------------------------------------------------------------- read


@dataclass(frozen=True)
class CardRow:
    """The question's fsrs card as stored."""

    id: int
    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None


@dataclass(frozen=True)
class HistoryRow:
    """One earlier graded attempt of the question (what the mastery policy reads)."""

    id: int
    seed: int
    bank_version: str
    submitted_at: datetime
    correct: bool
    closed_book: bool


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
    review_seq: int
    card: CardRow | None
    mastery_id: int | None
    mastered: bool
    # When the question's right closed-book answers were submitted, first and last (None:
    # there are none): the mastery policy reads the run only if one could pair with this one.
    right_closed_book_span: tuple[datetime, datetime] | None = None
    # The FSRS parameters and desired retention that schedule this learner's card of this
    # lesson (``store.scheduler_settings``); ``review_seq`` covers a change of either.
    settings: SchedulerSettings = DEFAULT_SETTINGS


# The span: two look-ups on the (learner_id, question_id) index, in the snapshot's round trip.
RIGHT_CLOSED_BOOK = """FROM attempt r WHERE r.learner_id = sv.learner_id
         AND r.question_id = sv.question_id AND r.graded = :graded AND r.correct = :graded
         AND r.closed_book = :graded"""
SNAPSHOT_COLUMNS = f"""sv.learner_id, sv.question_id, sv.lesson, sv.kind, sv.seed, sv.served_at,
       sv.answered, sv.bank_version, sv.open_book, sv.answer_key, l.review_seq,
       rc.id, rc.state, rc.step, rc.stability, rc.difficulty, rc.due, rc.last_review,
       m.id, m.mastered,
       (SELECT min(r.submitted_at) {RIGHT_CLOSED_BOOK}),
       (SELECT max(r.submitted_at) {RIGHT_CLOSED_BOOK}),
       {settings_columns("sv.learner_id", "sv.lesson")}"""
BROWSER_ID_COLUMN = 24  # READ_SNAPSHOT_AS_BROWSER's b.id, after SNAPSHOT_COLUMNS
SNAPSHOT_JOINS = """JOIN learner l ON l.id = sv.learner_id
LEFT JOIN review_card rc ON rc.learner_id = sv.learner_id AND rc.question_id = sv.question_id
LEFT JOIN mastery m ON m.learner_id = sv.learner_id AND m.question_id = sv.question_id"""
READ_SNAPSHOT = Statement(f"""
SELECT {SNAPSHOT_COLUMNS}
FROM served_variant sv
{SNAPSHOT_JOINS}
WHERE sv.id = :variant_id
""")
# The same, for the browser behind a cookie: no row unless the browser is known and the
# variant its learner's. It saves the hot path the round trip of a separate browser lookup.
READ_SNAPSHOT_AS_BROWSER = Statement(f"""
SELECT {SNAPSHOT_COLUMNS}, b.id
FROM browser b
JOIN served_variant sv ON sv.id = :variant_id AND sv.learner_id = b.learner_id
{SNAPSHOT_JOINS}
WHERE b.token_hash = :token_hash
""")
# The current run: the graded attempts from the latest wrong one on (that one included; so are
# any submitted at the same instant, which the policy's order, submitted_at then id, may put
# before it: it resets them). The mastery verdict depends on nothing earlier, as a wrong
# answer resets it; reading only the run keeps a long history from costing every answer.
# One look for the latest wrong instant, one for the rows from it: an index range each,
# where "no wrong attempt after this one" per row (the earlier form) cost a nested scan.
READ_RUN = Statement("""
SELECT a.id, a.seed, a.bank_version, a.submitted_at, a.correct, a.closed_book FROM attempt a
WHERE a.learner_id = :learner_id AND a.question_id = :question_id AND a.graded = :graded
  AND a.submitted_at >= COALESCE((
    SELECT max(w.submitted_at) FROM attempt w
    WHERE w.learner_id = :learner_id AND w.question_id = :question_id
      AND w.graded = :graded AND w.correct = :wrong), a.submitted_at)
""")


def read_snapshot(db: StatementRunner, variant_id: str) -> AnswerSnapshot | None:
    """Read what answering ``variant_id`` needs (None: no such variant).

    Read it lock-free (each statement in autocommit) or under the learner lock.
    """
    first = db.run(READ_SNAPSHOT, {"variant_id": variant_id, "graded": True}).fetchone()
    return None if first is None else snapshot_of(variant_id, first)


def read_snapshot_as_browser(db: StatementRunner, token_hash: str, variant_id: str
                             ) -> tuple[AnswerSnapshot, int] | None:
    """Read the snapshot and the browser's id for the browser stored as ``token_hash``.

    None: the browser is unknown, or the variant is unknown or another learner's.
    """
    first = db.run(READ_SNAPSHOT_AS_BROWSER, {"token_hash": token_hash,
                                              "variant_id": variant_id,
                                              "graded": True}).fetchone()
    return None if first is None else (snapshot_of(variant_id, first), first[BROWSER_ID_COLUMN])


def snapshot_of(variant_id: str, first: Any) -> AnswerSnapshot:
    """Build the snapshot from a row of ``SNAPSHOT_COLUMNS``."""
    card = None
    if first[11] is not None:
        card = CardRow(first[11], first[12], first[13], first[14], first[15],
                       from_db_datetime(first[16]), from_db_datetime(first[17]))
    return AnswerSnapshot(
        variant_id=variant_id, learner_id=first[0], question_id=first[1], lesson=first[2],
        kind=first[3], seed=first[4], served_at=from_db_datetime(first[5]),
        answered=bool(first[6]), bank_version=first[7], open_book=bool(first[8]),
        answer_key=first[9], review_seq=first[10], card=card, mastery_id=first[18],
        mastered=bool(first[19]),
        right_closed_book_span=None if first[20] is None else (
            from_db_datetime(first[20]), from_db_datetime(first[21])),
        settings=settings_of(first[22], first[23]))


def read_run(db: StatementRunner, learner_id: int, question_id: str) -> tuple[HistoryRow, ...]:
    """Read the question's current run of graded attempts (``READ_RUN``), in the snapshot's
    transaction: ``mastery.evaluate`` gives the same verdict on it as on the whole history."""
    rows = db.run(READ_RUN, {"learner_id": learner_id, "question_id": question_id,
                             "graded": True, "wrong": False}).fetchall()
    return tuple(HistoryRow(row[0], row[1], row[2], from_db_datetime(row[3]), bool(row[4]),
                            bool(row[5])) for row in rows)


# ---------------------------------------------------------------- write


@dataclass(frozen=True)
class AnswerWrite:
    """The rows one answer writes, fully decided; ``None`` parts are not written.

    ``attempt`` holds ``attempt`` columns except ``id``; ``card`` the ``review_card`` state
    columns (plus, for a new card, ``learner_id``, ``question_id``, ``lesson``,
    ``created_at``); ``log`` the ``review_log`` columns except ``card_id`` and
    ``attempt_id``; ``mastery`` the ``mastery`` columns to set, its ``evidence`` naming the
    new attempt as ``NEW_ATTEMPT_ID``. ``card_id`` None with a
    ``card`` means "insert it"; ``mastery_action`` is "insert", "update" (by
    ``mastery_id``) or "lapse" (set it not mastered if it is mastered).
    """

    learner_id: int
    review_seq: int
    variant_id: str
    open_book: bool
    attempt: dict[str, Any]
    card_id: int | None = None
    card: dict[str, Any] | None = None
    log: dict[str, Any] | None = None
    mastery_action: str | None = None
    mastery_id: int | None = None
    mastery: dict[str, Any] | None = None


# PostgreSQL types of the columns written, for the casts the CTE needs: parameters in a
# SELECT list would otherwise be typed text (a NULL datetime, say, then fails to insert).
ATTEMPT_COLUMNS = (
    ("learner_id", "integer"), ("variant_id", "varchar"), ("question_id", "varchar"),
    ("lesson", "varchar"), ("kind", "varchar"), ("seed", "bigint"),
    ("bank_version", "varchar"), ("answer", "json"), ("graded", "boolean"),
    ("correct", "boolean"), ("score", "double precision"), ("misconception_id", "varchar"),
    ("served_at", "timestamptz"), ("submitted_at", "timestamptz"), ("duration_ms", "integer"),
    ("closed_book", "boolean"), ("explanation", "text"), ("explained_at", "timestamptz"),
    ("revealed_at", "timestamptz"), ("idempotency_key", "varchar"),
    ("request_digest", "varchar"))
CARD_STATE_COLUMNS = (
    ("state", "smallint"), ("step", "smallint"), ("stability", "double precision"),
    ("difficulty", "double precision"), ("due", "timestamptz"), ("last_review", "timestamptz"))
NEW_CARD_COLUMNS = (("learner_id", "integer"), ("question_id", "varchar"),
                    ("lesson", "varchar"), *CARD_STATE_COLUMNS, ("created_at", "timestamptz"))
LOG_COLUMNS = (
    ("learner_id", "integer"), ("rating", "smallint"), ("reviewed_at", "timestamptz"),
    ("duration_ms", "integer"), ("rated_by_learner", "boolean"),
    ("state_before", "smallint"), ("step_before", "smallint"),
    ("stability_before", "double precision"), ("difficulty_before", "double precision"),
    ("due_before", "timestamptz"), ("last_review_before", "timestamptz"))
# ``evidence`` (a JSON list of attempt ids) is written apart: it may name the new attempt,
# whose id exists only once the attempt row does (``NEW_ATTEMPT_ID`` stands in for it).
MASTERY_COLUMNS = (
    ("mastered", "boolean"), ("mastered_at", "timestamptz"), ("policy", "varchar"),
    ("evaluated_at", "timestamptz"))
NEW_MASTERY_COLUMNS = (("learner_id", "integer"), ("question_id", "varchar"),
                       ("lesson", "varchar"), *MASTERY_COLUMNS)
JSON_COLUMNS = frozenset({"answer"})
NEW_ATTEMPT_ID = 2**62  # larger than any row id: the new attempt sorts after every other
DATETIME_TYPE = "timestamptz"


def bound(prefix: str, columns: Iterable[tuple[str, str]], values: dict[str, Any],
          dialect: str) -> dict[str, Any]:
    """Return driver parameters ``<prefix><column>`` for ``values``, converted per column type."""
    params = {}
    for name, sql_type in columns:
        value = values[name]
        if name in JSON_COLUMNS:
            value = to_db_json(value)
        elif sql_type == DATETIME_TYPE:
            value = to_db_datetime(value, dialect)
        params[prefix + name] = value
    return params


def placeholders(prefix: str, columns: Iterable[tuple[str, str]], cast: bool) -> str:
    """Return ``:prefix_column`` placeholders, each cast to its PostgreSQL type if asked."""
    return ", ".join(f"CAST(:{prefix}{name} AS {sql_type})" if cast else f":{prefix}{name}"
                     for name, sql_type in columns)


def names(columns: Iterable[tuple[str, str]]) -> str:
    """Return the column names, comma separated."""
    return ", ".join(name for name, _ in columns)


def assignments(prefix: str, columns: Iterable[tuple[str, str]], cast: bool) -> str:
    """Return ``column = :prefix_column`` assignments (cast on PostgreSQL)."""
    return ", ".join(
        f"{name} = CAST(:{prefix}{name} AS {sql_type})" if cast else f"{name} = :{prefix}{name}"
        for name, sql_type in columns)


def write_params(write: AnswerWrite, dialect: str) -> dict[str, Any]:
    """Return every parameter the write's statements use."""
    params = {"learner_id": write.learner_id, "review_seq": write.review_seq,
              "variant_id": write.variant_id, "open_book": write.open_book,
              "card_id": write.card_id, "mastery_id": write.mastery_id,
              "question_id": write.attempt["question_id"]}
    params.update(bound("a_", ATTEMPT_COLUMNS, write.attempt, dialect))
    if write.card is not None:
        params.update(bound("c_", NEW_CARD_COLUMNS if write.card_id is None
                            else CARD_STATE_COLUMNS, write.card, dialect))
    if write.log is not None:
        params.update(bound("l_", LOG_COLUMNS, write.log, dialect))
    if write.mastery is not None:
        params.update(bound("m_", NEW_MASTERY_COLUMNS if write.mastery_action == "insert"
                            else MASTERY_COLUMNS, write.mastery, dialect))
        params.update({f"m_ev{i}": attempt_id
                       for i, attempt_id in enumerate(write.mastery["evidence"])})
    return params


def shape(write: AnswerWrite) -> tuple[str, str, str, tuple[bool, ...]]:
    """Name the statements a write needs: card (none/insert/update), log, mastery action,
    and which evidence entries are the new attempt."""
    card = "none" if write.card is None else ("insert" if write.card_id is None else "update")
    evidence = tuple(attempt_id == NEW_ATTEMPT_ID
                     for attempt_id in (write.mastery or {}).get("evidence", ()))
    return (card, "log" if write.log is not None else "none", write.mastery_action or "none",
            evidence)


def evidence_json(evidence: list[int], attempt_id: int) -> str:
    """Return the evidence list as JSON text, the new attempt's id filled in."""
    return to_db_json([attempt_id if entry == NEW_ATTEMPT_ID else entry for entry in evidence])


# ---- PostgreSQL: one statement


# Which mastery row an "update" or a "lapse" changes.
MASTERY_ROW = {
    "update": "mastery.id = :mastery_id",
    "lapse": "mastery.learner_id = :learner_id AND mastery.question_id = :question_id "
             "AND mastery.mastered = TRUE",
}


def postgresql_statement(card: str, log: str, mastery: str, evidence: tuple[bool, ...]
                         ) -> Statement:
    """Build the single data-modifying statement for one write shape.

    Each step selects FROM the step before, so nothing is written unless ``seq`` (the
    learner's counter, bumped only if unchanged) and ``claim`` (the variant, still
    unanswered and as open- or closed-book as read) both returned their row. Every step of a
    WITH runs to completion, so ``seq`` also checks that the variant is claimable as of the
    statement's start: only a change to the variant committed while this very statement runs
    can leave the counter bumped with nothing else written, which costs at most one locked
    retry of another answer. The foreign keys between the new rows are checked at the end
    of the statement, when all exist.
    """
    parts = [
        "seq AS (UPDATE learner SET review_seq = review_seq + 1 "
        "WHERE id = :learner_id AND review_seq = :review_seq AND EXISTS ("
        "SELECT 1 FROM served_variant WHERE id = :variant_id AND answered = FALSE "
        "AND open_book = :open_book) RETURNING id)",
        "claim AS (UPDATE served_variant SET answered = TRUE FROM seq "
        "WHERE served_variant.id = :variant_id AND served_variant.answered = FALSE "
        "AND served_variant.open_book = :open_book RETURNING served_variant.id)",
        f"att AS (INSERT INTO attempt ({names(ATTEMPT_COLUMNS)}) "
        f"SELECT {placeholders('a_', ATTEMPT_COLUMNS, cast=True)} FROM claim RETURNING id)",
    ]
    if card == "insert":
        parts.append(
            f"card AS (INSERT INTO review_card ({names(NEW_CARD_COLUMNS)}) "
            f"SELECT {placeholders('c_', NEW_CARD_COLUMNS, cast=True)} FROM att RETURNING id)")
    elif card == "update":
        parts.append(
            f"card AS (UPDATE review_card SET {assignments('c_', CARD_STATE_COLUMNS, True)} "
            "FROM att WHERE review_card.id = :card_id RETURNING review_card.id)")
    if log == "log":
        parts.append(
            f"log AS (INSERT INTO review_log (card_id, attempt_id, {names(LOG_COLUMNS)}) "
            f"SELECT card.id, att.id, {placeholders('l_', LOG_COLUMNS, cast=True)} "
            "FROM card, att RETURNING id)")
    entries = ", ".join("att.id" if new else f"CAST(:m_ev{i} AS integer)"
                        for i, new in enumerate(evidence))
    proof = f"json_build_array({entries})"
    if mastery == "insert":
        parts.append(
            f"mastery_change AS (INSERT INTO mastery ({names(NEW_MASTERY_COLUMNS)}, evidence) "
            f"SELECT {placeholders('m_', NEW_MASTERY_COLUMNS, cast=True)}, {proof} FROM att "
            "RETURNING id)")
    elif mastery in MASTERY_ROW:
        parts.append(
            f"mastery_change AS (UPDATE mastery SET {assignments('m_', MASTERY_COLUMNS, True)}, "
            f"evidence = {proof} FROM att WHERE {MASTERY_ROW[mastery]} RETURNING mastery.id)")
    return Statement("WITH " + ",\n".join(parts) + "\nSELECT id FROM att")


# ---- SQLite: a few statements in the writer's transaction

SQLITE_BUMP = Statement("UPDATE learner SET review_seq = review_seq + 1 "
                        "WHERE id = :learner_id AND review_seq = :review_seq")
SQLITE_CLAIM = Statement("UPDATE served_variant SET answered = 1 WHERE id = :variant_id "
                         "AND answered = 0 AND open_book = :open_book")
SQLITE_ATTEMPT = Statement(f"INSERT INTO attempt ({names(ATTEMPT_COLUMNS)}) "
                           f"VALUES ({placeholders('a_', ATTEMPT_COLUMNS, cast=False)})")
SQLITE_NEW_CARD = Statement(f"INSERT INTO review_card ({names(NEW_CARD_COLUMNS)}) "
                            f"VALUES ({placeholders('c_', NEW_CARD_COLUMNS, cast=False)})")
SQLITE_CARD = Statement(f"UPDATE review_card SET {assignments('c_', CARD_STATE_COLUMNS, False)} "
                        "WHERE id = :card_id")
SQLITE_LOG = Statement(f"INSERT INTO review_log (card_id, attempt_id, {names(LOG_COLUMNS)}) "
                       f"VALUES (:card_id, :attempt_id, "
                       f"{placeholders('l_', LOG_COLUMNS, cast=False)})")
SQLITE_MASTERY = {
    "insert": Statement(f"INSERT INTO mastery ({names(NEW_MASTERY_COLUMNS)}, evidence) "
                        f"VALUES ({placeholders('m_', NEW_MASTERY_COLUMNS, cast=False)}, "
                        ":m_evidence)"),
    **{action: Statement(f"UPDATE mastery SET {assignments('m_', MASTERY_COLUMNS, False)}, "
                         f"evidence = :m_evidence WHERE {where}")
       for action, where in MASTERY_ROW.items()},
}

POSTGRESQL_STATEMENTS: dict[tuple[str, str, str], Statement] = {}

# The learner lock for a retry: the row lock (PostgreSQL) and the bump that tells lock-free
# answers their snapshot is stale. ``study.lock_learner`` is the same, through the session.
LOCK_LEARNER = Statement("UPDATE learner SET review_seq = review_seq + 1 WHERE id = :learner_id")


def lock_learner(db: StatementRunner, learner_id: int) -> None:
    """Lock the learner row and bump ``review_seq`` in ``db``'s open transaction."""
    db.run(LOCK_LEARNER, {"learner_id": learner_id})


def write_answer(db: StatementRunner, write: AnswerWrite) -> int | None:
    """Record one answer; return the attempt's id, or None if the snapshot was stale.

    ``db`` is in a write transaction (``DriverConnection.begin``; on PostgreSQL outside the
    learner lock ``one_statement=True``: the one statement is its own transaction). Roll it
    back when this returns None. A reused idempotency key raises
    ``sqlalchemy.exc.IntegrityError`` with nothing written.
    """
    params = write_params(write, db.dialect)
    if db.dialect == "postgresql":
        key = shape(write)
        statement = POSTGRESQL_STATEMENTS.get(key)
        if statement is None:
            statement = POSTGRESQL_STATEMENTS[key] = postgresql_statement(*key)
        row = db.run(statement, params).fetchone()
        return row[0] if row else None
    if db.run(SQLITE_BUMP, params).rowcount != 1:
        return None
    if db.run(SQLITE_CLAIM, params).rowcount != 1:
        return None
    attempt_id = db.run(SQLITE_ATTEMPT, params).lastrowid
    card_id = write.card_id
    if write.card is not None:
        if card_id is None:
            card_id = db.run(SQLITE_NEW_CARD, params).lastrowid
        elif db.run(SQLITE_CARD, params).rowcount != 1:
            return None
    if write.log is not None:
        db.run(SQLITE_LOG, {**params, "card_id": card_id, "attempt_id": attempt_id})
    if write.mastery is not None and write.mastery_action is not None:
        db.run(SQLITE_MASTERY[write.mastery_action], {
            **params, "m_evidence": evidence_json(write.mastery["evidence"], attempt_id)})
    return attempt_id
