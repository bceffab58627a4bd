"""initial schema: identity, self-assessments, sessions, attempts, fsrs cards, mastery

Self-assessments (per browser) and mastery (per learner, policy-written) are separate tables
with no link between them; fsrs card state is stored in real columns with a (learner, due)
index for the due queue.

Revision ID: 0001
Revises:
Create Date: 2026-11-29 22:40:56.024894
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('learner',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_learner'))
    )
    op.create_table('browser',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('linked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_browser_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_browser')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_browser_token_hash'))
    )
    op.create_index(op.f('ix_browser_learner_id'), 'browser', ['learner_id'])

    op.create_table('mastery',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.String(length=200), nullable=False),
    sa.Column('lesson', sa.String(length=200), nullable=False),
    sa.Column('mastered', sa.Boolean(), nullable=False),
    sa.Column('mastered_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('evidence', sa.JSON(), nullable=False),
    sa.Column('policy', sa.String(length=32), nullable=False),
    sa.Column('evaluated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_mastery_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mastery')),
    sa.UniqueConstraint('learner_id', 'question_id', name=op.f('uq_mastery_learner_id_question_id'))
    )
    op.create_index(op.f('ix_mastery_learner_id'), 'mastery', ['learner_id'])

    op.create_table('review_card',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.String(length=200), nullable=False),
    sa.Column('lesson', sa.String(length=200), nullable=False),
    sa.Column('state', sa.SmallInteger(), nullable=False),
    sa.Column('step', sa.SmallInteger(), nullable=True),
    sa.Column('stability', sa.Float(), nullable=True),
    sa.Column('difficulty', sa.Float(), nullable=True),
    sa.Column('due', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_review', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_review_card_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_review_card')),
    sa.UniqueConstraint('learner_id', 'question_id', name=op.f('uq_review_card_learner_id_question_id'))
    )
    op.create_index(op.f('ix_review_card_learner_id_due'), 'review_card', ['learner_id', 'due'])

    op.create_table('served_variant',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.String(length=200), nullable=False),
    sa.Column('lesson', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('seed', sa.BigInteger(), nullable=False),
    sa.Column('bank_version', sa.String(length=64), nullable=False),
    sa.Column('served_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('answered', sa.Boolean(), nullable=False),
    sa.Column('open_book', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_served_variant_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_served_variant'))
    )
    op.create_index(op.f('ix_served_variant_learner_id'), 'served_variant', ['learner_id'])

    op.create_table('study_session',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('lesson', sa.String(length=200), nullable=False),
    sa.Column('mode', sa.String(length=16), nullable=False),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("mode IN ('review', 'quiz')", name=op.f('ck_study_session_mode_known')),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_study_session_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_session'))
    )
    op.create_index(op.f('ix_study_session_learner_id'), 'study_session', ['learner_id'])

    op.create_table('attempt',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('variant_id', sa.String(length=32), nullable=False),
    sa.Column('question_id', sa.String(length=200), nullable=False),
    sa.Column('lesson', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('seed', sa.BigInteger(), nullable=False),
    sa.Column('bank_version', sa.String(length=64), nullable=False),
    sa.Column('answer', sa.JSON(), nullable=True),
    sa.Column('graded', sa.Boolean(), nullable=False),
    sa.Column('correct', sa.Boolean(), nullable=True),
    sa.Column('score', sa.Float(), nullable=True),
    sa.Column('misconception_id', sa.String(length=200), nullable=True),
    sa.Column('served_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('submitted_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('duration_ms', sa.Integer(), nullable=False),
    sa.Column('closed_book', sa.Boolean(), nullable=False),
    sa.Column('explanation', sa.Text(), nullable=True),
    sa.Column('explained_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revealed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('idempotency_key', sa.String(length=200), nullable=False),
    sa.Column('request_digest', sa.String(length=64), nullable=False),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_attempt_learner_id_learner'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['variant_id'], ['served_variant.id'], name=op.f('fk_attempt_variant_id_served_variant'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_attempt')),
    sa.UniqueConstraint('learner_id', 'idempotency_key', name=op.f('uq_attempt_learner_id_idempotency_key')),
    sa.UniqueConstraint('variant_id', name=op.f('uq_attempt_variant_id'))
    )
    op.create_index(op.f('ix_attempt_learner_id_question_id'), 'attempt', ['learner_id', 'question_id'])

    op.create_table('link_code',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('code_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('used_by_browser_id', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_link_code_learner_id_learner'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['used_by_browser_id'], ['browser.id'], name=op.f('fk_link_code_used_by_browser_id_browser'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_link_code')),
    sa.UniqueConstraint('code_hash', name=op.f('uq_link_code_code_hash'))
    )
    op.create_index(op.f('ix_link_code_learner_id'), 'link_code', ['learner_id'])

    op.create_table('self_assessment',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('browser_id', sa.Integer(), nullable=False),
    sa.Column('ref', sa.String(length=200), nullable=False),
    sa.Column('ref_kind', sa.String(length=16), nullable=False),
    sa.Column('rating', sa.SmallInteger(), nullable=False),
    sa.Column('note', sa.Text(), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("ref_kind IN ('question', 'section')", name=op.f('ck_self_assessment_ref_kind_known')),
    sa.CheckConstraint('rating BETWEEN 1 AND 4', name=op.f('ck_self_assessment_rating_range')),
    sa.ForeignKeyConstraint(['browser_id'], ['browser.id'], name=op.f('fk_self_assessment_browser_id_browser'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_self_assessment')),
    sa.UniqueConstraint('browser_id', 'ref', name=op.f('uq_self_assessment_browser_id_ref'))
    )
    op.create_index(op.f('ix_self_assessment_browser_id'), 'self_assessment', ['browser_id'])

    op.create_table('session_item',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('session_id', sa.String(length=32), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('question_id', sa.String(length=200), nullable=False),
    sa.Column('reason', sa.String(length=16), nullable=False),
    sa.Column('variant_id', sa.String(length=32), nullable=True),
    sa.ForeignKeyConstraint(['session_id'], ['study_session.id'], name=op.f('fk_session_item_session_id_study_session'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['variant_id'], ['served_variant.id'], name=op.f('fk_session_item_variant_id_served_variant'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_session_item')),
    sa.UniqueConstraint('session_id', 'position', name=op.f('uq_session_item_session_id_position'))
    )
    op.create_table('review_log',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('card_id', sa.Integer(), nullable=False),
    sa.Column('learner_id', sa.Integer(), nullable=False),
    sa.Column('attempt_id', sa.Integer(), nullable=True),
    sa.Column('rating', sa.SmallInteger(), nullable=False),
    sa.Column('reviewed_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('duration_ms', sa.Integer(), nullable=True),
    sa.Column('rated_by_learner', sa.Boolean(), nullable=False),
    sa.Column('state_before', sa.SmallInteger(), nullable=False),
    sa.Column('step_before', sa.SmallInteger(), nullable=True),
    sa.Column('stability_before', sa.Float(), nullable=True),
    sa.Column('difficulty_before', sa.Float(), nullable=True),
    sa.Column('due_before', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_review_before', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint('rating BETWEEN 1 AND 4', name=op.f('ck_review_log_rating_range')),
    sa.ForeignKeyConstraint(['attempt_id'], ['attempt.id'], name=op.f('fk_review_log_attempt_id_attempt'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['card_id'], ['review_card.id'], name=op.f('fk_review_log_card_id_review_card'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['learner_id'], ['learner.id'], name=op.f('fk_review_log_learner_id_learner'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_review_log')),
    sa.UniqueConstraint('attempt_id', name=op.f('uq_review_log_attempt_id'))
    )
    op.create_index(op.f('ix_review_log_card_id'), 'review_log', ['card_id'])
    op.create_index(op.f('ix_review_log_learner_id'), 'review_log', ['learner_id'])



def downgrade() -> None:
    op.drop_index(op.f('ix_review_log_learner_id'), table_name='review_log')
    op.drop_index(op.f('ix_review_log_card_id'), table_name='review_log')

    op.drop_table('review_log')
    op.drop_table('session_item')
    op.drop_index(op.f('ix_self_assessment_browser_id'), table_name='self_assessment')

    op.drop_table('self_assessment')
    op.drop_index(op.f('ix_link_code_learner_id'), table_name='link_code')

    op.drop_table('link_code')
    op.drop_index(op.f('ix_attempt_learner_id_question_id'), table_name='attempt')

    op.drop_table('attempt')
    op.drop_index(op.f('ix_study_session_learner_id'), table_name='study_session')

    op.drop_table('study_session')
    op.drop_index(op.f('ix_served_variant_learner_id'), table_name='served_variant')

    op.drop_table('served_variant')
    op.drop_index(op.f('ix_review_card_learner_id_due'), table_name='review_card')

    op.drop_table('review_card')
    op.drop_index(op.f('ix_mastery_learner_id'), table_name='mastery')

    op.drop_table('mastery')
    op.drop_index(op.f('ix_browser_learner_id'), table_name='browser')

    op.drop_table('browser')
    op.drop_table('learner')
