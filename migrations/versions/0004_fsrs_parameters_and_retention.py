"""fsrs parameters and retention: fitted FSRS parameters, and each learner's desired retention

``fsrs_parameters`` keeps every fit ``quizsvc fsrs optimize`` makes: the 21 FSRS weights (JSON
list) for the pooled log of all learners (``learner_id`` NULL) or for one learner's own,
over one lesson or all (``lesson`` NULL), with when it was fitted, on how many reviews and
the log loss the fitted and the default weights score on them. Rows are only ever added; the
newest of the most specific scope schedules a card.

``learner_setting`` holds a learner's desired retention (0.70-0.97; no row means 0.90), the
probability of recall the scheduler aims for when a card falls due.

Both are new tables, so upgrading changes no existing row and downgrading drops only them
(cards keep the due dates they were last given).

Revision ID: 0004_fsrs_tuning
Revises: 0003
Create Date: 2026-12-03 10:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0004_fsrs_tuning'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('fsrs_parameters',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=True),
    sa.Column('lesson', sa.String(length=200), nullable=True),
    sa.Column('parameters', sa.JSON(), nullable=False),
    sa.Column('fitted_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('review_count', sa.Integer(), nullable=False),
    sa.Column('log_loss', sa.Float(), nullable=False),
    sa.Column('default_log_loss', sa.Float(), nullable=False),
    sa.CheckConstraint('review_count > 0', name=op.f('ck_fsrs_parameters_review_count_positive')),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_fsrs_parameters_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fsrs_parameters'))
    )
    op.create_index('ix_fsrs_parameters_learner_id_lesson', 'fsrs_parameters', ['learner_id', 'lesson'])

    op.create_table('learner_setting',
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('desired_retention', sa.Float(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('desired_retention BETWEEN 0.7 AND 0.97', name=op.f('ck_learner_setting_desired_retention_range')),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_learner_setting_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('learner_id', name=op.f('pk_learner_setting'))
    )


def downgrade() -> None:
    op.drop_table('learner_setting')
    op.drop_index('ix_fsrs_parameters_learner_id_lesson', table_name='fsrs_parameters')
    op.drop_table('fsrs_parameters')
