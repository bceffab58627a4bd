"""``DriverConnection``: the graded answer's own connection, its transactions run by hand.

Taken from the pool it must run reads in autocommit (holding nothing), take SQLite's writer
lock only between ``begin`` and the end of the transaction, leave PostgreSQL connections as
the pool expects them, and give everything back however it ends. Bound to a test's open
transaction it must write in savepoints, so that the test's rollback still removes all.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import IntegrityError, OperationalError

from quizsvc.store.driver import DriverConnection, Statement
from quizsvc.store.session import make_engine

PROBE = "driver_probe"
INSERT = Statement(f"INSERT INTO {PROBE} (note) VALUES (:note)")
NOTES = Statement(f"SELECT note FROM {PROBE} ORDER BY note")


def create_probe(connection: Connection) -> None:
    """Create the scratch table on ``connection`` (ids numbered by the database)."""
    key = "SERIAL" if connection.dialect.name == "postgresql" else "INTEGER"
    connection.execute(text(f"CREATE TABLE {PROBE} (id {key} PRIMARY KEY, "
                            "note VARCHAR(40) UNIQUE)"))


@pytest.fixture
def probe(engine: Engine) -> Iterator[Engine]:
    """Give the run's database a scratch table of committed rows (dropped afterwards)."""
    with engine.begin() as connection:
        connection.execute(text(f"DROP TABLE IF EXISTS {PROBE}"))
        create_probe(connection)
    yield engine
    with engine.begin() as connection:
        connection.execute(text(f"DROP TABLE {PROBE}"))


def notes(engine: Engine) -> list[str]:
    """Return the committed notes, read on a connection of the pool."""
    with engine.connect() as connection:
        return list(connection.scalars(text(NOTES.sql)))


def writer_lock_free(engine: Engine) -> bool:
    """Tell whether nobody holds SQLite's writer lock for this database file."""
    fd = os.open(f"{engine.url.database}.writelock", os.O_CREAT | os.O_RDWR, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def idle(db: DriverConnection) -> bool:
    """Tell whether the connection holds nothing: no writer lock, no open transaction."""
    if db.dialect == "sqlite":
        return not db.locked and not db.dbapi_connection.in_transaction
    return db.dbapi_connection.info.transaction_status == 0  # psycopg's IDLE


def test_a_pooled_connection_commits_what_it_wrote_and_holds_nothing_between(
        probe: Engine) -> None:
    with DriverConnection(probe) as db:
        db.run(NOTES, {}).fetchall()
        assert idle(db)  # a read outside begin() is autocommitted
        db.begin()
        db.run(INSERT, {"note": "kept"})
        if db.dialect == "sqlite":
            assert db.locked and not writer_lock_free(probe)
        db.commit()
        assert idle(db)
        if db.dialect == "sqlite":
            assert writer_lock_free(probe)
    assert notes(probe) == ["kept"]
    assert probe.pool.checkedout() == 0


def test_a_rollback_or_a_close_with_the_transaction_open_undoes_it(probe: Engine) -> None:
    with DriverConnection(probe) as db:
        db.begin()
        db.run(INSERT, {"note": "rolled back"})
        db.rollback()
        assert idle(db)
        db.begin()
        db.run(INSERT, {"note": "left open"})
    assert notes(probe) == []
    assert probe.pool.checkedout() == 0
    if probe.dialect.name == "sqlite":
        assert writer_lock_free(probe)


def test_a_postgresql_connection_autocommits_for_the_answer_only(probe: Engine) -> None:
    if probe.dialect.name != "postgresql":
        pytest.skip("SQLite's driver connections autocommit already (isolation_level None)")
    with DriverConnection(probe) as db:
        raw = db.dbapi_connection
        assert raw.autocommit is True
        db.begin(one_statement=True)  # no BEGIN: the one statement is its own transaction
        db.run(INSERT, {"note": "alone"})
        assert idle(db)
        db.commit()
    assert raw.autocommit is False  # as the pool's other users (sessions) expect
    assert notes(probe) == ["alone"]


def test_a_driver_error_is_sqlalchemy_s_and_the_connection_stays_usable(
        probe: Engine) -> None:
    with DriverConnection(probe) as db:
        db.begin()
        db.run(INSERT, {"note": "twice"})
        db.commit()
        db.begin()
        with pytest.raises(IntegrityError) as raised:
            db.run(INSERT, {"note": "twice"})
        assert not raised.value.connection_invalidated
        db.rollback()
        db.begin()
        db.run(INSERT, {"note": "after"})
        db.commit()
    assert notes(probe) == ["after", "twice"]


def test_an_unreachable_database_is_an_operational_error(backend: str, tmp_path) -> None:
    url = (f"sqlite:///{tmp_path / 'missing' / 'db.sqlite3'}" if backend == "sqlite"
           else "postgresql+psycopg://postgres@127.0.0.1:1/test")
    engine = make_engine(url)
    try:
        with pytest.raises(OperationalError):  # the service's handlers answer it 503
            DriverConnection(engine)
    finally:
        engine.dispose()


def test_on_a_test_s_transaction_it_writes_in_savepoints(connection: Connection) -> None:
    create_probe(connection)
    with DriverConnection(connection) as db:
        assert db.pooled is None
        db.begin()
        db.run(INSERT, {"note": "kept"})
        db.commit()
        db.begin()
        db.run(INSERT, {"note": "undone"})
        db.rollback()
        db.begin()
        with pytest.raises(IntegrityError):
            db.run(INSERT, {"note": "kept"})
        db.rollback()  # back to the savepoint: the test's transaction goes on
    assert list(connection.scalars(text(NOTES.sql))) == ["kept"]
    assert connection.in_transaction()  # the test's own rollback removes table and row
