"""Erasure finds a learner's rows from the schema: every table is covered, new ones too."""

from __future__ import annotations

from sqlalchemy import Column, ForeignKey, Integer, MetaData, String, Table

from quizsvc.store import erasure
from quizsvc.store.models import Base


def test_every_table_is_a_learners_or_declared_to_hold_no_learner():
    tables = {table.name for table in Base.metadata.sorted_tables}
    owned = erasure.owned_tables()
    assert owned.isdisjoint(erasure.HOLDS_NO_LEARNER)
    assert owned | erasure.HOLDS_NO_LEARNER == tables, (
        "a table is neither erased with its learner nor declared in HOLDS_NO_LEARNER: "
        f"{sorted(tables - owned - erasure.HOLDS_NO_LEARNER)}")


def test_every_table_with_a_learner_column_or_a_key_to_one_is_erased():
    owned = erasure.owned_tables()
    for table in Base.metadata.sorted_tables:
        if "learner_id" in table.c or any(key.column.table.name == "learner"
                                          for key in table.foreign_keys):
            assert table.name in owned, table.name


def test_an_optional_reference_from_another_learners_row_is_unhooked_not_deleted():
    owners = erasure.ownerships()
    refs = {(column.name, parent.name) for column, parent in owners["link_code"].nullable_refs}
    assert ("used_by_browser_id", "browser") in refs


def test_a_table_added_later_is_found_by_its_learner_column_and_its_keys():
    metadata = MetaData()
    learner = Table("learner", metadata, Column("id", Integer, primary_key=True))
    notes = Table("later_note", metadata, Column("id", Integer, primary_key=True),
                  Column("learner_id", Integer))  # no foreign key declared
    browser = Table("browser", metadata, Column("id", Integer, primary_key=True),
                    Column("learner_id", ForeignKey("learner.id"), nullable=False))
    tags = Table("later_tag", metadata, Column("id", Integer, primary_key=True),
                 Column("browser_id", ForeignKey("browser.id"), nullable=False),
                 Column("tag", String(10)))
    shared = Table("later_shared", metadata, Column("id", Integer, primary_key=True))
    owners = erasure.ownerships([learner, notes, browser, tags, shared])
    assert {name for name, owner in owners.items() if owner.owned_by} == {
        "learner", "later_note", "browser", "later_tag"}
