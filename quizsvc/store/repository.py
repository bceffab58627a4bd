"""Share what every repository needs: the connection of its unit of work's open transaction.

Repositories hold the SQL (SQLAlchemy Core on the models' tables); the unit of work
(``quizsvc.store.unit_of_work``) decides when a transaction begins and ends. A repository
used outside a transaction shape raises ``NoTransaction``.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import Connection


class Stale(Exception):
    """A conditional write found that what it was decided from has changed; it wrote nothing."""


class NoTransaction(RuntimeError):
    """A repository was used outside ``read``, ``write``, ``locked`` or ``statement``."""


class TransactionSource(Protocol):
    """What a repository asks of its unit of work."""

    @property
    def connection(self) -> Connection:
        """Return the open transaction's connection."""
        ...

    dialect: str


class Repository:
    """A repository: its SQL runs on its unit of work's open transaction."""

    def __init__(self, uow: TransactionSource) -> None:
        self.uow = uow

    @property
    def connection(self) -> Connection:
        """Return the connection of the transaction under way."""
        return self.uow.connection

    @property
    def dialect(self) -> str:
        """Return the database's dialect name (``sqlite`` or ``postgresql``)."""
        return self.uow.dialect
