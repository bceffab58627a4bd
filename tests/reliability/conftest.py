"""Fixtures for the reliability suite: the real question bank, live PostgreSQL schemas, gunicorn.

- ``bank_dir`` / ``bank``: a frozen copy of ``question_bank/`` and the bank loaded from it. The
  in-process ``app`` fixture (tests/conftest.py) then serves the real bank here, and the gunicorn
  servers read the same copy, so a question edited during the run cannot change the bank version
  under variants the tests already hold.
- ``live_pg``: a PostgreSQL schema of this test module's own (``tests.support.live``), migrated
  to head and dropped afterwards; its URL carries the search path, so gunicorn workers and the
  ``quizsvc`` CLI reach it by URL alone. Unreachable PostgreSQL skips locally, fails under CI.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.live import LiveDatabase, dispose_database, new_pg_database

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.fixture(scope="module")
def live_pg() -> Iterator[LiveDatabase]:
    """Yield a PostgreSQL schema of this module's own, migrated, for servers and the CLI."""
    database = new_pg_database()
    try:
        yield database
    finally:
        dispose_database(database)
