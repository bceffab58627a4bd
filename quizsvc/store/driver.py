"""Run the hot paths' few statements straight on the DB-API connection of a session.

Everything else in the service goes through SQLAlchemy. The graded-answer path and the
browser lookup run on every request, and there SQLAlchemy's per-statement machinery (execution
context, result proxy, type processors, events) cost more than the statements themselves:
about 40 µs per statement on a 2-core machine, against 10-20 µs for the driver call
(``bench/api_bench.py`` and cProfile, 2026-11-30). So these statements are plain SQL, written
once with ``:name`` placeholders and translated for each driver, and the values are converted
here exactly as the ``quizsvc.store.models`` column types would convert them, so that rows
written either way read back the same.

Transactions stay SQLAlchemy's: a caller begins and ends them on the session (which keeps
SQLite's writer lock and the tests' rolled-back outer transaction working) and only borrows
the driver connection in between (``cursor_of``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

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
        dbapi = self.connection.dialect.loaded_dbapi
        try:
            return self.cursor.execute(sql, params)
        except dbapi.Error as error:
            lost = self.connection.dialect.is_disconnect(
                error, self.connection.connection.dbapi_connection, self.cursor)
            if lost:
                self.connection.invalidate(error)
            raise DBAPIError.instance(sql, params, error, dbapi.Error,
                                      connection_invalidated=lost) from error

    def run(self, statement: Statement, params: dict[str, Any]) -> Any:
        """Run a ``Statement`` rendered for this connection's driver."""
        return self.execute(statement.text(self.dialect), params)


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
