"""answer path columns: learner.review_seq and served_variant.answer_key

``learner.review_seq`` counts the transactions that changed a learner's attempts, review
cards, review log or mastery. The graded-answer path reads what it needs without a lock,
then writes in one statement that first bumps the counter only if it still holds the value
read: a concurrent change of the same learner makes that statement change nothing, and the
answer is redone under the learner lock.

``served_variant.answer_key`` keeps the sealed answer key (answer, solution, misconceptions;
JSON text made by ``quizsvc.bank.AnswerKey``) computed by the ledger core when the variant
is served, so grading does not rebuild the variant in whichever worker receives the answer.
Rows served before this revision have none; grading then rebuilds the variant as before.

Both columns are added and dropped in place (SQLite has had ``ALTER TABLE ... DROP COLUMN``
since 3.35), never by batch mode's copy-and-swap: recreating ``learner`` would drop the old
table, and with foreign keys on that deletes every row that refers to a learner.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 02:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('learner', sa.Column('review_seq', sa.Integer(), server_default='0',
                                       nullable=False))
    op.add_column('served_variant', sa.Column('answer_key', sa.Text(), nullable=True))


def drop_in_place(table: str, column: str) -> None:
    """Drop a column without recreating its table (see the module docstring)."""
    if op.get_bind().dialect.name == 'sqlite':
        op.execute(f'ALTER TABLE {table} DROP COLUMN {column}')
    else:
        op.drop_column(table, column)


def downgrade() -> None:
    drop_in_place('served_variant', 'answer_key')
    drop_in_place('learner', 'review_seq')
