"""Own the database engine and hand out one SQLAlchemy ``Session`` per request.

``Database`` is created unbound and bound in ``create_app`` (one per app), so two apps on two
backends can live in one test process. Use cases receive the ``Session`` (their unit of work)
and own the transaction; views never commit; the repositories in ``quizsvc.store`` hold the SQL.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy import exc as sa_exc
from sqlalchemy.orm import Session, sessionmaker

log = logging.getLogger(__name__)

READ_ONLY = "quizsvc_read_only"  # execution option: this transaction only reads
SQLITE_BUSY_TIMEOUT = 30.0  # seconds a SQLite writer waits for another connection's commit


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
    """Hold one engine and its session factory, bound to a Flask app by ``init_app``."""

    def __init__(self) -> None:
        self.engine: Engine | None = None
        self.bound: Connection | None = None
        self.session_factory: sessionmaker[Session] | None = None

    def init_app(self, app: Any) -> None:
        """Create the engine from ``DATABASE_URL`` and close the request session on teardown."""
        self.engine = make_engine(app.config["DATABASE_URL"])
        self.session_factory = sessionmaker(bind=self.engine, expire_on_commit=False)
        app.extensions["quizsvc.db"] = self
        app.teardown_appcontext(self.close_request_session)

    def bind_to_connection(self, connection: Connection) -> None:
        """Make sessions join ``connection``'s open transaction (tests roll it back afterwards).

        Each use case's ``commit()`` then releases a SAVEPOINT instead of committing.
        """
        self.bound = connection
        self.session_factory = sessionmaker(
            bind=connection, expire_on_commit=False, join_transaction_mode="create_savepoint"
        )

    def new_session(self) -> Session:
        """Open a session outside a request (CLI, benchmarks)."""
        if self.session_factory is None:
            raise RuntimeError("Database.init_app was not called")
        return self.session_factory()

    @contextmanager
    def session_scope(self) -> Iterator[Session]:
        """Yield a session that is closed (and rolled back if uncommitted) afterwards."""
        session = self.new_session()
        try:
            yield session
        finally:
            session.close()

    def request_session(self) -> Session:
        """Return this request's session, opening it on first use."""
        from flask import g

        session: Session | None = g.get("db_session")
        if session is None:
            session = self.new_session()
            g.db_session = session
        return session

    def close_request_session(self, _error: BaseException | None = None) -> None:
        """Close the request's session; anything uncommitted is rolled back."""
        from flask import g

        session = g.pop("db_session", None)
        if session is not None:
            close_quietly(session)

    def ping(self) -> None:
        """Run ``SELECT 1`` through the request session (raises if unreachable)."""
        self.request_session().execute(text("SELECT 1"))


def close_quietly(session: Session) -> None:
    """Close ``session``; if its connection died (a database outage), discard it instead.

    Closing rolls back, and a rollback on a connection the database dropped raises. At
    request teardown the response is already made (a 503 during an outage): an exception
    here would reach the WSGI server, which then sends its own bare 500 page instead.
    """
    try:
        session.close()
    except sa_exc.SQLAlchemyError as error:
        log.warning("discarding a database connection that failed to close: %s",
                    str(error).splitlines()[0] if str(error) else type(error).__name__)
        session.invalidate()


def begin_read_only(session: Session) -> None:
    """Begin ``session``'s transaction as one that only reads, each read on its own.

    Its statements run in autocommit (on SQLite no BEGIN is sent and no writer lock taken;
    on PostgreSQL the connection is in autocommit), saving the BEGIN and ROLLBACK of a lone
    read; reads that must agree with each other are checked by the write that follows
    (``review_seq``). Not so when the session joins a test's open transaction. Call it
    before the session's first statement, and end it before writing anything.
    """
    options: dict[str, Any] = {READ_ONLY: True}
    bind = session.get_bind()
    if isinstance(bind, Engine) and bind.dialect.name == "postgresql":
        options["isolation_level"] = "AUTOCOMMIT"
    session.connection(execution_options=options)


def begin_one_statement(session: Session) -> bool:
    """Begin ``session``'s transaction for one statement that is a transaction of its own.

    On PostgreSQL (a session on the engine) the statement then runs in autocommit: a write
    made atomic by being one statement saves the BEGIN and COMMIT round trips. Returns
    whether it did; elsewhere (SQLite, a session joined to a test's transaction) the caller
    runs a plain transaction and commits it.
    """
    bind = session.get_bind()
    if isinstance(bind, Engine) and bind.dialect.name == "postgresql":
        session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        return True
    return False


def dialect_of(session: Session) -> str:
    """Return the name of the database dialect ``session`` talks to."""
    return session.get_bind().dialect.name


def get_db() -> Database:
    """Return the current app's ``Database``."""
    from flask import current_app

    database: Database = current_app.extensions["quizsvc.db"]
    return database


def get_session() -> Session:
    """Return the current request's session."""
    return get_db().request_session()
