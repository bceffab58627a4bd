"""Copy a whole database to a JSON document and back, across SQLite and PostgreSQL.

A backup records the Alembic revision and every table's rows in dependency order; a restore
only goes into a database migrated to the same revision with no rows yet, so it is exact.
Datetimes are written as ISO 8601 UTC strings.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, DateTime, Integer, func, select, text

from quizsvc.store import migrate
from quizsvc.store.models import Base

BACKUP_FORMAT = "quizsvc-backup/1"


class BackupError(Exception):
    """Raise when a backup cannot be restored into this database (and say why)."""


def dump(connection: Connection) -> dict[str, Any]:
    """Return every table's rows, in foreign-key order, with the schema revision."""
    tables: dict[str, list[dict[str, Any]]] = {}
    for table in Base.metadata.sorted_tables:
        order = list(table.primary_key.columns)
        rows = connection.execute(select(table).order_by(*order)).mappings()
        tables[table.name] = [
            {key: encode(value) for key, value in row.items()} for row in rows]
    return {"format": BACKUP_FORMAT, "revision": migrate.current_revision(connection),
            "tables": tables}


def encode(value: Any) -> Any:
    """Turn a column value into JSON (datetimes as ISO strings)."""
    return value.isoformat() if isinstance(value, datetime) else value


def load(connection: Connection, backup: dict[str, Any]) -> dict[str, int]:
    """Insert a backup's rows into an empty database at the same revision; return row counts.

    The caller commits. PostgreSQL sequences are moved past the restored ids.
    """
    if backup.get("format") != BACKUP_FORMAT:
        raise BackupError(f"not a {BACKUP_FORMAT} document")
    revision = migrate.current_revision(connection)
    if backup.get("revision") != revision:
        raise BackupError(f"backup is at revision {backup.get('revision')}, database at "
                          f"{revision}: migrate the database to the backup's revision first")
    data = backup.get("tables")
    if not isinstance(data, dict):
        raise BackupError("tables: expected an object of table name -> rows")
    unknown = set(data) - {table.name for table in Base.metadata.sorted_tables}
    if unknown:
        raise BackupError(f"tables: unknown table(s) {sorted(unknown)}")
    for table in Base.metadata.sorted_tables:
        if connection.scalar(select(func.count()).select_from(table)):
            raise BackupError(f"table {table.name} is not empty: restore into a fresh database")
    counts: dict[str, int] = {}
    for table in Base.metadata.sorted_tables:
        rows = [decode_row(table, row) for row in data.get(table.name, [])]
        if rows:
            connection.execute(table.insert(), rows)
        counts[table.name] = len(rows)
        if connection.dialect.name == "postgresql" and rows:
            reset_sequence(connection, table)
    return counts


def decode_row(table: Any, row: dict[str, Any]) -> dict[str, Any]:
    """Parse a row back, refusing columns the table does not have."""
    unknown = set(row) - set(table.columns.keys())
    if unknown:
        raise BackupError(f"{table.name}: unknown column(s) {sorted(unknown)}")
    decoded = {}
    for key, value in row.items():
        column_type = table.columns[key].type
        if value is not None and isinstance(getattr(column_type, "impl", column_type), DateTime):
            try:
                value = datetime.fromisoformat(value)
            except (TypeError, ValueError):
                raise BackupError(f"{table.name}.{key}: not an ISO datetime: {value!r}") from None
        decoded[key] = value
    return decoded


def reset_sequence(connection: Connection, table: Any) -> None:
    """Move an integer primary key's PostgreSQL sequence past the largest restored id."""
    pk = list(table.primary_key.columns)
    if len(pk) != 1 or not isinstance(pk[0].type, Integer):
        return
    connection.execute(text(
        f"SELECT setval(pg_get_serial_sequence('{table.name}', '{pk[0].name}'), "
        f"(SELECT MAX({pk[0].name}) FROM {table.name}))"))
