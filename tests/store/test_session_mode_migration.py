"""Migration 0002 lets a session be a flashcards session and loses nothing on the way.

On SQLite the constraint change recreates ``study_session``; dropping the old table would
delete its ``session_item`` rows through ``ON DELETE CASCADE`` if the migration did not keep
them. These tests put rows in at revision 0001 and follow them through upgrade and downgrade.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError

from quizsvc.store import migrate
from quizsvc.store.models import Learner, SessionItem, StudySession

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def add_session(connection: Connection, learner_id: int, session_id: str, mode: str) -> None:
    """Add a session of ``mode`` with two items."""
    connection.execute(insert(StudySession).values(
        id=session_id, learner_id=learner_id, lesson="lesson", mode=mode, size=2,
        created_at=NOW))
    connection.execute(insert(SessionItem), [
        {"session_id": session_id, "position": p, "question_id": f"q{p}", "reason": "new",
         "variant_id": None} for p in (1, 2)])


def sessions(connection: Connection) -> dict[str, tuple[str, int]]:
    """Return each session's mode and item count."""
    counts: dict[str, int] = {}
    for (sid,) in connection.execute(select(SessionItem.session_id)):
        counts[sid] = counts.get(sid, 0) + 1
    return {sid: (mode, counts.get(sid, 0))
            for sid, mode in connection.execute(select(StudySession.id, StudySession.mode))}


@pytest.fixture
def learner_id(connection: Connection) -> int:
    """Go back to revision 0001 and add a learner there."""
    migrate.downgrade(connection, "0001")
    return connection.execute(insert(Learner).values(created_at=NOW)).inserted_primary_key[0]


def test_revision_0001_refuses_a_flashcards_session(connection: Connection,
                                                   learner_id: int) -> None:
    with pytest.raises(IntegrityError), connection.begin_nested():
        add_session(connection, learner_id, "cards", "flashcards")


def test_upgrading_keeps_sessions_and_their_items_and_allows_flashcards(
        connection: Connection, learner_id: int) -> None:
    add_session(connection, learner_id, "old-review", "review")
    add_session(connection, learner_id, "old-quiz", "quiz")
    migrate.upgrade(connection, "head")
    add_session(connection, learner_id, "cards", "flashcards")
    assert sessions(connection) == {"old-review": ("review", 2), "old-quiz": ("quiz", 2),
                                    "cards": ("flashcards", 2)}
    with pytest.raises(IntegrityError), connection.begin_nested():
        add_session(connection, learner_id, "bad", "cram")
    migrate.check(connection)


def test_downgrading_turns_flashcards_sessions_into_review_sessions(
        connection: Connection, learner_id: int) -> None:
    migrate.upgrade(connection, "head")
    add_session(connection, learner_id, "cards", "flashcards")
    add_session(connection, learner_id, "old-quiz", "quiz")
    migrate.downgrade(connection, "0001")
    assert sessions(connection) == {"cards": ("review", 2), "old-quiz": ("quiz", 2)}
    migrate.upgrade(connection, "head")
    assert sessions(connection) == {"cards": ("review", 2), "old-quiz": ("quiz", 2)}
