"""The driver path writes and reads values exactly as the SQLAlchemy column types do.

``quizsvc.store.driver`` runs the hot paths' statements on the DB-API connection and converts
values by hand. Rows it writes are read by the ORM everywhere else (and the other way round),
so each conversion is pinned against the ORM here, on both backends: datetimes (SQLite keeps
them as text, compared as text by every due queue), JSON ``null``, placeholders, and errors.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from quizsvc.store.driver import (
    DriverCursor,
    Statement,
    from_db_datetime,
    from_db_json,
    to_db_datetime,
    to_db_json,
)
from quizsvc.store.models import Learner, Mastery, ReviewCard

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
KOLKATA = timezone(timedelta(hours=5, minutes=30))
BRASILIA = timezone(timedelta(hours=-3))
MOMENTS = {
    "whole second, UTC": NOW,
    "microseconds, UTC": NOW + timedelta(microseconds=123456),
    "one microsecond past midnight": datetime(2026, 11, 3, 0, 0, 0, 1, tzinfo=UTC),
    "microseconds, UTC+05:30": datetime(2026, 11, 2, 23, 59, 59, 999999, tzinfo=KOLKATA),
    "UTC-03:00, another UTC day": datetime(2026, 11, 2, 22, 30, tzinfo=BRASILIA),
}

INSERT_LEARNER = Statement("INSERT INTO learner (created_at) VALUES (:created_at) RETURNING id")
LEARNER_CREATED = Statement("SELECT created_at FROM learner WHERE id = :id")
INSERT_CARD = Statement(
    "INSERT INTO review_card (learner_id, question_id, lesson, state, step, due, created_at) "
    "VALUES (:learner_id, :question_id, 'lesson', 1, 0, :due, :created_at)")
DUE_BY_DRIVER = Statement(
    "SELECT question_id FROM review_card WHERE learner_id = :learner_id AND due <= :now "
    "ORDER BY due")
INSERT_MASTERY = Statement(
    "INSERT INTO mastery (learner_id, question_id, lesson, mastered, evidence, policy, "
    "evaluated_at) VALUES (:learner_id, :question_id, 'lesson', :mastered, :evidence, 'p', "
    ":evaluated_at)")


def assert_utc(value: datetime | None, expected: datetime) -> None:
    """Assert ``value`` is ``expected``, as an aware datetime in UTC."""
    assert value == expected
    assert value is not None and value.tzinfo is UTC


def new_learner(db: Session) -> int:
    """Add a learner through the ORM and return its id."""
    learner = Learner(created_at=NOW)
    db.add(learner)
    db.flush()
    return learner.id


# ---------------------------------------------------------------- datetimes


@pytest.mark.parametrize("moment", MOMENTS.values(), ids=MOMENTS.keys())
def test_a_datetime_written_by_the_driver_reads_back_equal_through_the_orm(
        db: Session, moment: datetime) -> None:
    cursor = DriverCursor(db)
    learner_id = cursor.run(INSERT_LEARNER, {
        "created_at": to_db_datetime(moment, cursor.dialect)}).fetchone()[0]
    assert_utc(db.get(Learner, learner_id).created_at, moment)


@pytest.mark.parametrize("moment", MOMENTS.values(), ids=MOMENTS.keys())
def test_a_datetime_written_by_the_orm_reads_back_equal_through_the_driver(
        db: Session, backend: str, moment: datetime) -> None:
    if backend == "postgresql":  # psycopg then returns values in a zone other than UTC
        db.connection().exec_driver_sql("SET LOCAL TIME ZONE 'Asia/Kolkata'")
    learner = Learner(created_at=moment)
    db.add(learner)
    db.flush()
    raw = DriverCursor(db).run(LEARNER_CREATED, {"id": learner.id}).fetchone()[0]
    assert_utc(from_db_datetime(raw), moment)


@pytest.mark.parametrize("moment", MOMENTS.values(), ids=MOMENTS.keys())
def test_on_sqlite_the_driver_stores_the_very_text_the_orm_stores(
        db: Session, backend: str, moment: datetime) -> None:
    if backend != "sqlite":
        pytest.skip("PostgreSQL stores timestamptz, not text: the tests above cover it")
    learner = Learner(created_at=moment)
    db.add(learner)
    db.flush()
    cursor = DriverCursor(db)
    by_orm = cursor.run(LEARNER_CREATED, {"id": learner.id}).fetchone()[0]
    assert to_db_datetime(moment, "sqlite") == by_orm


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_a_naive_datetime_is_refused(dialect: str) -> None:
    with pytest.raises(ValueError, match="naive"):
        to_db_datetime(datetime(2026, 11, 2, 9, 0), dialect)


def test_none_stays_none_both_ways() -> None:
    assert to_db_datetime(None, "sqlite") is None
    assert from_db_datetime(None) is None


def test_a_due_queue_compares_rows_written_by_the_driver_and_by_the_orm_alike(
        db: Session) -> None:
    """Every row is compared against ``now`` bound by the ORM and by the driver.

    On SQLite ``due`` is text: a row whose text differed in format (a ``T`` separator, no
    microseconds, a local offset kept) would sort on the wrong side of ``now``.
    """
    learner_id = new_learner(db)
    written_by_orm = {
        "orm, 1 s early": NOW - timedelta(seconds=1),
        "orm, 1 us late": NOW + timedelta(microseconds=1),
        "orm, 1 h late, UTC-05:00": (NOW + timedelta(hours=1)).astimezone(
            timezone(timedelta(hours=-5))),
    }
    written_by_driver = {
        "driver, 1 h early, UTC+05:00": (NOW - timedelta(hours=1)).astimezone(
            timezone(timedelta(hours=5))),
        "driver, 1 us early, UTC+05:30": (NOW - timedelta(microseconds=1)).astimezone(KOLKATA),
        "driver, exactly now": NOW,
        "driver, 2 us late, UTC-03:00": (NOW + timedelta(microseconds=2)).astimezone(BRASILIA),
        "driver, 2 h late, UTC-05:00": (NOW + timedelta(hours=2)).astimezone(
            timezone(timedelta(hours=-5))),
    }
    db.add_all(ReviewCard(learner_id=learner_id, question_id=name, lesson="lesson", state=1,
                          step=0, due=due, created_at=NOW)
               for name, due in written_by_orm.items())
    db.flush()
    cursor = DriverCursor(db)
    for name, due in written_by_driver.items():
        cursor.run(INSERT_CARD, {"learner_id": learner_id, "question_id": name,
                                 "due": to_db_datetime(due, cursor.dialect),
                                 "created_at": to_db_datetime(NOW, cursor.dialect)})
    by_due = sorted({**written_by_orm, **written_by_driver}.items(), key=lambda item: item[1])
    expected_due = [name for name, due in by_due if due <= NOW]
    assert len(expected_due) == 4

    assert db.scalars(select(ReviewCard.question_id).where(ReviewCard.learner_id == learner_id)
                      .order_by(ReviewCard.due)).all() == [name for name, _ in by_due]
    assert db.scalars(select(ReviewCard.question_id).where(
        ReviewCard.learner_id == learner_id, ReviewCard.due <= NOW)
        .order_by(ReviewCard.due)).all() == expected_due
    assert [row[0] for row in cursor.run(DUE_BY_DRIVER, {
        "learner_id": learner_id, "now": to_db_datetime(NOW, cursor.dialect)}).fetchall()
            ] == expected_due
    for card in db.scalars(select(ReviewCard).where(ReviewCard.learner_id == learner_id)):
        assert_utc(card.due, {**written_by_orm, **written_by_driver}[card.question_id])


# ---------------------------------------------------------------- JSON


def test_json_none_is_stored_as_sqlalchemy_stores_it_a_json_null(db: Session) -> None:
    learner_id = new_learner(db)
    db.add(Mastery(learner_id=learner_id, question_id="by-orm", lesson="lesson",
                   mastered=False, evidence=None, policy="p", evaluated_at=NOW))
    db.flush()
    cursor = DriverCursor(db)
    cursor.run(INSERT_MASTERY, {"learner_id": learner_id, "question_id": "by-driver",
                                "mastered": False, "evidence": to_db_json(None),
                                "evaluated_at": to_db_datetime(NOW, cursor.dialect)})
    stored = cursor.run(Statement(
        "SELECT question_id, evidence IS NULL, CAST(evidence AS TEXT), evidence FROM mastery "
        "WHERE learner_id = :learner_id ORDER BY question_id"),
        {"learner_id": learner_id}).fetchall()
    assert [(name, bool(is_null), as_text) for name, is_null, as_text, _ in stored] == [
        ("by-driver", False, "null"), ("by-orm", False, "null")]
    assert [from_db_json(raw, cursor.dialect) for *_, raw in stored] == [None, None]
    db.expire_all()
    assert db.scalars(select(Mastery.evidence).where(Mastery.learner_id == learner_id)
                      ).all() == [None, None]


@pytest.mark.parametrize("value", [[], [3, 17], {"a": [1, None]}, 2.5, True,
                                   "running", "5", "null"])
def test_json_values_round_trip_through_the_driver_and_the_orm(
        db: Session, value: object) -> None:
    """Strings too: they are JSON values the service stores (a choice or free-text answer)."""
    learner_id = new_learner(db)
    cursor = DriverCursor(db)
    cursor.run(INSERT_MASTERY, {"learner_id": learner_id, "question_id": "q",
                                "mastered": False, "evidence": to_db_json(value),
                                "evaluated_at": to_db_datetime(NOW, cursor.dialect)})
    assert db.scalars(select(Mastery.evidence).where(Mastery.learner_id == learner_id)
                      ).one() == value
    raw = cursor.run(Statement("SELECT evidence FROM mastery WHERE learner_id = :learner_id"),
                     {"learner_id": learner_id}).fetchone()[0]
    assert from_db_json(raw, cursor.dialect) == value


# ---------------------------------------------------------------- statements


@pytest.mark.parametrize(("sql", "postgresql"), [
    ("SELECT :a", "SELECT %(a)s"),
    ("WHERE id = :variant_id AND seq = :review_seq2",
     "WHERE id = %(variant_id)s AND seq = %(review_seq2)s"),
    ("SELECT x::integer, :a::text", "SELECT x::integer, %(a)s::text"),
    ("SELECT CAST(:a AS integer)", "SELECT CAST(%(a)s AS integer)"),
    ("SELECT '50%' || :a", "SELECT '50%%' || %(a)s"),
    ("SELECT '09:00', 'a:b'", "SELECT '09:00', 'a:b'"),
    ("SELECT 1", "SELECT 1"),
])
def test_a_statement_renders_placeholders_for_psycopg_and_leaves_sqlite_s_alone(
        sql: str, postgresql: str) -> None:
    statement = Statement(sql)
    assert statement.text("postgresql") == statement.postgresql == postgresql
    assert statement.text("sqlite") == sql


def test_a_statement_with_a_percent_sign_and_a_placeholder_runs_on_either_driver(
        db: Session) -> None:
    row = DriverCursor(db).run(Statement("SELECT '50%' || CAST(:a AS VARCHAR(10)), :b"),
                               {"a": "x", "b": 7}).fetchone()
    assert tuple(row) == ("50%x", 7)


# ---------------------------------------------------------------- errors


def test_a_driver_error_comes_out_as_sqlalchemy_s_integrity_error(db: Session) -> None:
    learner_id = new_learner(db)
    cursor = DriverCursor(db)
    sql = Statement("INSERT INTO learner (id, created_at) VALUES (:id, :created_at)").text(
        cursor.dialect)
    with pytest.raises(IntegrityError) as raised:
        cursor.execute(sql, {"id": learner_id, "created_at": to_db_datetime(NOW, cursor.dialect)})
    error = raised.value
    assert isinstance(error.orig, cursor.connection.dialect.loaded_dbapi.IntegrityError)
    assert error.statement == sql and error.params["id"] == learner_id
    assert not error.connection_invalidated
    db.rollback()  # to the test's savepoint: the connection is still usable
    assert db.scalar(select(Learner.id).where(Learner.id == learner_id)) is None


def test_any_other_driver_error_is_a_sqlalchemy_dbapi_error_too(db: Session) -> None:
    cursor = DriverCursor(db)
    with pytest.raises(DBAPIError) as raised:
        cursor.run(Statement("SELECT no_such_column FROM learner"), {})
    assert isinstance(raised.value.orig, cursor.connection.dialect.loaded_dbapi.Error)
    assert not isinstance(raised.value, IntegrityError)
    db.rollback()
