"""Call the repositories from a test, each call in a write of its own on the test's connection.

Tests arrange rows with the ``db`` session and act through the use cases; where a test reads
or writes through a repository directly, ``repos(db).settings.read_settings(...)`` runs that
one call in a savepoint of the test's transaction, as a use case's ``write()`` would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session

from quizsvc.store.unit_of_work import UnitOfWork


def unit_of_work(db: Session) -> UnitOfWork:
    """Return a unit of work on the connection of ``db`` (its pending rows flushed first)."""
    db.flush()
    return UnitOfWork(bound=db.connection())


class Repositories:
    """A unit of work's repositories whose every method call is a write of its own."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    def __getattr__(self, name: str) -> Any:
        return EachCall(self.uow, getattr(self.uow, name))


class EachCall:
    """One repository whose methods each run in a write of their own."""

    def __init__(self, uow: UnitOfWork, repository: Any) -> None:
        self.uow = uow
        self.repository = repository

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.repository, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            with self.uow.write():
                return method(*args, **kwargs)

        return call


def repos(db: Session) -> Repositories:
    """Return the repositories of a unit of work on ``db``'s connection."""
    return Repositories(unit_of_work(db))
