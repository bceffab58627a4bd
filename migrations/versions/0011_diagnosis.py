"""the rule a learner names when explaining a wrong answer

``attempt.diagnosed_rule``: after a wrong answer the learner picks the rule of the lesson
(``rules.yaml`` id) they think they broke, beside the sentence in ``explanation``. Where the
answer matched a named wrong model, the reveal grades that diagnosis against the rule the
model breaks; ``/progress`` counts how often it named it. Never mastery evidence. Older
explanations named no rule: the column stays null for them.

Added and dropped in place, never by batch mode's copy of a table (see 0003).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 01:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('attempt', sa.Column('diagnosed_rule', sa.String(length=200), nullable=True))


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE attempt DROP COLUMN diagnosed_rule')
    else:
        op.drop_column('attempt', 'diagnosed_rule')
