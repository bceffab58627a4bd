"""Migration 0003 adds ``learner.review_seq`` and ``served_variant.answer_key`` and loses nothing.

Both columns are added and dropped in place. Had either table been recreated (Alembic's batch
copy-and-swap on SQLite), dropping the old ``learner`` would delete, through ``ON DELETE
CASCADE``, every browser, session, variant, attempt, card, log row and mastery record of every
learner; dropping ``served_variant`` would delete its attempts and unlink its session items.
These tests put one of each in at revision 0002 and follow them through upgrade, downgrade and
upgrade again.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import Connection, insert, inspect, select, text

from quizsvc.store import migrate
from quizsvc.store.models import (
    Attempt,
    Browser,
    Learner,
    LinkCode,
    Mastery,
    ReviewCard,
    ReviewLog,
    SelfAssessment,
    ServedVariant,
    SessionItem,
    StudySession,
)

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
# Every table that refers (directly or not) to ``learner`` or ``served_variant``.
TABLES = ("learner", "browser", "link_code", "self_assessment", "study_session",
          "served_variant", "session_item", "attempt", "review_card", "review_log", "mastery")


def put_one_of_each(connection: Connection) -> None:
    """Add, at revision 0002, a learner with one row in every table that refers to it."""
    learner_id = connection.execute(insert(Learner).values(created_at=NOW)).inserted_primary_key[0]
    browser_id = connection.execute(insert(Browser).values(
        learner_id=learner_id, token_hash="b" * 64, created_at=NOW)).inserted_primary_key[0]
    connection.execute(insert(LinkCode).values(
        learner_id=learner_id, code_hash="c" * 64, created_at=NOW, expires_at=NOW))
    connection.execute(insert(SelfAssessment).values(
        browser_id=browser_id, ref="budget", ref_kind="section", rating=3, updated_at=NOW))
    connection.execute(insert(StudySession).values(
        id="session-1", learner_id=learner_id, lesson="lesson", mode="quiz", size=1,
        created_at=NOW))
    connection.execute(insert(ServedVariant).values(
        id="variant-1", learner_id=learner_id, question_id="q1", lesson="lesson",
        kind="numeric", seed=42, bank_version="v1", served_at=NOW, answered=True,
        open_book=False))
    connection.execute(insert(SessionItem).values(
        session_id="session-1", position=1, question_id="q1", reason="new",
        variant_id="variant-1"))
    attempt_id = connection.execute(insert(Attempt).values(
        learner_id=learner_id, variant_id="variant-1", question_id="q1", lesson="lesson",
        kind="numeric", seed=42, bank_version="v1", answer=[3, 5], graded=True, correct=True,
        score=1.0, misconception_id=None, served_at=NOW, submitted_at=NOW, duration_ms=1000,
        closed_book=True, explanation=None, explained_at=None, revealed_at=NOW,
        idempotency_key="key-1", request_digest="d" * 64)).inserted_primary_key[0]
    card_id = connection.execute(insert(ReviewCard).values(
        learner_id=learner_id, question_id="q1", lesson="lesson", state=2, step=None,
        stability=3.5, difficulty=5.0, due=NOW, last_review=NOW, created_at=NOW)
    ).inserted_primary_key[0]
    connection.execute(insert(ReviewLog).values(
        card_id=card_id, learner_id=learner_id, attempt_id=attempt_id, rating=3,
        reviewed_at=NOW, duration_ms=1000, rated_by_learner=False, state_before=1,
        step_before=0, stability_before=None, difficulty_before=None, due_before=NOW,
        last_review_before=None))
    connection.execute(insert(Mastery).values(
        learner_id=learner_id, question_id="q1", lesson="lesson", mastered=True,
        mastered_at=NOW, evidence=[attempt_id], policy="spaced-closed-book/1",
        evaluated_at=NOW))


def columns(connection: Connection, table: str) -> list[str]:
    """Return the names of ``table``'s columns as the database has them."""
    return [column["name"] for column in inspect(connection).get_columns(table)]


def rows(connection: Connection, shape: dict[str, list[str]]) -> dict[str, list[Any]]:
    """Return every row of each table, reading only the columns named in ``shape``."""
    return {table: [tuple(row) for row in connection.execute(text(
                f"SELECT {', '.join(names)} FROM {table} ORDER BY 1"))]
            for table, names in shape.items()}


@pytest.fixture
def at_0002(connection: Connection) -> dict[str, list[Any]]:
    """Go back to revision 0002, add one row to every table, return them all."""
    migrate.downgrade(connection, "0002")
    put_one_of_each(connection)
    shape = {table: columns(connection, table) for table in TABLES}
    before = rows(connection, shape)
    assert all(len(table_rows) == 1 for table_rows in before.values())
    return {"shape": shape, "rows": before}


def test_revision_0002_has_neither_column(connection: Connection, at_0002: Any) -> None:
    assert "review_seq" not in columns(connection, "learner")
    assert "answer_key" not in columns(connection, "served_variant")


def test_upgrading_keeps_every_row_and_starts_the_counter_at_zero_with_no_answer_key(
        connection: Connection, at_0002: Any) -> None:
    migrate.upgrade(connection, "head")
    assert rows(connection, at_0002["shape"]) == at_0002["rows"]
    assert connection.execute(select(Learner.review_seq)).scalars().all() == [0]
    assert connection.execute(select(ServedVariant.answer_key)).scalars().all() == [None]
    migrate.check(connection)


def test_a_learner_added_after_the_upgrade_gets_the_counter_s_server_default(
        connection: Connection, at_0002: Any) -> None:
    migrate.upgrade(connection, "head")
    connection.execute(insert(Learner).values(created_at=NOW))  # review_seq left out
    assert connection.execute(select(Learner.review_seq)).scalars().all() == [0, 0]


def test_downgrading_keeps_every_row_drops_both_columns_and_upgrades_again(
        connection: Connection, at_0002: Any) -> None:
    migrate.upgrade(connection, "head")
    connection.execute(text("UPDATE learner SET review_seq = 7"))
    connection.execute(text("UPDATE served_variant SET answer_key = :key"), {"key": '{"v":1}'})
    migrate.downgrade(connection, "0002")
    assert migrate.current_revision(connection) == "0002"
    assert rows(connection, at_0002["shape"]) == at_0002["rows"]  # nothing cascaded away
    assert "review_seq" not in columns(connection, "learner")
    assert "answer_key" not in columns(connection, "served_variant")
    migrate.upgrade(connection, "head")
    assert rows(connection, at_0002["shape"]) == at_0002["rows"]
    assert connection.execute(select(Learner.review_seq)).scalars().all() == [0]
    assert connection.execute(select(ServedVariant.answer_key)).scalars().all() == [None]
    migrate.check(connection)
