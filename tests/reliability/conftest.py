"""Fixtures for the reliability suite: the real question bank, live PostgreSQL schemas, gunicorn.

- ``bank_dir`` / ``bank``: a frozen copy of ``question_bank/`` and the bank loaded from it. The
  in-process ``app`` fixture (tests/conftest.py) then serves the real bank here, and the gunicorn
  servers read the same copy, so a question edited during the run cannot change the bank version
  under variants the tests already hold.
- ``live_pg``: a PostgreSQL schema of this test module's own (``quizsvc_rel_<pid>_<n>``), migrated
  to head and dropped afterwards; its URL carries the search path, so gunicorn workers and the
  ``quizsvc`` CLI reach it by URL alone. Unreachable PostgreSQL skips locally, fails under CI.
"""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from quizsvc.store import migrate
from quizsvc.store.database import make_engine
from tests.support.databases import create_schema, drop_schema, postgres_url, unreachable

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_NUMBERS = itertools.count(1)


@pytest.fixture(scope="session")
def bank_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Copy the question bank once per run, so every process reads the same version."""
    target = tmp_path_factory.mktemp("bank") / "question_bank"
    shutil.copytree(ROOT / "question_bank", target)
    return target


@pytest.fixture(scope="session")
def bank(bank_dir: Path) -> Any:
    """Serve the real question bank in this suite (overrides the fake one)."""
    from quizsvc.bank import load_bank

    return load_bank(bank_dir)


@dataclass(frozen=True)
class LiveDatabase:
    """A migrated database reachable by URL from other processes."""

    url: str
    engine: Engine
    schema: str | None = None


def schema_url(schema: str) -> str:
    """Return the test PostgreSQL URL with ``schema`` first on the search path."""
    url = make_url(postgres_url())
    return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(
        hide_password=False)


def new_pg_database() -> LiveDatabase:
    """Create and migrate a fresh schema; skip or fail when PostgreSQL is unreachable."""
    schema = f"quizsvc_rel_{os.getpid()}_{next(SCHEMA_NUMBERS)}"
    try:
        create_schema(postgres_url(), schema)
    except OperationalError as error:
        unreachable("postgresql", error)
    url = schema_url(schema)
    engine = make_engine(url)
    with engine.connect() as connection:
        migrate.upgrade(connection, "head")
        connection.commit()
    return LiveDatabase(url, engine, schema)


def dispose_pg_database(database: LiveDatabase) -> None:
    """Drop the schema and close the engine."""
    if database.schema is not None:
        drop_schema(database.engine, database.schema)
    database.engine.dispose()


@pytest.fixture(scope="module")
def live_pg() -> Iterator[LiveDatabase]:
    """Yield a PostgreSQL schema of this module's own, migrated, for servers and the CLI."""
    database = new_pg_database()
    try:
        yield database
    finally:
        dispose_pg_database(database)
