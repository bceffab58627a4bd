"""``quizsvc db backup`` / ``quizsvc db restore`` (README) lose nothing, across both databases.

A PostgreSQL database is filled by learners studying through the API (right and wrong answers,
explanations, ratings, flashcards, self-assessments, a linked browser, a link code), then:
PostgreSQL -> backup -> empty PostgreSQL and empty SQLite -> backup again, and SQLite -> a second
empty PostgreSQL. Every backup of a restored copy equals the first one, row for row; on every
copy the learners' own browsers still see exactly their data, and new answers get fresh ids.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from quizsvc import create_app
from quizsvc.cli import main
from tests.support.browsers import ApiBrowser, Study
from tests.support.databases import create_schema, drop_schema, postgres_url
from tests.support.history import comparable
from tests.support.live import LiveDatabase, schema_url

LESSON = "vllm-v1-ledger"
SECRET = "backup-test-secret"


def app_on(url: str, bank: Any) -> Any:
    """Create an app on a database URL (real commits, no test transaction).

    No ``RANDOM_SEED``: a seeded app would draw again the session ids it drew before the
    backup, which the restored copy already holds.
    """
    return create_app({"DATABASE_URL": url, "BANK": bank, "SECRET_KEY": SECRET,
                       "TESTING": True})


def fill(url: str, engine: Any, bank: Any) -> list[ApiBrowser]:
    """Let two learners study, one of them on two linked browsers; return their browsers."""
    app = app_on(url, bank)
    browsers = []
    with Session(engine) as db:
        for learner in range(2):
            browser = ApiBrowser(app)
            study = Study(browser, db, bank)
            session = study.start(LESSON, mode="quiz", size=6)
            for i in range(6):
                variant_id = study.next(session["id"])["question"]["variant_id"]
                right = (i + learner) % 2 == 0
                answer = study.right_answer(variant_id) if right else study.wrong_answer(
                    variant_id)
                attempt = study.answer(variant_id, answer).json
                if right and i % 3 == 0:
                    browser.post(f"/api/attempts/{attempt['id']}/rating", json={"rating": "easy"})
                elif not right:
                    browser.explain(attempt, explanation=f"学到了很多 {i} 🦙")
            cards = study.start(LESSON, mode="flashcards", size=2)
            for _ in range(2):
                variant_id = study.next(cards["id"])["question"]["variant_id"]
                flipped = study.answer(variant_id, None).json
                browser.post(f"/api/attempts/{flipped['id']}/rating", json={"rating": "hard"})
            browser.put(f"/api/self-assessments/{sorted(bank.questions)[learner]}",
                        json={"rating": 3, "note": "مرحبا — fine"})
            browsers.append(browser)
        browsers[0].post("/api/link-codes")  # an unused code is a row too
        phone = ApiBrowser(app)
        code = browsers[1].post("/api/link-codes").json["code"]
        assert phone.post("/api/link", json={"code": code}).status_code == 200
        browsers.append(phone)
    app.extensions["quizsvc.db"].engine.dispose()
    return browsers


def cli(*argv: str) -> None:
    """Run a ``quizsvc`` command and require success."""
    assert main(list(argv)) == 0, argv


def backup_of(url: str, path: Path) -> dict[str, Any]:
    """Back a database up with the CLI and return the document."""
    cli("db", "backup", str(path), "--database-url", url)
    return json.loads(path.read_text())


def restore_into(url: str, path: Path) -> None:
    """Migrate an empty database with the CLI, then restore a backup into it."""
    cli("db", "upgrade", "--database-url", url)
    cli("db", "restore", str(path), "--database-url", url)


def exports(url: str, bank: Any, browsers: list[ApiBrowser]) -> list[Any]:
    """Return what each browser's learner exports from the database at ``url``."""
    app = app_on(url, bank)
    client = app.test_client()
    seen = []
    for browser in browsers:
        for name in ("quizsvc_browser", "csrf_token"):
            client.set_cookie(name, browser.client.get_cookie(name).value)
        # seals opened (each export draws a fresh nonce); the moment and signature left out
        seen.append(comparable(client.get("/api/export").json))
    app.extensions["quizsvc.db"].engine.dispose()
    return seen


@pytest.fixture
def empty_pg() -> Iterator[Any]:
    """Return a factory of empty PostgreSQL schemas (not migrated), dropped afterwards."""
    made: list[str] = []

    def make() -> str:
        schema = f"quizsvc_restore_{os.getpid()}_{len(made)}"
        create_schema(postgres_url(), schema)
        made.append(schema)
        return schema_url(schema)

    yield make
    if made:
        from quizsvc.store.database import make_engine

        engine = make_engine(postgres_url())
        for schema in made:
            drop_schema(engine, schema)
        engine.dispose()


def test_backup_and_restore_across_postgresql_and_sqlite_lose_nothing(
        live_pg: LiveDatabase, bank, tmp_path, empty_pg) -> None:
    browsers = fill(live_pg.url, live_pg.engine, bank)
    first = backup_of(live_pg.url, tmp_path / "postgresql.json")
    rows = {name: len(table) for name, table in first["tables"].items()}
    assert all(rows[name] for name in ("attempt", "review_log", "review_card", "browser",
                                       "self_assessment", "link_code")), rows
    before = exports(live_pg.url, bank, browsers)

    pg_copy, sqlite_copy = empty_pg(), f"sqlite:///{tmp_path / 'restored.sqlite3'}"
    for url in (pg_copy, sqlite_copy):
        restore_into(url, tmp_path / "postgresql.json")
        assert backup_of(url, tmp_path / "again.json") == first
        assert exports(url, bank, browsers) == before
    back_to_pg = empty_pg()
    backup_of(sqlite_copy, tmp_path / "sqlite.json")
    restore_into(back_to_pg, tmp_path / "sqlite.json")
    assert backup_of(back_to_pg, tmp_path / "third.json") == first

    for url in (pg_copy, sqlite_copy):  # the copies take new answers with fresh ids
        app = app_on(url, bank)
        engine = app.extensions["quizsvc.db"].engine
        with Session(engine) as db:
            study = Study(ApiBrowser(app), db, bank)
            session = study.start(LESSON, mode="quiz", size=1)
            variant_id = study.next(session["id"])["question"]["variant_id"]
            right = study.right_answer(variant_id)
            db.rollback()  # on SQLite an open transaction holds the one writer lock
            answered = study.answer(variant_id, right)
        assert answered.status_code == 201
        assert answered.json["id"] > max(row["id"] for row in first["tables"]["attempt"])
        engine.dispose()


def test_restore_refuses_a_database_that_already_has_rows(live_pg: LiveDatabase, bank, tmp_path,
                                                          capsys) -> None:
    fill(live_pg.url, live_pg.engine, bank)
    path = tmp_path / "backup.json"
    backup_of(live_pg.url, path)
    capsys.readouterr()
    assert main(["db", "restore", str(path), "--database-url", live_pg.url]) == 1
    assert "not empty" in capsys.readouterr().err
