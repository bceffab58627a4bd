"""item holds and question reports: suspend or bury an item, report a problem with a question

``item_hold``: per learner and question, whether the learner suspended it (never served,
counted in no due figure, until unsuspended) or buried it until a day's start (UTC, the day
the scheduler counts in). Unique per (learner, question), which is also the index the
serving and due queries' NOT EXISTS look-ups use; (learner, lesson) serves the card browser.

``question_report``: a learner's report of a problem with a question (a reason and a short
text), with the variant it was seen on (question id, seed, bank version), listed only for
the author.

Both are new tables: upgrading changes no existing row; downgrading drops only them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 01:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('item_hold',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.String(length=200), nullable=False),
    sa.Column('lesson', sa.String(length=200), nullable=False),
    sa.Column('suspended', sa.Boolean(), nullable=False),
    sa.Column('buried_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_item_hold_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_item_hold')),
    sa.UniqueConstraint('learner_id', 'question_id', name=op.f('uq_item_hold_learner_id_question_id'))
    )
    op.create_index('ix_item_hold_learner_id_lesson', 'item_hold', ['learner_id', 'lesson'])

    op.create_table('question_report',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('variant_id', sa.String(length=32), nullable=True),
    sa.Column('question_id', sa.String(length=200), nullable=False),
    sa.Column('lesson', sa.String(length=200), nullable=False),
    sa.Column('seed', sa.BigInteger(), nullable=False),
    sa.Column('bank_version', sa.String(length=64), nullable=False),
    sa.Column('reason', sa.String(length=16), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("reason IN ('wrong_answer', 'unclear', 'typo', 'broken', 'other')", name=op.f('ck_question_report_reason_known')),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_question_report_learner_id_learner'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['variant_id'], ['served_variant.id'], name=op.f('fk_question_report_variant_id_served_variant'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_question_report'))
    )
    op.create_index('ix_question_report_created_at', 'question_report', ['created_at'])
    op.create_index(op.f('ix_question_report_learner_id'), 'question_report', ['learner_id'])


def downgrade() -> None:
    op.drop_index(op.f('ix_question_report_learner_id'), table_name='question_report')
    op.drop_index('ix_question_report_created_at', table_name='question_report')
    op.drop_table('question_report')
    op.drop_index('ix_item_hold_learner_id_lesson', table_name='item_hold')
    op.drop_table('item_hold')
