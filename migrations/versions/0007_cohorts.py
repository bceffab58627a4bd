"""cohorts: a class of learners under display names, and an instructor who reads its progress

``cohort``: one lesson's class, made by an author; the join code and the instructor token are
stored only as sha256 digests (shown once when made; the token can be rotated).

``cohort_member``: a learner in a cohort, under the display name they chose, with their
consent (or not) to let the instructor read their explanations verbatim. Joining adds a row
and changes nothing else; leaving deletes it.

Both are new tables: upgrading changes no existing row and downgrading drops only them.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 01:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('cohort',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('lesson', sa.String(length=200), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('join_code_hash', sa.String(length=64), nullable=False),
    sa.Column('instructor_token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('instructor_rotated_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cohort')),
    sa.UniqueConstraint('instructor_token_hash', name=op.f('uq_cohort_instructor_token_hash')),
    sa.UniqueConstraint('join_code_hash', name=op.f('uq_cohort_join_code_hash'))
    )
    op.create_table('cohort_member',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('cohort_id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('display_name', sa.String(length=60), nullable=False),
    sa.Column('share_explanations', sa.Boolean(), server_default=sa.false(), nullable=False),
    sa.Column('joined_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['cohort_id'], ['cohort.id'], name=op.f('fk_cohort_member_cohort_id_cohort'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_cohort_member_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cohort_member')),
    sa.UniqueConstraint('cohort_id', 'learner_id', name=op.f('uq_cohort_member_cohort_id_learner_id'))
    )
    op.create_index(op.f('ix_cohort_member_learner_id'), 'cohort_member', ['learner_id'])


def downgrade() -> None:
    op.drop_index(op.f('ix_cohort_member_learner_id'), table_name='cohort_member')
    op.drop_table('cohort_member')
    op.drop_table('cohort')
