"""The API answers alike whichever way an answer goes: the hot path or the general way.

``POST /api/attempts`` first tries ``study.answer_as_browser``, which finds the browser in the
answer's own read; whatever it declines goes the general way (identity hook, then
``submit_attempt``). Both must give the same responses and leave the same rows. The same
script of study (right, wrong, retried, reused keys, unreadable answers, answered variants,
explanations, ratings, days passing so that questions are mastered and lapse) runs twice on
the same start, once as served and once with the hot path switched off, and everything a
client or the database sees is compared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import Connection, text
from sqlalchemy.orm import Session

from quizsvc import create_app
from quizsvc.api.resources import attempts as attempts_view
from quizsvc.api.services import study as study_service
from tests.api.support import ApiBrowser, Study
from tests.conftest import START, FakeClock
from tests.fake_bank import LESSON_ID

HEADERS = ("Content-Type", "Vary", "Cache-Control", "Idempotent-Replayed", "Retry-After")
TABLES = {  # what each answer writes, without row ids (sequences are not rolled back)
    "attempt": "SELECT variant_id, question_id, seed, answer, graded, correct, score, "
               "misconception_id, submitted_at, duration_ms, closed_book, explanation, "
               "revealed_at, idempotency_key FROM attempt ORDER BY submitted_at, variant_id",
    "review_card": "SELECT question_id, state, step, stability, difficulty, due, last_review "
                   "FROM review_card ORDER BY question_id",
    "review_log": "SELECT rating, reviewed_at, rated_by_learner, state_before, step_before, "
                  "stability_before, due_before FROM review_log ORDER BY reviewed_at, rating",
    "mastery": "SELECT question_id, mastered, mastered_at, evaluated_at FROM mastery "
               "ORDER BY question_id",
    "served_variant": "SELECT id, answered, open_book FROM served_variant ORDER BY id",
}


class Recorder:
    """Keep what a client sees of each response, with row ids renumbered in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[Any, ...]] = []
        self.ids: dict[int, int] = {}

    def record(self, step: str, response: Any) -> Any:
        """Record ``response`` under ``step`` and return it."""
        body = response.get_json(silent=True)
        if isinstance(body, dict) and isinstance(body.get("id"), int):
            body = {**body, "id": self.renumber(body["id"])}
        if isinstance(body, list):  # mastery records name their attempts
            body = [{**record, "evidence": [self.renumber(i) for i in record["evidence"]]}
                    if isinstance(record, dict) and "evidence" in record else record
                    for record in body]
        headers = tuple((name, response.headers.get(name)) for name in HEADERS)
        cookies = tuple(sorted(c.split("=", 1)[0] for c in response.headers.getlist(
            "Set-Cookie")))
        self.seen.append((step, response.status_code, body, headers, cookies))
        return response

    def renumber(self, attempt_id: int) -> int:
        """Return the attempt's number in the order this client first saw it."""
        return self.ids.setdefault(attempt_id, len(self.ids))


def study_script(study: Study, clock: FakeClock, record: Callable[[str, Any], Any]) -> None:
    """Study for three days: answer right and wrong, retry, misuse keys, explain, rate."""
    for day in range(3):
        started = study.browser.post("/api/sessions", json={"lesson": LESSON_ID,
                                                            "mode": "quiz", "size": 4}).json
        for position in range(4):
            item = study.browser.get(f"/api/sessions/{started['id']}/next").json
            if item["done"]:
                break
            vid = item["question"]["variant_id"]
            clock.advance(minutes=3)
            wrong = day == 2 or (day + position) % 3 == 1  # day 3: mastery lapses
            answer = study.wrong_answer(vid) if wrong else study.right_answer(vid)
            key = f"d{day}p{position}"
            body = {"variant_id": vid, "answer": answer}
            send = lambda b, k: study.browser.post(  # noqa: E731
                "/api/attempts", json=b, headers={"Idempotency-Key": k})
            if position == 0:
                record("unreadable", send({**body, "answer": {"no": "shape"}}, key))
            first = record("answer", send(body, key))
            record("retry", send(body, key))
            record("reused key", send({**body, "answer": study.wrong_answer(vid)}, key))
            record("answered variant", send(body, key + "-again"))
            attempt = first.json["id"]
            if wrong:
                record("explain", study.browser.post(
                    f"/api/attempts/{attempt}/explanation",
                    json={"explanation": "I counted the drafts twice."}))
                record("after reveal", study.browser.get(f"/api/attempts/{attempt}"))
            else:
                record("rate", study.browser.post(f"/api/attempts/{attempt}/rating",
                                                  json={"rating": "easy" if day else "good"}))
        record("mastery", study.browser.get("/api/mastery"))
        clock.advance(days=1, hours=1)
    record("unknown variant", study.browser.post(
        "/api/attempts", json={"variant_id": "no-such-variant", "answer": 1},
        headers={"Idempotency-Key": "stray"}))
    record("no csrf", study.browser.client.post(
        "/api/attempts", json={"variant_id": "x", "answer": 1},
        headers={"Idempotency-Key": "stray-2"}))


def run(app_config: dict[str, Any], connection: Connection, bank: Any, clock: FakeClock,
        hot_path: bool) -> tuple[list[tuple[Any, ...]], dict[str, list[tuple[Any, ...]]], int]:
    """Run the script on a fresh app from the same start; return what was seen and stored,
    and how many answers the hot path itself answered."""
    clock.now = START
    app = create_app(app_config)  # its seeded random source starts afresh
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    hot_answers = 0
    real = study_service.answer_as_browser

    def counted(*args: Any) -> Any:
        nonlocal hot_answers
        result = real(*args)
        hot_answers += result is not None
        return result

    recorder = Recorder()
    with pytest.MonkeyPatch.context() as patch, Session(
            bind=connection, join_transaction_mode="create_savepoint") as db:
        patch.setattr(study_service, "answer_as_browser", counted)
        if not hot_path:
            patch.setattr(attempts_view, "answer_from_cookie", lambda: None)
        study_script(Study(ApiBrowser(app), db, bank), clock, recorder.record)
        # Read before the lookup session closes: its rollback to the savepoint it began
        # with would take the app's later writes on the connection with it.
        stored = {table: [tuple(row) for row in connection.execute(text(sql))]
                  for table, sql in TABLES.items()}
    return recorder.seen, stored, hot_answers


def test_the_hot_path_and_the_general_way_answer_alike(
        app_config: dict[str, Any], connection: Connection, bank: Any, clock: FakeClock
        ) -> None:
    outcomes = []
    for hot_path in (True, False):
        savepoint = connection.begin_nested()
        outcomes.append(run(app_config, connection, bank, clock, hot_path))
        savepoint.rollback()
    (hot_seen, hot_stored, hot_answers), (general_seen, general_stored, general_answers) = (
        outcomes)
    assert hot_answers >= 6 and general_answers == 0  # each way really was taken
    assert [step for step, *_ in hot_seen] == [step for step, *_ in general_seen]
    for hot, general in zip(hot_seen, general_seen, strict=True):
        assert hot == general
    assert hot_stored == general_stored
    # the script did master a question (a record exists once ever mastered), and lapse one
    assert hot_stored["mastery"]
    assert any(record["mastered"] for step, _, body, *_ in hot_seen if step == "mastery"
               for record in body)
    assert not all(row[1] for row in hot_stored["mastery"])
    statuses = {(step, status) for step, status, *_ in hot_seen}
    assert {("answer", 201), ("retry", 201), ("reused key", 422), ("answered variant", 409),
            ("unreadable", 422), ("unknown variant", 404), ("no csrf", 403)} <= statuses


def test_a_plain_answer_takes_two_statements_and_no_session(
        study: Study, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hot path's promise: one read (browser, variant, card, mastery together) and one
    write, with no ORM session opened for the request."""
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    answer = study.wrong_answer(vid)  # a wrong answer never reads the mastery run
    statements: list[str] = []
    real_run = study_service.DriverConnection.run
    monkeypatch.setattr(study_service.DriverConnection, "run",
                        lambda self, statement, params: (statements.append(statement.sql),
                                                         real_run(self, statement, params))[1])
    sessions: list[Any] = []
    real_session = study_service.Context.session
    monkeypatch.setattr(study_service.Context, "session",
                        property(lambda ctx: (sessions.append(1), real_session.fget(ctx))[1]))
    response = study.answer(vid, answer)
    assert response.status_code == 201, response.json
    assert "FROM browser b" in statements[0]  # the browser, found by the answer's read
    assert sessions == []
    if backend == "postgresql":  # then the one data-modifying statement
        assert len(statements) == 2 and statements[1].startswith("WITH seq AS")
    else:  # SQLite writes row by row, under its writer lock: counter, claim, three rows
        assert [sql.split()[0:3] for sql in statements[1:]] == [
            ["UPDATE", "learner", "SET"], ["UPDATE", "served_variant", "SET"],
            ["INSERT", "INTO", "attempt"], ["INSERT", "INTO", "review_card"],
            ["INSERT", "INTO", "review_log"]]
