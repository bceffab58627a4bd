"""index the review log by learner and time, for the progress page's statistics

The statistics on ``/progress`` (reviews per day, retention per week) count one learner's
reviews in a window of time. ``review_log (learner_id, reviewed_at)`` makes each a range scan
of that window instead of a walk over every review the learner ever made; it replaces the
index on ``learner_id`` alone, whose every use it serves as well.

Revision ID: 0011
Revises: 0006
Create Date: 2026-12-02 01:00:00.000000
"""
from collections.abc import Sequence

from alembic import op

revision: str = '0011'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index('ix_review_log_learner_id_reviewed_at', 'review_log',
                    ['learner_id', 'reviewed_at'])
    op.drop_index('ix_review_log_learner_id', table_name='review_log')


def downgrade() -> None:
    op.create_index('ix_review_log_learner_id', 'review_log', ['learner_id'])
    op.drop_index('ix_review_log_learner_id_reviewed_at', table_name='review_log')
