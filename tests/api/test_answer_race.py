"""The answer path reads and grades holding no lock, then writes on condition that nothing
changed: an answer that loses the variant to a concurrent one in between records nothing
(409), or returns the winner's result when it is the same request retried; a concurrent change
to the learner's other reviews sends the answer through the locked path.

These tests need real transactions: the app commits to a database of its own (not the test's
rolled-back transaction), and the concurrent request runs in another thread, on its own
connection, between the first request's read and its write. On SQLite too: the answer takes
the one writer lock only for its write, so another answer can get in between.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from quizsvc import create_app
from quizsvc.store.answers import AnswerRepository
from quizsvc.store.database import READ_ONLY, make_engine
from quizsvc.store.models import Attempt, Learner, ReviewLog
from quizsvc.study import answering
from tests.support.browsers import ApiBrowser, Study
from tests.support.databases import committed_database
from tests.support.fake_bank import LESSON_ID


@pytest.fixture
def committed(app_config: dict[str, Any], backend: str, tmp_path: Path
              ) -> Iterator[tuple[Any, Session]]:
    """Yield an app on a fresh database whose commits are real, and a read-only session on it."""
    with committed_database(backend, tmp_path, "quizsvc_race") as url:
        engine = make_engine(url)
        app = create_app({**app_config, "DATABASE_URL": url})
        # The test's own reads must not hold SQLite's writer lock while the app answers.
        with Session(engine.execution_options(**{READ_ONLY: True})) as session:
            yield app, session
        app.extensions["quizsvc.db"].engine.dispose()
        engine.dispose()


@pytest.fixture
def meanwhile(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Run the queued callables in another thread after the next answer's read."""
    real = answering.decide
    pending: list[Any] = []

    def decide(*args: Any) -> Any:
        while pending:
            thread = threading.Thread(target=pending.pop(0))
            thread.start()
            thread.join()
        return real(*args)

    monkeypatch.setattr(answering, "decide", decide)
    return pending


def served_numeric(study: Study) -> str:
    """Serve the fake bank's numeric question and return its variant id."""
    session = study.start(LESSON_ID, mode="quiz", size=1)
    question = study.next(session["id"])["question"]
    assert question["kind"] == "numeric"
    return question["variant_id"]


def attempts_of(db: Session, variant_id: str) -> int:
    """Count the attempts recorded for a variant (reading the latest commit)."""
    db.rollback()
    return db.scalar(select(func.count()).select_from(Attempt)
                     .where(Attempt.variant_id == variant_id))


def test_an_answer_that_loses_the_claim_is_409_and_records_nothing(
        committed: Any, bank: Any, meanwhile: list[Any]) -> None:
    app, db = committed
    study = Study(ApiBrowser(app), db, bank)
    vid = served_numeric(study)
    results: list[Any] = []
    meanwhile.append(lambda: results.append(study.answer(vid, study.right_answer(vid),
                                                         key="winner")))
    loser = study.answer(vid, study.wrong_answer(vid), key="loser")
    assert results[0].status_code == 201 and results[0].json["correct"] is True
    assert loser.status_code == 409
    assert attempts_of(db, vid) == 1
    assert db.scalar(select(func.count()).select_from(ReviewLog)) == 1


def test_a_retry_that_loses_the_claim_to_its_first_send_gets_the_first_result(
        committed: Any, bank: Any, meanwhile: list[Any]) -> None:
    app, db = committed
    study = Study(ApiBrowser(app), db, bank)
    vid = served_numeric(study)
    answer = study.right_answer(vid)
    results: list[Any] = []
    meanwhile.append(lambda: results.append(study.answer(vid, answer, key="same-request")))
    retried = study.answer(vid, answer, key="same-request")
    assert retried.status_code == 201 and retried.headers["Idempotent-Replayed"] == "true"
    assert retried.json == results[0].json
    assert attempts_of(db, vid) == 1


def test_a_concurrent_review_of_the_learner_sends_the_answer_through_the_locked_path(
        committed: Any, bank: Any, meanwhile: list[Any], monkeypatch: pytest.MonkeyPatch
        ) -> None:
    app, db = committed
    study = Study(ApiBrowser(app), db, bank)
    vid = served_numeric(study)
    learner_id = db.scalar(select(Learner.id))

    def bump() -> None:  # what any of the learner's other locked use cases does
        with Session(app.extensions["quizsvc.db"].engine) as other:
            other.execute(Learner.__table__.update().where(Learner.id == learner_id)
                          .values(review_seq=Learner.review_seq + 1))
            other.commit()

    locked: list[int] = []
    real_lock = AnswerRepository.lock_learner

    def lock_learner(self: AnswerRepository, learner: int) -> None:
        locked.append(1)
        real_lock(self, learner)

    monkeypatch.setattr(AnswerRepository, "lock_learner", lock_learner)
    meanwhile.append(bump)
    response = study.answer(vid, study.right_answer(vid))
    assert response.status_code == 201 and response.json["correct"] is True
    assert locked == [1]  # the lock-free write found the snapshot stale and changed nothing
    assert attempts_of(db, vid) == 1
    assert db.scalar(select(Learner.review_seq)) == 3  # bump, lock, the write's own
