"""Give a use case its repositories and the few shapes a transaction takes here.

A use case never commits or rolls back: it names the shape of the work it does and the unit
of work runs it (cosmicpython's unit of work, on SQLAlchemy Core connections):

- ``read()``: reads that take no lock. Each statement runs on its own (autocommit on
  PostgreSQL; on SQLite no BEGIN, so a reader in WAL mode neither waits for the writer nor
  holds it up). Reads that must agree are checked by the write that follows (``review_seq``).
- ``write()``: one transaction, committed when the block ends, rolled back if it raises.
- ``locked(learner_id)``: a write that first takes the learner's lock (``lock_learner``),
  so it cannot race another change to that learner's reviews.
- ``statement()``: one statement that is atomic by itself; on PostgreSQL it runs in
  autocommit (saving the BEGIN and COMMIT round trips), elsewhere as a plain ``write()``.

A job that writes much (an import, a reschedule) does it in many ``write()`` steps of about
``step_rows`` rows and calls ``give_way`` between them, so that on SQLite no step holds the one
writer for long.

A conditional write that finds what it read has changed raises ``Stale`` after writing
nothing; the shape rolls back whatever else the block did. ``answering.submit`` tries
lock-free first and, on ``Stale``, again under ``locked``.

A unit of work checks one connection out of the engine's pool at its first shape and keeps it
until ``close`` (the request's end), so the shapes of one request cost no checkout each. A
unit of work given a ``deadline`` (a job on the costly-work pool, ``quizsvc.pool``) commits
nothing after it: the caller was already told the job took too long, so the job must not
change anything afterwards. In the
tests the database is bound to one connection inside an outer transaction, and each shape is
a savepoint in it.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from quizsvc.errors import N_, Busy
from quizsvc.store.answers import AnswerRepository
from quizsvc.store.cohorts import CohortRepository
from quizsvc.store.database import READ_ONLY, first_line
from quizsvc.store.erasure import ErasureRepository
from quizsvc.store.exports import ExportRepository
from quizsvc.store.history import HistoryRepository
from quizsvc.store.holds import HoldRepository
from quizsvc.store.item_statistics import ItemStatisticsRepository
from quizsvc.store.items import ItemRepository
from quizsvc.store.learners import LearnerRepository
from quizsvc.store.progress import GroupProgressRepository, ProgressRepository
from quizsvc.store.reports import ReportRepository
from quizsvc.store.repository import NoTransaction
from quizsvc.store.scheduler_settings import SettingsRepository
from quizsvc.store.self_assessments import SelfAssessmentRepository
from quizsvc.store.sessions import SessionRepository

log = logging.getLogger(__name__)

# The execution options a shape may set, at their defaults (None: the connection's own
# isolation level).
DEFAULT_OPTIONS: dict[str, Any] = {READ_ONLY: False, "isolation_level": None}
# How long a job writing in steps leaves SQLite's writer free between them (``give_way``).
WRITER_TURN_SECONDS = 0.015


class UnitOfWork:
    """One use case's way into the database: the repositories and the transaction shapes."""

    # Rows a job writing in steps writes to a transaction: a few milliseconds of SQLite's one
    # writer, most of it SQLAlchemy preparing the parameters (measured at stop 30).
    step_rows = 500

    def __init__(self, engine: Engine | None = None, bound: Connection | None = None) -> None:
        if (engine is None) == (bound is None):
            raise ValueError("give an engine, or a connection to bind to")
        self.engine = engine
        self.bound = bound
        self.dialect = (engine if engine is not None else bound).dialect.name  # type: ignore[union-attr]
        self.deadline = math.inf  # time.monotonic() past which nothing is committed
        self._connection: Connection | None = None  # the open shape's
        self._held: Connection | None = None  # checked out at the first shape, until close()
        self._applied: dict[str, Any] = dict(DEFAULT_OPTIONS)  # the held connection's options
        self.answers = AnswerRepository(self)
        self.history = HistoryRepository(self)
        self.sessions = SessionRepository(self)
        self.learners = LearnerRepository(self)
        self.progress = ProgressRepository(self)
        self.settings = SettingsRepository(self)
        self.self_assessments = SelfAssessmentRepository(self)
        self.cohorts = CohortRepository(self)
        self.group_progress = GroupProgressRepository(self)
        self.erasure = ErasureRepository(self)
        self.holds = HoldRepository(self)
        self.items = ItemRepository(self)
        self.reports = ReportRepository(self)
        self.item_statistics = ItemStatisticsRepository(self)
        self.exports = ExportRepository(self)

    def fresh(self) -> UnitOfWork:
        """Return a new unit of work on the same database (a job's own, with its deadline)."""
        return UnitOfWork(engine=self.engine, bound=self.bound)

    @property
    def connection(self) -> Connection:
        """Return the connection of the transaction under way."""
        if self._connection is None:
            raise NoTransaction("open a transaction shape (read, write, locked, statement) "
                                "before using a repository")
        return self._connection

    @property
    def in_transaction(self) -> bool:
        """Tell whether a shape is open (repositories that join one ask)."""
        return self._connection is not None

    @contextmanager
    def read(self) -> Iterator[UnitOfWork]:
        """Run the block's statements as reads that take no lock; nothing is written."""
        if self.bound is not None:
            with self._savepoint(commit=False):
                yield self
            return
        options: dict[str, Any] = {READ_ONLY: True}
        if self.dialect == "postgresql":
            options["isolation_level"] = "AUTOCOMMIT"
        with self._checked_out(options) as connection:
            try:
                yield self
            finally:
                connection.rollback()

    @contextmanager
    def write(self) -> Iterator[UnitOfWork]:
        """Run the block as one transaction: committed at its end, rolled back if it raises."""
        if self.bound is not None:
            with self._savepoint(commit=True):
                yield self
                self.check_deadline()
            return
        with self._checked_out({}) as connection:
            try:
                yield self
                self.check_deadline()
            except BaseException:
                connection.rollback()
                raise
            connection.commit()

    def give_way(self) -> None:
        """Between the steps of a job that writes in many short transactions (an import):
        on SQLite, whose one writer every other learner's write waits for, pause long enough
        for a waiting writer to take its turn. SQLite's busy handler wakes a waiter after
        1, 2, 5, then 10 ms and more, so a job that began its next step at once would keep
        finding the writer free before the waiter looked. Row locks (PostgreSQL) need no pause.
        """
        if self.dialect == "sqlite" and self.bound is None:
            time.sleep(WRITER_TURN_SECONDS)

    def check_deadline(self) -> None:
        """Refuse to commit past the deadline (``Busy``: the shape rolls back)."""
        if time.monotonic() > self.deadline:
            raise Busy(N_("This took longer than the server allows; nothing was changed. Try "
                          "again later."), reason="too_slow", params={"retry_after": 5})

    @contextmanager
    def locked(self, learner_id: int) -> Iterator[UnitOfWork]:
        """Run the block as a write that first takes the learner's lock."""
        with self.write():
            self.answers.lock_learner(learner_id)
            yield self

    @contextmanager
    def statement(self) -> Iterator[UnitOfWork]:
        """Run one statement that is atomic by itself (autocommit on PostgreSQL)."""
        if self.bound is not None or self.dialect != "postgresql":
            with self.write():
                yield self
            return
        with self._checked_out({"isolation_level": "AUTOCOMMIT"}) as connection:
            try:
                yield self
            except BaseException:
                connection.rollback()  # ends SQLAlchemy's own bookkeeping of the statement
                raise
            connection.commit()

    @contextmanager
    def _checked_out(self, options: dict[str, Any]) -> Iterator[Connection]:
        """Lend the held connection to one shape with ``options`` (the others at their
        defaults).

        Only what differs from the shape before is set: a request's read and its write in
        autocommit (an answer on PostgreSQL) change the isolation level once, not four times.
        Nothing is restored at the end: the connection goes back to the pool at ``close``,
        which resets its isolation level, and the read-only mark lives on this ``Connection``
        object only.
        """
        if self._connection is not None:
            raise RuntimeError("transaction shapes do not nest")
        assert self.engine is not None
        if self._held is None:
            self._held = self.engine.connect()
        connection = self._held
        if connection.invalidated:  # an outage: it reconnects at the default isolation level
            self._applied["isolation_level"] = None
        wanted = {**DEFAULT_OPTIONS, **options}
        changed = {name: value for name, value in wanted.items()
                   if self._applied[name] != value}
        if changed:
            if changed.get("isolation_level", "") is None:
                changed["isolation_level"] = connection.default_isolation_level
            connection.execution_options(**changed)
            self._applied = wanted
        self._connection = connection
        try:
            yield connection
        finally:
            self._connection = None

    def close(self) -> None:
        """Return the held connection to the pool; one the database dropped is discarded."""
        held, self._held = self._held, None
        self._applied = dict(DEFAULT_OPTIONS)
        if held is None:
            return
        try:
            held.close()
        except SQLAlchemyError as error:  # a database outage: the response is already made
            log.warning("discarding a database connection that failed to close: %s",
                        first_line(error))
            held.invalidate()

    def __enter__(self) -> UnitOfWork:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def _savepoint(self, commit: bool) -> Iterator[None]:
        """Run one shape as a savepoint of the bound connection's open transaction."""
        if self._connection is not None:
            raise RuntimeError("transaction shapes do not nest")
        assert self.bound is not None
        savepoint = self.bound.begin_nested()
        self._connection = self.bound
        try:
            yield
        except BaseException:
            if savepoint.is_active:
                savepoint.rollback()
            raise
        finally:
            self._connection = None
        if commit:
            savepoint.commit()
        elif savepoint.is_active:
            savepoint.rollback()
