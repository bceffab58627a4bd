"""Erase a learner: every row of theirs, in every table, found from the schema itself.

Which rows are a learner's is read from the tables' declarations, not listed by hand, so a
table added later is covered the day it is: a row is the learner's when

- it is the ``learner`` row itself;
- it has a ``learner_id`` column holding the learner's id (with or without a foreign key);
- a required foreign key points at a row that is the learner's (a browser's self-assessment,
  a session's items).

An optional foreign key pointing at one of the learner's rows from a row that is not theirs
(another learner's link code used by this learner's browser) is set to NULL. Tables that hold
no learner's data must say so in ``HOLDS_NO_LEARNER``; ``tests/store/test_erasure.py`` fails
on a table that is neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Column, ColumnElement, Table, delete, false, or_, select, update

from quizsvc.store.models import Base
from quizsvc.store.repository import Repository

LEARNER_TABLE = "learner"
LEARNER_COLUMN = "learner_id"
# Tables that hold nothing of any one learner (a cohort's row is the class, its members are
# ``cohort_member`` rows, which are the learners').
HOLDS_NO_LEARNER = frozenset({"cohort", "exported_variant"})  # an LMS export: no learner


@dataclass
class Ownership:
    """How one table's rows are found to be a learner's, and which columns point at them."""

    table: Table
    owned_by: list[Any] = field(default_factory=list)  # callables: learner id -> condition
    nullable_refs: list[tuple[Column[Any], Table]] = field(default_factory=list)

    def condition(self, learner_id: int, owners: dict[str, Ownership]) -> ColumnElement[bool]:
        """Return the WHERE clause of the table's rows that are ``learner_id``'s."""
        if not self.owned_by:
            return false()
        return or_(*(owned(learner_id, owners) for owned in self.owned_by))


def direct(column: Column[Any]) -> Any:
    """Own rows whose ``column`` holds the learner's id."""
    return lambda learner_id, owners: column == learner_id


def through(column: Column[Any], parent: Table) -> Any:
    """Own rows whose ``column`` points at a row of ``parent`` that is the learner's."""
    key = next(iter(parent.primary_key.columns))

    def condition(learner_id: int, owners: dict[str, Ownership]) -> ColumnElement[bool]:
        return column.in_(select(key).where(owners[parent.name].condition(learner_id, owners)))

    return condition


def ownerships(tables: list[Table] | None = None) -> dict[str, Ownership]:
    """Read from the schema how each table's rows belong to a learner (parents first)."""
    tables = list(Base.metadata.sorted_tables) if tables is None else tables
    found: dict[str, Ownership] = {}
    for table in tables:
        owner = Ownership(table)
        if table.name == LEARNER_TABLE:
            owner.owned_by.append(direct(table.c.id))
        elif LEARNER_COLUMN in table.c:
            owner.owned_by.append(direct(table.c[LEARNER_COLUMN]))
        for key in table.foreign_keys:
            parent = key.column.table
            if parent.name == LEARNER_TABLE or parent.name not in found:
                continue
            if not found[parent.name].owned_by:
                continue
            if key.parent.nullable:
                owner.nullable_refs.append((key.parent, parent))
            else:
                owner.owned_by.append(through(key.parent, parent))
        found[table.name] = owner
    return found


def owned_tables() -> frozenset[str]:
    """Return the names of the tables that can hold a learner's rows."""
    return frozenset(name for name, owner in ownerships().items() if owner.owned_by)


class ErasureRepository(Repository):
    """Delete everything of one learner."""

    def erase(self, learner_id: int) -> dict[str, int]:
        """Delete every row of the learner's, children before parents, and unhook other
        rows that point at them; return how many rows went, by table (tables with none
        left out)."""
        owners = ownerships()
        erased: dict[str, int] = {}
        for table in reversed(Base.metadata.sorted_tables):
            owner = owners[table.name]
            for column, parent in owner.nullable_refs:
                self.connection.execute(update(table).where(
                    through(column, parent)(learner_id, owners)).values({column.name: None}))
            if owner.owned_by:
                count = self.connection.execute(
                    delete(table).where(owner.condition(learner_id, owners))).rowcount or 0
                if count:
                    erased[table.name] = count
        return erased
