"""flashcards session mode: allow study_session.mode = 'flashcards'

A flashcards session serves only the lesson's flashcards (due first, then new). Only the
CHECK constraint on ``study_session.mode`` changes. On SQLite the constraint change recreates
the table (batch mode), and dropping the old table deletes its ``session_item`` rows through
``ON DELETE CASCADE`` (foreign keys are on and cannot be switched off inside the migration's
transaction), so those rows are kept aside and put back. Downgrading turns flashcards sessions
into review sessions: a review session may hold the same due and new cards.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 09:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CONSTRAINT = 'ck_study_session_mode_known'


def allow_modes(modes: tuple[str, ...]) -> None:
    """Replace the mode CHECK constraint, keeping session items on SQLite."""
    sqlite = op.get_bind().dialect.name == 'sqlite'
    if sqlite:
        op.execute('CREATE TEMPORARY TABLE kept_session_item AS SELECT * FROM session_item')
    with op.batch_alter_table('study_session') as batch_op:
        batch_op.drop_constraint(op.f(CONSTRAINT), type_='check')
        batch_op.create_check_constraint(
            op.f(CONSTRAINT), sa.text('mode IN ({})'.format(', '.join(f"'{m}'" for m in modes))))
    if sqlite:
        op.execute('INSERT INTO session_item SELECT * FROM kept_session_item '
                   'WHERE id NOT IN (SELECT id FROM session_item)')
        op.execute('DROP TABLE kept_session_item')


def upgrade() -> None:
    allow_modes(('review', 'quiz', 'flashcards'))


def downgrade() -> None:
    op.execute("UPDATE study_session SET mode = 'review' WHERE mode = 'flashcards'")
    allow_modes(('review', 'quiz'))
