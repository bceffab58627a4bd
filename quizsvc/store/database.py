"""Own the database engine and hand out one unit of work per request.

``Database`` is created unbound and bound in ``create_app`` (one per app), so two apps on two
backends can live in one test process. Use cases receive a ``UnitOfWork``
(``quizsvc.store.unit_of_work``) and name the shape of each transaction; views never commit;
the repositories in ``quizsvc.store`` hold the SQL. No ORM session is opened on a request:
the repositories run SQLAlchemy Core on pooled connections.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event

if TYPE_CHECKING:
    from quizsvc.store.unit_of_work import UnitOfWork

log = logging.getLogger(__name__)

READ_ONLY = "quizsvc_read_only"  # execution option: this transaction only reads
SQLITE_BUSY_TIMEOUT = 30.0  # seconds a SQLite writer waits for another connection's commit


def first_line(error: BaseException) -> str:
    """Return the first line of an error's message, for a log: a SQLAlchemy error goes on with
    the statement and its parameters, which a log must not hold (else the error's type)."""
    text = str(error)
    return text.splitlines()[0] if text else type(error).__name__


def make_engine(url: str, **options: Any) -> Engine:
    """Create an engine; for SQLite, give it real transactions, foreign keys and WAL.

    pysqlite's default transaction handling defers BEGIN and breaks SAVEPOINT, which the
    tests' rolled-back outer transaction relies on; the recipe from SQLAlchemy's SQLite docs
    takes over BEGIN. Foreign keys are off in SQLite unless asked for. SQLite has one writer
    at a time: every transaction begins IMMEDIATE (so one that reads and then writes cannot
    fail half-way because another connection wrote in between) and waits up to
    ``SQLITE_BUSY_TIMEOUT`` for the writer slot (SQLite's own busy handler). A "transaction"
    begun with the ``READ_ONLY`` execution option (``begin_read_only``) begins nothing: each of
    its reads runs on its own in autocommit, as on PostgreSQL, and in WAL mode a reader
    neither waits for the writer nor holds it up.
    """
    is_sqlite = url.startswith("sqlite")
    if is_sqlite:
        options.setdefault("connect_args", {}).setdefault("timeout", SQLITE_BUSY_TIMEOUT)
    engine = create_engine(url, **options)
    if is_sqlite:
        database = engine.url.database
        in_memory = not database or database == ":memory:"

        @event.listens_for(engine, "connect")
        def on_connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            if not in_memory:
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        @event.listens_for(engine, "begin")
        def on_begin(connection: Connection) -> None:
            if not connection.get_execution_options().get(READ_ONLY):
                connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


class Database:
    """Hold one engine (or, in tests, one connection to bind to), bound to a Flask app."""

    def __init__(self) -> None:
        self.engine: Engine | None = None
        self.bound: Connection | None = None

    def init_app(self, app: Any) -> None:
        """Create the engine from ``DATABASE_URL``, keep the database in the app and close
        each request's unit of work when the request ends."""
        self.open(app.config["DATABASE_URL"])
        app.extensions["quizsvc.db"] = self
        app.teardown_appcontext(close_request_unit_of_work)

    def open(self, url: str) -> None:
        """Create the engine for ``url`` (outside an app: a pool process, a command)."""
        self.engine = make_engine(url)

    def bind_to_connection(self, connection: Connection) -> None:
        """Make every unit of work run on ``connection``'s open transaction (tests roll it
        back afterwards); each transaction shape is then a savepoint."""
        self.bound = connection

    def unit_of_work(self) -> UnitOfWork:
        """Return a new unit of work on this database."""
        from quizsvc.store.unit_of_work import UnitOfWork

        if self.bound is not None:
            return UnitOfWork(bound=self.bound)
        if self.engine is None:
            raise RuntimeError("Database.init_app was not called")
        return UnitOfWork(engine=self.engine)

    def revision(self) -> str | None:
        """Return the migration revision the database is at (raises if it is unreachable)."""
        from quizsvc.store import migrate

        with self.unit_of_work() as uow, uow.read():
            return migrate.current_revision(uow.connection)


def request_unit_of_work() -> UnitOfWork:
    """Return this request's unit of work (one per request: its connection is held until the
    request ends)."""
    from flask import g

    found: UnitOfWork | None = g.get("unit_of_work")
    if found is None:
        found = get_db().unit_of_work()
        g.unit_of_work = found
    return found


def close_request_unit_of_work(_error: BaseException | None = None) -> None:
    """Return the request's connection to the pool (the ``teardown_appcontext`` hook)."""
    from flask import g

    found: UnitOfWork | None = g.pop("unit_of_work", None)
    if found is not None:
        found.close()


def get_db() -> Database:
    """Return the current app's ``Database``."""
    from flask import current_app

    database: Database = current_app.extensions["quizsvc.db"]
    return database
