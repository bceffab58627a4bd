"""Migrations are the schema: ``alembic check`` is clean and downgrade/upgrade round-trips."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect

from quizsvc.store import migrate
from quizsvc.store.models import Base

TABLES = {table.name for table in Base.metadata.sorted_tables}


def table_names(connection):
    return set(inspect(connection).get_table_names()) - {"alembic_version"}


def test_the_test_database_was_built_by_upgrade_head(connection):
    assert migrate.current_revision(connection) == migrate.head_revision()
    assert table_names(connection) == TABLES


def test_alembic_check_finds_no_drift_between_models_and_migrations(connection):
    migrate.check(connection)


def test_downgrade_to_base_then_upgrade_to_head_round_trips(connection):
    """Runs inside the test's transaction: the DDL is rolled back afterwards."""
    migrate.downgrade(connection, "base")
    assert table_names(connection) == set()
    assert migrate.current_revision(connection) is None
    migrate.upgrade(connection, "head")
    assert table_names(connection) == TABLES
    migrate.check(connection)


def test_every_revision_has_a_readable_file_name_and_message():
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(migrate.alembic_config())
    for script in scripts.walk_revisions():
        name = script.path.rsplit("/", 1)[-1]
        number = script.revision.split("_", 1)[0]  # "0004_fsrs_tuning" is in 0004_*.py
        assert number.isdigit() and name.startswith(f"{number}_") and len(name) > 12
        assert script.doc and len(script.doc) > 20


@pytest.mark.parametrize("table", sorted(TABLES))
def test_constraints_follow_the_naming_convention(connection, table):
    inspector = inspect(connection)
    for fk in inspector.get_foreign_keys(table):
        assert fk["name"].startswith(f"fk_{table}_")
    for unique in inspector.get_unique_constraints(table):
        assert unique["name"].startswith(f"uq_{table}_")
