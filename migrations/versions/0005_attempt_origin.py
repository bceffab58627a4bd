"""attempt origin and variant content: who vouches for a grade, and what a variant asked

``attempt.origin`` says who stands behind an attempt's grade:

- ``graded``: answered and graded on this server (also when restored from an export this
  deployment signed);
- ``regraded``: imported unsigned (or altered) and graded again at import from its question,
  seed and answer; the server never saw it answered closed-book, so it is stored open-book
  and unrevealed, and can never be mastery evidence;
- ``unverified``: imported unsigned from a bank version this server cannot rebuild: kept as
  history that counts for nothing (stored ungraded, unrevealed).

``served_variant.content_key`` and ``attempt.content_key`` name what the variant asked
(``quizsvc.bank.content``): the mastery policy wants two right answers on different content,
not merely different seeds. Older rows have none and are told apart by seed and bank version.

Every existing row was graded here. The columns are added and dropped in place, never by batch
mode's copy of a table (see 0003).

Revision ID: 0005
Revises: 0004_fsrs_tuning
Create Date: 2026-12-01 14:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0005'
down_revision: str | None = '0004_fsrs_tuning'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('attempt', sa.Column('origin', sa.String(length=16), server_default='graded',
                                       nullable=False))
    op.add_column('attempt', sa.Column('content_key', sa.String(length=32), nullable=True))
    op.add_column('served_variant', sa.Column('content_key', sa.String(length=32),
                                              nullable=True))


def drop_in_place(table: str, column: str) -> None:
    """Drop a column without recreating its table."""
    if op.get_bind().dialect.name == 'sqlite':
        op.execute(f'ALTER TABLE {table} DROP COLUMN {column}')
    else:
        op.drop_column(table, column)


def downgrade() -> None:
    drop_in_place('served_variant', 'content_key')
    drop_in_place('attempt', 'content_key')
    drop_in_place('attempt', 'origin')
