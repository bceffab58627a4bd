"""Shared fixtures: every database test runs on SQLite and on PostgreSQL.

- ``engine`` (session scope, parametrised ``sqlite`` / ``postgresql``): a database built by
  ``alembic upgrade head``. PostgreSQL comes from ``QUIZSVC_TEST_POSTGRES_URL``; each run
  works in its own schema (``quizsvc_test_<pid>``, dropped afterwards) so that runs sharing
  the database do not collide. When PostgreSQL is unreachable the PostgreSQL half is skipped
  with the reason shown, unless ``CI`` is set, in which case the run fails.
- ``connection``: one connection per test inside an outer transaction rolled back afterwards,
  so tests never see each other's rows.
- ``app`` / ``client`` / ``db``: the app bound to that connection (a fixed ``clock``, a
  seeded random source, the ``bank``), a test client, and an ORM session for assertions.
- ``bank``: the real question bank when ``quizsvc.bank.load_bank`` exists, else ``FakeBank``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from quizsvc import create_app
from quizsvc.store import migrate
from quizsvc.store.session import make_engine
from tests.fake_bank import FakeBank

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ("sqlite", "postgresql")
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)  # a Monday morning, UTC


def postgres_url() -> str:
    """Return the PostgreSQL URL the tests use."""
    return os.environ.get("QUIZSVC_TEST_POSTGRES_URL", DEFAULT_POSTGRES_URL)


def postgres_schema() -> str:
    """Name this test run's own schema, so that concurrent runs on one database never meet."""
    return f"quizsvc_test_{os.getpid()}"


def create_schema(url: str, schema: str) -> None:
    """Create an empty schema for this run (dropping a leftover of the same name)."""
    admin = make_engine(url)
    try:
        with admin.connect() as connection:
            connection.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
            connection.execute(text(f"CREATE SCHEMA {schema}"))
            connection.commit()
    finally:
        admin.dispose()


def drop_schema(engine: Engine, schema: str) -> None:
    """Remove this run's schema."""
    with engine.connect() as connection:
        connection.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        connection.commit()


def unreachable(backend: str, error: Exception) -> None:
    """Skip (locally) or fail (in CI) when PostgreSQL cannot be reached."""
    reason = f"{backend} unreachable at {postgres_url()}: {type(error).__name__}"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the PostgreSQL half", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session", params=BACKENDS)
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Engine]:
    """Yield an engine on a freshly migrated database of each backend."""
    schema = None
    if request.param == "sqlite":
        path = tmp_path_factory.mktemp("db") / "quizsvc-test.sqlite3"
        engine = make_engine(f"sqlite:///{path}")
    else:
        schema = postgres_schema()
        try:
            create_schema(postgres_url(), schema)
        except OperationalError as error:
            unreachable(request.param, error)
        engine = make_engine(postgres_url(),
                             connect_args={"options": f"-c search_path={schema}"})
    with engine.connect() as connection:
        migrate.upgrade(connection, "head")
        connection.commit()
    yield engine
    if schema is not None:
        drop_schema(engine, schema)
    engine.dispose()


@contextmanager
def committed_database(backend: str, folder: Path, name: str) -> Iterator[str]:
    """Yield the URL of a migrated database of its own, whose commits are real; drop it after.

    For tests that need what the rolled-back ``connection`` cannot give: transactions that
    commit, other connections seeing them, SQLite's writer lock. On SQLite a file in
    ``folder``; on PostgreSQL a schema ``name`` + this process's id.
    """
    schema = None
    if backend == "sqlite":
        url = f"sqlite:///{folder / f'{name}.sqlite3'}"
    else:
        schema = f"{name}_{os.getpid()}"
        create_schema(postgres_url(), schema)
        url = make_url(postgres_url()).update_query_dict(
            {"options": f"-c search_path={schema}"}).render_as_string(hide_password=False)
    setup = make_engine(url)
    try:
        with setup.connect() as connection:
            migrate.upgrade(connection, "head")
            connection.commit()
        yield url
    finally:
        if schema is not None:
            drop_schema(setup, schema)
        setup.dispose()


@pytest.fixture
def connection(engine: Engine) -> Iterator[Connection]:
    """Yield a connection inside an outer transaction that is rolled back after the test."""
    with engine.connect() as connection:
        outer = connection.begin()
        yield connection
        if outer.is_active:
            outer.rollback()


@dataclass
class FakeClock:
    """A clock the tests move by hand (services never read the wall clock)."""

    now: datetime = field(default_factory=lambda: START)

    def __call__(self) -> datetime:
        """Return the current fake time."""
        return self.now

    def advance(self, **delta: float) -> datetime:
        """Move the clock forward by ``timedelta(**delta)`` and return the new time."""
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    """Return a fresh fake clock starting at ``START``."""
    return FakeClock()


def real_bank() -> Any | None:
    """Return the real question bank if it is installed yet."""
    try:
        from quizsvc.bank import load_bank
    except ImportError:
        return None
    return load_bank()


@pytest.fixture(scope="session")
def bank() -> Any:
    """Return the bank the service tests run against (real when available)."""
    return FakeBank()


@pytest.fixture
def app_config(engine: Engine, bank: Any, clock: FakeClock) -> dict[str, Any]:
    """Return the configuration the ``app`` fixture passes to ``create_app``."""
    return {
        "TESTING": True,
        "DATABASE_URL": engine.url.render_as_string(hide_password=False),
        "BANK": bank,
        "CLOCK": clock,
        "RANDOM_SEED": 20261102,
        "SECRET_KEY": "test-secret",
    }


@pytest.fixture
def app(app_config: dict[str, Any], connection: Connection) -> Any:
    """Return an app whose sessions join the test's rolled-back transaction."""
    app = create_app(app_config)
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    return app


@pytest.fixture
def client(app: Any) -> Any:
    """Return a test client (one browser: it keeps its cookies)."""
    return app.test_client()


@pytest.fixture
def db(connection: Connection) -> Iterator[Session]:
    """Yield an ORM session on the test's connection, for arranging and asserting rows."""
    session = Session(bind=connection, join_transaction_mode="create_savepoint")
    yield session
    session.close()


@pytest.fixture
def backend(engine: Engine) -> str:
    """Return the backend name (``sqlite`` or ``postgresql``)."""
    return engine.dialect.name
