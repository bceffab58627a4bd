"""Give each test run its own PostgreSQL schema, and tests that need real commits a database.

PostgreSQL comes from ``QUIZSVC_TEST_POSTGRES_URL``; each run works in its own schema
(``quizsvc_test_<pid>``, dropped afterwards) so that runs sharing the database never collide.
When PostgreSQL is unreachable the PostgreSQL half is skipped with the reason shown, unless
``CI`` is set, in which case the run fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from quizsvc.store import migrate
from quizsvc.store.database import make_engine

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ("sqlite", "postgresql")


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
