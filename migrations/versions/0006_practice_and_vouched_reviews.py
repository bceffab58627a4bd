"""practice answers after a reveal, and which reviews may teach the pooled FSRS fit

``attempt.practice``: an answer given within ``review.mastery.FRESH_REVEAL`` of the reveal of
a wrong answer to the same question. It is graded as usual but is practice, not closed-book
evidence (``closed_book`` is false for it); the flag lets the pages say why.

``review_log.vouched``: the review was recorded by this server, or restored from the
learner's own signed export. Only vouched reviews teach the pooled FSRS fit that schedules
every learner, so a crafted import cannot move everyone's intervals. Existing rows were
recorded here, except the reviews of attempts imported unsigned (origin other than
``graded``), which are marked unvouched.

Both columns are added and dropped in place, never by batch mode's copy of a table (see 0003).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 22:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('attempt', sa.Column('practice', sa.Boolean(), server_default=sa.false(),
                                       nullable=False))
    op.add_column('review_log', sa.Column('vouched', sa.Boolean(), server_default=sa.true(),
                                          nullable=False))
    op.execute("UPDATE review_log SET vouched = false WHERE attempt_id IN "
               "(SELECT id FROM attempt WHERE origin <> 'graded')")


def drop_in_place(table: str, column: str) -> None:
    """Drop a column without recreating its table."""
    if op.get_bind().dialect.name == 'sqlite':
        op.execute(f'ALTER TABLE {table} DROP COLUMN {column}')
    else:
        op.drop_column(table, column)


def downgrade() -> None:
    drop_in_place('review_log', 'vouched')
    drop_in_place('attempt', 'practice')
