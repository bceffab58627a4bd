"""Holds in the store: the serving and due reads stay one statement each, and on PostgreSQL
they find a learner's holds through ``item_hold``'s indexes, not by scanning the table."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event, insert, text

from quizsvc.store.holds import Hold
from quizsvc.store.models import Learner, ReviewCard, table
from quizsvc.store.unit_of_work import UnitOfWork
from tests.support.clock import START

LESSON = "lesson"


@pytest.fixture
def learner(connection: Any) -> int:
    """Store a learner with three cards, all due, and hold two of them."""
    learner_id = connection.execute(insert(table(Learner)).values(created_at=START)
                                    .returning(table(Learner).c.id)).scalar_one()
    connection.execute(insert(table(ReviewCard)), [
        {"learner_id": learner_id, "question_id": qid, "lesson": LESSON, "state": 2,
         "due": START - timedelta(days=1), "created_at": START}
        for qid in ("kept", "suspended", "buried")])
    uow = UnitOfWork(bound=connection)
    with uow.write():
        uow.holds.put(learner_id, LESSON, Hold("suspended", True, None), START)
        uow.holds.put(learner_id, LESSON, Hold("buried", False, START + timedelta(hours=2)),
                      START)
        uow.holds.put(learner_id, LESSON, Hold("new-suspended", True, None), START)
    return int(learner_id)


def statements(connection: Any, read: Any) -> tuple[Any, list[tuple[str, Any]]]:
    """Run ``read`` and return its value and the statements it sent."""
    sent: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
               executemany: bool) -> None:
        sent.append((statement, parameters))

    event.listen(connection, "before_cursor_execute", record)
    try:
        return read(), sent
    finally:
        event.remove(connection, "before_cursor_execute", record)


def test_a_session_start_reads_cards_and_holds_in_one_statement(connection: Any,
                                                                learner: int) -> None:
    uow = UnitOfWork(bound=connection)
    with uow.read():
        dues, sent = statements(connection, lambda: uow.progress.card_dues(learner, LESSON,
                                                                           START))
    queries = [s for s, _ in sent if not s.startswith(("SAVEPOINT", "RELEASE", "ROLLBACK"))]
    assert len(queries) == 1
    assert dues[0][0] == "kept" and dues[0][1] is not None
    assert sorted(qid for qid, due in dues if due is None) == [
        "buried", "new-suspended", "suspended"]
    with uow.read():
        later = uow.progress.card_dues(learner, LESSON, START + timedelta(hours=3))
    assert sorted(qid for qid, due in later if due is not None) == ["buried", "kept"]


def test_due_figures_leave_held_cards_out(connection: Any, learner: int) -> None:
    uow = UnitOfWork(bound=connection)
    with uow.read():
        assert [c.question_id for c in uow.progress.due_queue(learner, START, 10)] == ["kept"]
        assert uow.progress.card_counts(learner, ["kept", "suspended", "buried",
                                                  "new-suspended"], START) == (3, 1, 1)
        day = START.replace(hour=0)
        assert uow.progress.day_counts(learner, LESSON, day, 3).cards == 1


def test_postgresql_finds_holds_through_their_indexes(connection: Any, learner: int,
                                                      backend: str) -> None:
    if backend != "postgresql":
        pytest.skip("EXPLAIN plans are PostgreSQL's")
    uow = UnitOfWork(bound=connection)
    with uow.read():
        _, sent = statements(connection, lambda: (
            uow.progress.card_dues(learner, LESSON, START),
            uow.progress.due_queue(learner, START, 10)))
    connection.execute(text("SET LOCAL enable_seqscan = off"))
    for statement, parameters in sent:
        if not statement.lstrip().upper().startswith(("SELECT", "WITH")):
            continue
        cursor = connection.connection.cursor()
        cursor.execute("EXPLAIN " + statement, parameters)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        assert "item_hold" in plan
        assert "Seq Scan on item_hold" not in plan, plan
