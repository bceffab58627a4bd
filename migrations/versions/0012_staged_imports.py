"""imports written in steps into a learner of their own

``learner.import_staged_at``: a large import is written in short transactions (on SQLite each
holds the database's one writer, which every other learner waits for) into a new learner that
no browser reaches, and handed to the importing browser in one small last step. Until then
the column says when the import began; a learner left with it set is an import that never
finished, which ``quizsvc db prune`` deletes. Null for every other learner.

``learner.exported_as``: the learner id that learner's exports name from then on, the one the
importing browser had before (null: its own id), so a signed export made before the import
is still that learner's own after it.

Added and dropped in place, never by batch mode's copy of a table (see 0003).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 08:00:00.000000
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('learner', sa.Column('import_staged_at', sa.DateTime(timezone=True),
                                       nullable=True))
    op.add_column('learner', sa.Column('exported_as', sa.Integer(), nullable=True))


def downgrade() -> None:
    for column in ('exported_as', 'import_staged_at'):
        if op.get_bind().dialect.name == 'sqlite':
            op.execute(f'ALTER TABLE learner DROP COLUMN {column}')
        else:
            op.drop_column('learner', column)
