"""Own the database engine and hand out one SQLAlchemy ``Session`` per request.

``Database`` is created unbound and bound in ``create_app`` (one per app), so two apps on two
backends can live in one test process. Service functions receive the ``Session`` and own the
transaction; views never commit.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker


def make_engine(url: str, **options: Any) -> Engine:
    """Create an engine; for SQLite, give it real transactions, foreign keys and WAL.

    pysqlite's default transaction handling defers BEGIN and breaks SAVEPOINT, which the
    tests' rolled-back outer transaction relies on; the recipe from SQLAlchemy's SQLite docs
    takes over BEGIN. Foreign keys are off in SQLite unless asked for.
    """
    is_sqlite = url.startswith("sqlite")
    if is_sqlite:
        options.setdefault("connect_args", {}).setdefault("timeout", 30)
    else:
        options.setdefault("pool_pre_ping", True)
    engine = create_engine(url, **options)
    if is_sqlite:
        in_memory = url in {"sqlite://", "sqlite:///:memory:"}

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
            connection.exec_driver_sql("BEGIN")

    return engine


class Database:
    """Hold one engine and its session factory, bound to a Flask app by ``init_app``."""

    def __init__(self) -> None:
        self.engine: Engine | None = None
        self.session_factory: sessionmaker[Session] | None = None

    def init_app(self, app: Any) -> None:
        """Create the engine from ``DATABASE_URL`` and close the request session on teardown."""
        self.engine = make_engine(app.config["DATABASE_URL"])
        self.session_factory = sessionmaker(bind=self.engine, expire_on_commit=False)
        app.extensions["quizsvc.db"] = self
        app.teardown_appcontext(self.close_request_session)

    def bind_to_connection(self, connection: Connection) -> None:
        """Make sessions join ``connection``'s open transaction (tests roll it back afterwards).

        Each service ``commit()`` then releases a SAVEPOINT instead of committing.
        """
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

        session = g.get("db_session")
        if session is None:
            session = self.new_session()
            g.db_session = session
        return session

    def close_request_session(self, _error: BaseException | None = None) -> None:
        """Close the request's session; anything uncommitted is rolled back."""
        from flask import g

        session = g.pop("db_session", None)
        if session is not None:
            session.close()

    def ping(self) -> None:
        """Run ``SELECT 1`` through the request session (raises if unreachable)."""
        self.request_session().execute(text("SELECT 1"))


def get_db() -> Database:
    """Return the current app's ``Database``."""
    from flask import current_app

    return current_app.extensions["quizsvc.db"]


def get_session() -> Session:
    """Return the current request's session."""
    return get_db().request_session()
