"""``begin_read_only``: on a SQLite file a reader does not queue behind the one writer; on
PostgreSQL a lone read runs in autocommit, and the pooled connection is transactional again
for the next session."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import insert, select, text
from sqlalchemy.orm import Session

from quizsvc.store import migrate
from quizsvc.store.database import begin_read_only, make_engine
from quizsvc.store.models import Learner
from tests.support.databases import postgres_schema

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


@pytest.fixture
def sqlite_file(tmp_path: Path):
    """Yield an engine on a fresh, migrated SQLite file with one learner."""
    engine = make_engine(f"sqlite:///{tmp_path / 'read-only.sqlite3'}")
    with engine.connect() as connection:
        migrate.upgrade(connection, "head")
        connection.execute(insert(Learner).values(created_at=NOW))
        connection.commit()
    yield engine
    engine.dispose()


def test_a_read_only_transaction_runs_while_another_connection_writes(sqlite_file) -> None:
    engine = sqlite_file
    with engine.connect() as writer:
        writer.execute(insert(Learner).values(created_at=NOW))  # holds the writer lock
        with Session(engine) as reader:
            began = time.monotonic()
            begin_read_only(reader)
            assert reader.scalar(select(Learner.id).order_by(Learner.id)) == 1
            assert reader.scalar(text("SELECT count(*) FROM learner")) == 1  # last commit
            reader.rollback()
            assert time.monotonic() - began < 1
        writer.commit()


def test_an_ordinary_transaction_still_waits_for_the_writer(sqlite_file) -> None:
    engine = sqlite_file
    done = threading.Event()
    with engine.connect() as writer:
        writer.execute(insert(Learner).values(created_at=NOW))

        def write_too() -> None:
            with Session(engine) as other:
                other.execute(insert(Learner).values(created_at=NOW))
                other.commit()
            done.set()

        thread = threading.Thread(target=write_too)
        thread.start()
        assert not done.wait(0.3)  # queued behind the first writer
        writer.commit()
        thread.join(10)
    assert done.is_set()
    with Session(engine) as reader:
        assert reader.scalar(text("SELECT count(*) FROM learner")) == 3


def test_after_a_read_only_lookup_the_next_transaction_still_rolls_back(engine) -> None:
    """Runs on both databases, with one pooled connection so that it is the one reused."""
    options: dict = {}
    if engine.dialect.name == "postgresql":
        options["connect_args"] = {"options": f"-c search_path={postgres_schema()}"}
    single = make_engine(engine.url.render_as_string(hide_password=False), pool_size=1,
                         max_overflow=0, **options)
    marker = datetime(1999, 1, 1, tzinfo=UTC)
    try:
        with Session(single) as session:
            begin_read_only(session)
            first = session.connection().connection.dbapi_connection
            postgresql = engine.dialect.name == "postgresql"
            assert getattr(first, "autocommit", False) is postgresql  # no BEGIN round trip
            session.scalar(select(Learner.id).limit(1))
            session.rollback()
            session.execute(insert(Learner).values(created_at=marker))
            assert session.connection().connection.dbapi_connection is first
            assert not getattr(first, "autocommit", False)
            session.rollback()
            assert session.scalar(select(Learner.id).where(Learner.created_at == marker)
                                  ) is None
            session.rollback()
    finally:
        single.dispose()
