"""``UnitOfWork.read``: on a SQLite file a reader does not queue behind the one writer; on
PostgreSQL a read runs in autocommit, and the pooled connection is transactional again for
the next shape."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import insert, select, text

from quizsvc.store import migrate
from quizsvc.store.database import make_engine
from quizsvc.store.models import Learner
from quizsvc.store.unit_of_work import UnitOfWork
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


def test_a_read_runs_while_another_connection_writes(sqlite_file) -> None:
    engine = sqlite_file
    with engine.connect() as writer, UnitOfWork(engine=engine) as uow:
        writer.execute(insert(Learner).values(created_at=NOW))  # holds the writer lock
        began = time.monotonic()
        with uow.read():
            assert uow.connection.scalar(select(Learner.id).order_by(Learner.id)) == 1
            assert uow.connection.scalar(text("SELECT count(*) FROM learner")) == 1
        assert time.monotonic() - began < 1
        writer.commit()


def test_a_write_still_waits_for_the_writer(sqlite_file) -> None:
    engine = sqlite_file
    done = threading.Event()
    with engine.connect() as writer:
        writer.execute(insert(Learner).values(created_at=NOW))

        def write_too() -> None:
            with UnitOfWork(engine=engine) as uow, uow.write():
                uow.connection.execute(insert(Learner).values(created_at=NOW))
            done.set()

        thread = threading.Thread(target=write_too)
        thread.start()
        assert not done.wait(0.3)  # queued behind the first writer
        writer.commit()
        thread.join(10)
    assert done.is_set()
    with UnitOfWork(engine=engine) as uow, uow.read():
        assert uow.connection.scalar(text("SELECT count(*) FROM learner")) == 3


def test_after_a_read_the_next_write_still_rolls_back(engine) -> None:
    """Runs on both databases, with one pooled connection so that it is the one reused."""
    options: dict = {}
    if engine.dialect.name == "postgresql":
        options["connect_args"] = {"options": f"-c search_path={postgres_schema()}"}
    single = make_engine(engine.url.render_as_string(hide_password=False), pool_size=1,
                         max_overflow=0, **options)
    marker = datetime(1999, 1, 1, tzinfo=UTC)
    uow = UnitOfWork(engine=single)
    postgresql = engine.dialect.name == "postgresql"
    try:
        with uow.read():
            first = uow.connection.connection.dbapi_connection
            assert getattr(first, "autocommit", False) is postgresql  # no BEGIN round trip
            uow.connection.scalar(select(Learner.id).limit(1))

        class Undone(Exception):
            pass

        with pytest.raises(Undone), uow.write():
            uow.connection.execute(insert(Learner).values(created_at=marker))
            assert uow.connection.connection.dbapi_connection is first
            assert not getattr(first, "autocommit", False)
            raise Undone
        with uow.read():
            assert uow.connection.scalar(
                select(Learner.id).where(Learner.created_at == marker)) is None
    finally:
        uow.close()
        single.dispose()


def test_a_repository_outside_a_transaction_shape_is_refused(sqlite_file) -> None:
    from quizsvc.store.repository import NoTransaction

    with UnitOfWork(engine=sqlite_file) as uow:
        with pytest.raises(NoTransaction):
            uow.learners.browsers_of(1)
        with uow.read(), pytest.raises(RuntimeError, match="do not nest"), uow.write():
            pass
