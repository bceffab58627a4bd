"""Fixtures for the bank tests: the real bank, and small hand-made banks to break on purpose."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from quizsvc.bank import Bank, read_bank
from quizsvc.bank.catalog import DEFAULT_BANK_DIR
from tests.support.tiny_bank import write_tiny_bank


@pytest.fixture(scope="session")
def bank() -> Bank:
    """Return the real bank, read once for the whole session (uncached by path)."""
    return read_bank(DEFAULT_BANK_DIR)


@pytest.fixture
def tiny_bank(tmp_path: Path) -> Path:
    """Write a valid one-question bank and return its directory."""
    return write_tiny_bank(tmp_path)


@pytest.fixture
def bank_copy(tmp_path: Path) -> Path:
    """Copy the real bank to a temporary directory (for edits that must not touch the repo)."""
    target = tmp_path / "copy"
    shutil.copytree(DEFAULT_BANK_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def export_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Migrate a SQLite database and make it the app's (``QUIZSVC_DATABASE_URL``), where
    ``quizsvc export moodle|qti`` records the variants it exports; return its URL."""
    from quizsvc.cli import main

    url = f"sqlite:///{tmp_path / 'exports.sqlite3'}"
    assert main(["db", "upgrade", "--database-url", url]) == 0
    monkeypatch.setenv("QUIZSVC_DATABASE_URL", url)
    return url
