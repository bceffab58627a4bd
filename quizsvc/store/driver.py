"""Run the hot paths' few statements straight on a DB-API connection.

Everything else in the service goes through SQLAlchemy. The graded-answer path and the
browser lookup run on every request, and there SQLAlchemy's per-statement machinery (execution
context, result proxy, type processors, events) cost more than the statements themselves:
about 40 µs per statement on a 2-core machine, against 10-20 µs for the driver call
(``bench/api_bench.py`` and cProfile, 2026-11-30). So these statements are plain SQL, written
once with ``:name`` placeholders and translated for each driver, and the values are converted
here exactly as the ``quizsvc.store.models`` column types would convert them, so that rows
written either way read back the same.

Two ways to reach the driver:

- ``DriverCursor`` borrows the connection of a SQLAlchemy ``Session``, whose transaction it is
  (the browser lookup inside a request's session);
- ``DriverConnection`` takes a connection of its own from the engine's pool and runs its
  transactions by hand, with no ``Session`` or ``Connection`` around it: the graded answer,
  where the ORM's per-transaction machinery (session state, pool events, begin and commit
  events) cost about as much again as the answer's statements (2026-12-01). On SQLite it takes
  the workers' writer lock as ``session.make_engine``'s begin event does. When the app is bound
  to a test's open transaction it runs on that connection instead, each transaction a
  SAVEPOINT, so that the test's rollback still removes everything.

Either way driver errors come out as the ``sqlalchemy.exc`` errors SQLAlchemy would raise, and
a lost connection is invalidated in the pool.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, Protocol

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from quizsvc.store.writer_lock import (
    SQLITE_LOCK_TIMEOUT,
    acquire_writer_lock,
    release_writer_lock,
)

PLACEHOLDER = re.compile(r"(?<![:\w]):(\w+)")


@dataclass(frozen=True)
class Statement:
    """One SQL statement with ``:name`` placeholders, rendered once per driver.

    sqlite3 takes ``:name`` itself; psycopg wants ``%(name)s`` (and ``%`` doubled). A ``::``
    cast is left alone; write ``CAST(x AS t)`` anyway, which both databases read.
    """

    sql: str
    postgresql: str = field(init=False)

    def __post_init__(self) -> None:
        rendered = PLACEHOLDER.sub(r"%(\1)s", self.sql.replace("%", "%%"))
        object.__setattr__(self, "postgresql", rendered)

    def text(self, dialect: str) -> str:
        """Return the statement as the ``dialect``'s driver expects it."""
        return self.postgresql if dialect == "postgresql" else self.sql


class StatementRunner(Protocol):
    """What the hot paths' statements run on: a ``DriverCursor`` or a ``DriverConnection``."""

    dialect: str

    def run(self, statement: Statement, params: dict[str, Any]) -> Any:
        """Run a ``Statement``; return the driver's cursor."""
        ...


def driver_error(connection: Any, dialect: Any, dbapi_connection: Any, cursor: Any, sql: str,
                 params: dict[str, Any], error: Exception) -> DBAPIError:
    """Return the ``sqlalchemy.exc`` error for a driver error, invalidating a lost connection.

    ``connection`` is what to invalidate: a SQLAlchemy ``Connection`` or a pooled connection.
    """
    lost = dialect.is_disconnect(error, dbapi_connection, cursor)
    if lost:
        connection.invalidate(error)
    return DBAPIError.instance(sql, params, error, dialect.loaded_dbapi.Error,
                               connection_invalidated=lost)


class DriverCursor:
    """A driver cursor on a session's connection whose errors look like SQLAlchemy's.

    The transaction is the session's: begin it first (or ``begin_read_only``), end it with
    ``session.commit()`` / ``rollback()``. A driver error is raised as the matching
    ``sqlalchemy.exc.DBAPIError`` subclass (``IntegrityError``, ``OperationalError``, ...), and
    a lost connection is invalidated in the pool, exactly as a statement run through SQLAlchemy
    would be: the service's error handlers (503 for an unreachable database) then apply.
    """

    def __init__(self, session: Session) -> None:
        self.connection: Connection = session.connection()
        self.dialect: str = self.connection.dialect.name
        self.cursor: Any = self.connection.connection.dbapi_connection.cursor()

    def execute(self, sql: str, params: dict[str, Any]) -> Any:
        """Run one statement (already in the driver's placeholder style); return the cursor."""
        try:
            return self.cursor.execute(sql, params)
        except self.connection.dialect.loaded_dbapi.Error as error:
            raise driver_error(self.connection, self.connection.dialect,
                               self.connection.connection.dbapi_connection, self.cursor, sql,
                               params, error) from error

    def run(self, statement: Statement, params: dict[str, Any]) -> Any:
        """Run a ``Statement`` rendered for this connection's driver."""
        return self.execute(statement.text(self.dialect), params)


SAVEPOINT = "quizsvc_driver"


class DriverConnection:
    """A DB-API connection run by hand, with explicit transactions (see the module docstring).

    Statements outside ``begin()`` ... ``commit()``/``rollback()`` run in autocommit: each one
    sees the latest commit and holds nothing afterwards (on SQLite no writer lock; on
    PostgreSQL no transaction). ``begin()`` starts a write transaction: on SQLite the writer
    lock and ``BEGIN IMMEDIATE``; on PostgreSQL ``BEGIN``, or nothing with
    ``one_statement=True``, when the one statement that follows is atomic by itself. Use it as
    a context manager: on leaving, an open transaction is rolled back and the connection goes
    back to the pool.
    """

    def __init__(self, bind: Engine | Connection) -> None:
        if isinstance(bind, Connection):  # a test's open transaction: write in savepoints
            self.pooled: Any = None
            self.invalidatable: Any = bind
            self.dbapi_connection: Any = bind.connection.dbapi_connection
            self.dialect_impl: Any = bind.dialect
            self.writelock: int | None = None
        else:
            self.dialect_impl = bind.dialect
            try:
                self.pooled = self.invalidatable = bind.raw_connection()
            except self.dialect_impl.loaded_dbapi.Error as error:  # the database is down
                raise DBAPIError.instance(None, None, error,
                                          self.dialect_impl.loaded_dbapi.Error) from error
            self.dbapi_connection = self.pooled.dbapi_connection
            self.writelock = self.pooled.info.get("writelock")
        self.dialect: str = self.dialect_impl.name
        # What commits and what rolls back the open transaction; None: none is open.
        self.ending: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self.locked = False
        try:
            self.cursor: Any = self.dbapi_connection.cursor()
            if self.pooled is not None and self.dialect == "postgresql":
                self.dbapi_connection.autocommit = True
        except self.dialect_impl.loaded_dbapi.Error as error:  # a connection gone stale
            translated = driver_error(self.invalidatable, self.dialect_impl,
                                      self.dbapi_connection, None, "", {}, error)
            self.close()
            raise translated from error

    def __enter__(self) -> DriverConnection:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def execute(self, sql: str, params: dict[str, Any] | None) -> Any:
        """Run one statement (already in the driver's placeholder style); return the cursor.

        ``params`` None: a statement without parameters, which psycopg then never prepares.
        """
        try:
            return self.cursor.execute(sql) if params is None else self.cursor.execute(sql, params)
        except self.dialect_impl.loaded_dbapi.Error as error:
            raise driver_error(self.invalidatable, self.dialect_impl, self.dbapi_connection,
                               self.cursor, sql, params or {}, error) from error

    def run(self, statement: Statement, params: dict[str, Any]) -> Any:
        """Run a ``Statement`` rendered for this connection's driver."""
        return self.execute(statement.text(self.dialect), params)

    def control(self, sql: str) -> None:
        """Run a transaction-control statement (never prepared: it takes no parameters)."""
        self.execute(sql, None)

    def begin(self, one_statement: bool = False) -> None:
        """Begin a write transaction (see the class docstring for what each backend does)."""
        if self.ending is not None:
            raise RuntimeError("a transaction is already open")
        if self.pooled is None:
            self.control(f"SAVEPOINT {SAVEPOINT}")
            self.ending = ((f"RELEASE SAVEPOINT {SAVEPOINT}",),
                           (f"ROLLBACK TO SAVEPOINT {SAVEPOINT}", f"RELEASE SAVEPOINT {SAVEPOINT}"))
        elif self.dialect == "sqlite":
            if self.writelock is not None:
                acquire_writer_lock(self.writelock, SQLITE_LOCK_TIMEOUT)
                self.locked = True
            try:
                self.control("BEGIN IMMEDIATE")
            except BaseException:
                self.unlock()
                raise
            self.ending = (("COMMIT",), ("ROLLBACK",))
        elif one_statement:  # PostgreSQL in autocommit: the statement is its own transaction
            self.ending = ((), ())
        else:
            self.control("BEGIN")
            self.ending = (("COMMIT",), ("ROLLBACK",))

    @property
    def in_transaction(self) -> bool:
        """Tell whether ``begin()`` was called and the transaction not yet ended."""
        return self.ending is not None

    def commit(self) -> None:
        """Commit the open transaction (and let the next SQLite writer in)."""
        if self.ending is None:
            raise RuntimeError("no transaction is open")
        self.end(self.ending[0])

    def rollback(self) -> None:
        """Roll the open transaction back, if one is open."""
        if self.ending is not None:
            self.end(self.ending[1])

    def end(self, statements: tuple[str, ...]) -> None:
        """End the transaction with ``statements``; the writer lock goes even if they fail."""
        try:
            for sql in statements:
                self.control(sql)
        finally:
            self.ending = None
            self.unlock()

    def unlock(self) -> None:
        """Release SQLite's writer lock if this connection holds it."""
        if self.locked and self.writelock is not None:
            self.locked = False
            release_writer_lock(self.writelock)

    def close(self) -> None:
        """Roll back anything open and give the connection back (a test's: leave it as found).

        A connection that fails on the way back (the database went away) is invalidated: the
        pool discards it instead of handing it out again.
        """
        try:
            self.rollback()
        except DBAPIError:
            pass  # already invalidated if the connection was lost; nothing was committed
        finally:
            self.unlock()
            if self.pooled is not None:
                if self.dialect == "postgresql" and self.pooled.is_valid:
                    try:
                        self.dbapi_connection.autocommit = False
                    except self.dialect_impl.loaded_dbapi.Error as error:
                        self.pooled.invalidate(error)
                self.pooled.close()


def to_db_datetime(value: datetime | None, dialect: str) -> Any:
    """Convert an aware datetime as ``models.UTCDateTime`` does (naive UTC text on SQLite)."""
    if value is None:
        return None
    if value.tzinfo is None:
        raise ValueError("naive datetime; pass a timezone-aware UTC datetime")
    value = value.astimezone(UTC)
    if dialect == "sqlite":  # SQLAlchemy's SQLite DATETIME storage format
        return value.replace(tzinfo=None).isoformat(sep=" ", timespec="microseconds")
    return value


def from_db_datetime(value: Any) -> datetime | None:
    """Read a datetime column back as an aware UTC datetime (SQLite returns text)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def to_db_json(value: Any) -> str:
    """Serialise a JSON column value as SQLAlchemy's ``JSON`` type does (None is ``null``)."""
    return json.dumps(value)


def from_db_json(value: Any, dialect: str) -> Any:
    """Read a JSON column: text on SQLite; already decoded by psycopg on PostgreSQL (where a
    ``str`` is a JSON string value, not JSON text)."""
    if dialect == "sqlite" and isinstance(value, str | bytes):
        return json.loads(value)
    return value
