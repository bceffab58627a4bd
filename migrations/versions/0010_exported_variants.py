"""variants exported to an LMS, which serving never hands out

``exported_variant``: one row per variant written into an LMS export (``quizsvc export
moodle|qti``): its question, content key, seed, bank version, the format and when. A class
holds these answers, so ``study.serving`` never serves a content recorded here, even if a
later bank's publication partition would call it servable.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 01:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'exported_variant',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('question_id', sa.String(length=200), nullable=False),
        sa.Column('content_key', sa.String(length=32), nullable=False),
        sa.Column('seed', sa.BigInteger(), nullable=False),
        sa.Column('bank_version', sa.String(length=64), nullable=False),
        sa.Column('export_format', sa.String(length=16), nullable=False),
        sa.Column('exported_at', sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("export_format IN ('moodle', 'qti')",
                           name=op.f('ck_exported_variant_export_format_known')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_exported_variant')),
        sa.UniqueConstraint('question_id', 'content_key', 'seed',
                            name=op.f('uq_exported_variant_question_id_content_key_seed')),
    )


def downgrade() -> None:
    op.drop_table('exported_variant')
