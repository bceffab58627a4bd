"""Learner and browser ids are never given twice (migration 0013), and the revision that
makes them so keeps every row of every table, up and down."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from quizsvc.store import backup, migrate
from tests.support.browsers import ApiBrowser, Study
from tests.support.everything import study_everything


def table_sql(connection: Any, name: str) -> str:
    """Return the CREATE TABLE statement SQLite keeps for ``name``."""
    return str(connection.execute(text("SELECT sql FROM sqlite_master WHERE name = :name"),
                                  {"name": name}).scalar_one())


def test_the_revision_keeps_every_row_down_and_up(app, db, bank, clock, connection):
    for _ in range(2):  # two learners, the second linked to a second browser
        browser = ApiBrowser(app)
        study_everything(browser, Study(browser, db, bank), clock)
    linked = ApiBrowser(app, stored=False)
    code = browser.post("/api/link-codes").json["code"]
    assert linked.post("/api/link", json={"code": code}).status_code == 200
    before = backup.dump(connection)["tables"]
    assert all(before[name] for name in ("browser", "attempt", "review_log", "session_item",
                                         "self_assessment", "link_code", "question_report"))
    migrate.downgrade(connection, "0012")
    assert backup.dump(connection)["tables"] == before
    if connection.dialect.name == "sqlite":
        assert "AUTOINCREMENT" not in table_sql(connection, "learner")
    migrate.upgrade(connection, "head")
    assert backup.dump(connection)["tables"] == before
    migrate.check(connection)
    if connection.dialect.name == "sqlite":
        for name in ("learner", "browser"):
            assert "AUTOINCREMENT" in table_sql(connection, name)
        assert not connection.execute(text("PRAGMA foreign_key_check")).all()
