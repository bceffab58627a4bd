"""attempt origin: where an attempt's grade comes from, so an import cannot vouch for itself

``attempt.origin`` says who stands behind an attempt's grade:

- ``graded``: answered and graded on this server (also when restored from an export this
  deployment signed);
- ``regraded``: imported unsigned (or altered) and graded again at import from its question,
  seed and answer; the server never saw it answered closed-book, so it is stored open-book
  and unrevealed, and can never be mastery evidence;
- ``unverified``: imported unsigned from a bank version this server cannot rebuild: kept as
  history that counts for nothing (stored ungraded, unrevealed).

Every existing row was graded here. The column is added and dropped in place, never by batch
mode's copy of ``attempt`` (see 0003).

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


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE attempt DROP COLUMN origin')
    else:
        op.drop_column('attempt', 'origin')
