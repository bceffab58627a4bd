"""learner and browser ids are never given twice (SQLite AUTOINCREMENT)

A browser's identity cookie names its browser and learner ids, signed, so that a request
knows who it is without a database read. Without AUTOINCREMENT SQLite gives a new row the
largest id in the table plus one: once the newest learner was erased or pruned, the next
learner got its id, and a browser still holding the old cookie (a device linked to the erased
learner) was taken for the newcomer. PostgreSQL's sequences never hand out an id twice, so
there this revision changes nothing.

On SQLite the two tables are rebuilt by batch mode's copy-and-swap. Dropping the old table
deletes or nulls every row that refers to it (foreign keys are on and cannot be switched off
inside the migration's transaction; see 0002 and 0003), so every such table is kept aside
first and put back as it was afterwards.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 15:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ('learner', 'browser')


def referring_tables(parent: str) -> list[str]:
    """Return the tables that refer to ``parent``, directly or through one another, parents
    first: the rows dropping ``parent`` would delete or change."""
    inspector = sa.inspect(op.get_bind())
    parents_of = {name: {fk['referred_table'] for fk in inspector.get_foreign_keys(name)}
                  for name in inspector.get_table_names()}
    found: set[str] = set()
    waiting = [parent]
    while waiting:
        referred = waiting.pop()
        for name, parents in parents_of.items():
            if referred in parents and name not in found and name != parent:
                found.add(name)
                waiting.append(name)
    return [name for name, _ in inspector.get_sorted_table_and_fkc_names() if name in found]


def rebuild(table: str, autoincrement: bool) -> None:
    """Recreate ``table`` with or without AUTOINCREMENT, keeping every row that refers to it."""
    kept = referring_tables(table)
    for name in kept:
        op.execute(f'CREATE TEMPORARY TABLE kept_{name} AS SELECT * FROM {name}')
    with op.batch_alter_table(table, recreate='always',
                              table_kwargs={'sqlite_autoincrement': autoincrement}):
        pass
    for name in reversed(kept):  # what the drop left of them (nulled references), children first
        op.execute(f'DELETE FROM {name}')
    for name in kept:
        op.execute(f'INSERT INTO {name} SELECT * FROM kept_{name}')
        op.execute(f'DROP TABLE kept_{name}')


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        for table in TABLES:
            rebuild(table, autoincrement=True)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        for table in TABLES:
            rebuild(table, autoincrement=False)
