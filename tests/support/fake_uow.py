"""A unit of work on in-memory repositories, so use-case tests run without a database.

cosmicpython's ``FakeUnitOfWork``: the same shapes as ``quizsvc.store.unit_of_work``
(``read``, ``write``, ``locked``, ``statement``, ``fresh``, ``close``) over repositories that
keep their rows in memory (``tests.support.fake_repositories``). It keeps the real one's
promises, and is held to them by ``tests/store/test_fake_contract.py``:

- a repository used outside a shape raises ``NoTransaction``; shapes do not nest;
- a write shape (``write``, ``locked``, ``statement``) that raises leaves nothing behind: the
  rows are put back as they were when it opened; past the ``deadline`` it commits nothing;
- ``locked`` takes the learner's lock first (``answers.lock_learner`` bumps ``review_seq``);
- a ``read`` writes nothing (a write in it raises here: the real read would lose it);
- ``fresh()`` is another unit of work on the same rows, as the real one's is on the same
  database.

``shapes`` lists the shapes opened, in order, so a test can say what transaction a use case
took.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager

from quizsvc.errors import N_, Busy
from quizsvc.store.repository import NoTransaction
from tests.support.fake_repositories import (
    FakeAnswers,
    FakeExports,
    FakeHolds,
    FakeLearners,
    FakeProgress,
    FakeSessions,
    FakeSettings,
)
from tests.support.fake_tables import Tables


class FakeUnitOfWork:
    """The unit of work's shapes over in-memory repositories."""

    dialect = "fake"

    def __init__(self, tables: Tables | None = None) -> None:
        self.tables = tables if tables is not None else Tables()
        self.deadline = math.inf
        self.shapes: list[str] = []
        self.closed = False
        self._open = False
        self.answers = FakeAnswers(self)
        self.sessions = FakeSessions(self)
        self.progress = FakeProgress(self)
        self.settings = FakeSettings(self)
        self.learners = FakeLearners(self)
        self.holds = FakeHolds(self)
        self.exports = FakeExports(self)

    def fresh(self) -> FakeUnitOfWork:
        """Return a new unit of work on the same rows (a job's own, with its deadline)."""
        return FakeUnitOfWork(self.tables)

    @property
    def connection(self) -> Tables:
        """Return the rows, inside a shape only."""
        if not self._open:
            raise NoTransaction("open a transaction shape (read, write, locked, statement) "
                                "before using a repository")
        return self.tables

    @property
    def in_transaction(self) -> bool:
        """Tell whether a shape is open."""
        return self._open

    @contextmanager
    def read(self) -> Iterator[FakeUnitOfWork]:
        """Run the block's reads; a write in it raises."""
        with self._shape("read"):
            self.tables.writable = False
            try:
                yield self
            finally:
                self.tables.writable = True

    @contextmanager
    def write(self) -> Iterator[FakeUnitOfWork]:
        """Run the block as one transaction: kept at its end, undone if it raises."""
        with self._shape("write"), self._undone_on_failure():
            yield self
            self.check_deadline()

    @contextmanager
    def locked(self, learner_id: int) -> Iterator[FakeUnitOfWork]:
        """Run the block as a write that first takes the learner's lock."""
        with self._shape("locked"), self._undone_on_failure():
            self.answers.lock_learner(learner_id)
            yield self
            self.check_deadline()

    @contextmanager
    def statement(self) -> Iterator[FakeUnitOfWork]:
        """Run one statement that is atomic by itself: all of it, or nothing."""
        with self._shape("statement"), self._undone_on_failure():
            yield self
            self.check_deadline()

    def check_deadline(self) -> None:
        """Refuse to commit past the deadline (``Busy``: the shape is undone)."""
        if time.monotonic() > self.deadline:
            raise Busy(N_("This took longer than the server allows; nothing was changed. Try "
                          "again later."), reason="too_slow", params={"retry_after": 5})

    def close(self) -> None:
        """End the unit of work (nothing is held: there is no connection)."""
        self.closed = True

    def __enter__(self) -> FakeUnitOfWork:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def _shape(self, name: str) -> Iterator[None]:
        """Open one shape (they do not nest), recording its name."""
        if self._open:
            raise RuntimeError("transaction shapes do not nest")
        self.shapes.append(name)
        self._open = True
        try:
            yield
        finally:
            self._open = False

    @contextmanager
    def _undone_on_failure(self) -> Iterator[None]:
        """Put the rows back as they were if the block raises."""
        saved = self.tables.saved()
        try:
            yield
        except BaseException:
            self.tables.restore(saved)
            raise
