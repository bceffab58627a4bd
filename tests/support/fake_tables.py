"""Hold the fake unit of work's rows in memory, shaped by the real tables' own metadata.

Each table is a dict of rows (dicts of column values) by primary key. Columns, defaults,
primary keys and unique constraints come from ``quizsvc.store.models``, so a row the fake
stores has exactly the columns the database's would, and a duplicate the database refuses
(an idempotency key reused, a second card for one question) raises the same
``sqlalchemy.exc.IntegrityError`` here. Values are copied in and out, as a database would:
no caller keeps a live reference to a stored row.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Table, UniqueConstraint
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.elements import False_, True_

from quizsvc.store.models import Base

Row = dict[str, Any]


def default_of(column: Any) -> Any:
    """Return the value a column takes when an insert leaves it out (None: no default)."""
    if column.default is not None and column.default.is_scalar:
        return column.default.arg
    server = column.server_default
    if server is None:
        return None
    arg = server.arg
    if isinstance(arg, True_ | False_):
        return isinstance(arg, True_)
    return column.type.python_type(arg) if isinstance(arg, str) else arg


def unique_keys(table: Table) -> list[tuple[str, ...]]:
    """Return the column sets a table keeps unique (its unique constraints)."""
    return [tuple(c.name for c in constraint.columns) for constraint in table.constraints
            if isinstance(constraint, UniqueConstraint)]


@dataclass
class Tables:
    """The fake database: every table of the models, in memory.

    ``writable`` is switched off inside a read shape: a use case that writes in a read is
    refused here (the real read is rolled back, so such a write would be lost there).
    """

    rows: dict[str, dict[Any, Row]] = field(default_factory=lambda: {
        name: {} for name in Base.metadata.tables})
    next_id: dict[str, int] = field(default_factory=dict)
    writable: bool = True

    def table(self, name: str) -> Table:
        """Return the real table ``name`` (its columns and constraints)."""
        return Base.metadata.tables[name]

    def get(self, name: str, key: Any) -> Row | None:
        """Return a copy of one row by primary key (None: no such row)."""
        found = self.rows[name].get(key)
        return None if found is None else copy.deepcopy(found)

    def select(self, name: str, where: Callable[[Row], bool] = lambda _row: True,
               order: Callable[[Row], Any] | None = None, reverse: bool = False
               ) -> list[Row]:
        """Return copies of the rows of ``name`` that ``where`` accepts, in ``order`` (else
        by primary key)."""
        found = [row for row in self.rows[name].values() if where(row)]
        found.sort(key=order or self.primary_key_of(name), reverse=reverse)
        return copy.deepcopy(found)

    def primary_key_of(self, name: str) -> Callable[[Row], Any]:
        """Return the function that reads a row's primary key."""
        [key] = self.table(name).primary_key.columns.keys()
        return lambda row: row[key]

    def insert(self, name: str, values: Row) -> Any:
        """Insert one row (defaults filled in, an integer id drawn if none is given) and
        return its primary key; a duplicate of a unique key raises ``IntegrityError``."""
        self.check_writable()
        table = self.table(name)
        unknown = set(values) - set(table.columns.keys())
        if unknown:
            raise KeyError(f"{name} has no columns {sorted(unknown)}")
        row = {column.name: copy.deepcopy(values[column.name]) if column.name in values
               else default_of(column) for column in table.columns}
        [key] = table.primary_key.columns.keys()
        if row[key] is None:
            self.next_id[name] = self.next_id.get(name, 0) + 1
            row[key] = self.next_id[name]
        if row[key] in self.rows[name]:
            raise self.duplicate(name, (key,))
        for columns in unique_keys(table):
            values_of = tuple(row[c] for c in columns)
            if None in values_of:  # NULLs never collide in a unique constraint
                continue
            if any(tuple(other[c] for c in columns) == values_of
                   for other in self.rows[name].values()):
                raise self.duplicate(name, columns)
        self.rows[name][row[key]] = row
        return row[key]

    def update(self, name: str, where: Callable[[Row], bool], **values: Any) -> int:
        """Set ``values`` on the rows ``where`` accepts; return how many there were."""
        self.check_writable()
        changed = 0
        for row in self.rows[name].values():
            if where(row):
                row.update(copy.deepcopy(values))
                changed += 1
        return changed

    def delete(self, name: str, where: Callable[[Row], bool]) -> int:
        """Delete the rows ``where`` accepts; return how many there were."""
        self.check_writable()
        doomed = [key for key, row in self.rows[name].items() if where(row)]
        for key in doomed:
            del self.rows[name][key]
        return len(doomed)

    def check_writable(self) -> None:
        """Refuse a write inside a read shape."""
        if not self.writable:
            raise RuntimeError("a read shape writes nothing: use write(), locked() or "
                               "statement()")

    def duplicate(self, name: str, columns: tuple[str, ...]) -> IntegrityError:
        """Return the error a database raises for a duplicate unique key."""
        return IntegrityError(f"INSERT INTO {name}", {},
                              Exception(f"UNIQUE constraint failed: {name}.{columns}"))

    def saved(self) -> tuple[dict[str, dict[Any, Row]], dict[str, int]]:
        """Return a copy of every row and id counter, to put back if a shape fails."""
        return copy.deepcopy(self.rows), dict(self.next_id)

    def restore(self, saved: tuple[dict[str, dict[Any, Row]], dict[str, int]]) -> None:
        """Put back what ``saved`` returned: the shape's writes are undone."""
        self.rows, self.next_id = saved

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows)
