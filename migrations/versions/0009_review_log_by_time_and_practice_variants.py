"""review log indexed by learner and time; variants served as practice

The statistics on ``/progress`` (reviews per day, retention per week) count one learner's
reviews in a window of time. ``review_log (learner_id, reviewed_at)`` makes each a range scan
of that window instead of a walk over every review the learner ever made; it replaces the
index on ``learner_id`` alone, whose every use it serves as well.

``served_variant.practice``: a fresh variant the learner asked for after a question's reveal
("try a new variant"). Its answer is graded as usual but is practice, never mastery evidence
(``attempt.practice`` true, ``closed_book`` false), whenever it is given. Added and dropped in
place, never by batch mode's copy of a table (see 0003).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 01:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('served_variant', sa.Column('practice', sa.Boolean(),
                                              server_default=sa.false(), nullable=False))
    op.create_index('ix_review_log_learner_id_reviewed_at', 'review_log',
                    ['learner_id', 'reviewed_at'])
    op.drop_index('ix_review_log_learner_id', table_name='review_log')


def drop_in_place(table: str, column: str) -> None:
    """Drop a column without recreating its table."""
    if op.get_bind().dialect.name == 'sqlite':
        op.execute(f'ALTER TABLE {table} DROP COLUMN {column}')
    else:
        op.drop_column(table, column)


def downgrade() -> None:
    op.create_index('ix_review_log_learner_id', 'review_log', ['learner_id'])
    op.drop_index('ix_review_log_learner_id_reviewed_at', table_name='review_log')
    drop_in_place('served_variant', 'practice')
