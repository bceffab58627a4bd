"""The answer path reads and grades before it claims the variant: an answer that loses the
claim to a concurrent one in between records nothing (409), or returns the winner's result
when it is the same request retried."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc.api.services import study as study_service
from quizsvc.store.models import Attempt, ReviewLog
from tests.api.support import Study
from tests.fake_bank import LESSON_ID


def served_numeric(study: Study) -> str:
    """Serve the fake bank's numeric question and return its variant id."""
    session = study.start(LESSON_ID, mode="quiz", size=1)
    question = study.next(session["id"])["question"]
    assert question["kind"] == "numeric"
    return question["variant_id"]


@pytest.fixture
def answered_meanwhile(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Make the next grading first send ``(variant_id, answer, key)`` as a concurrent request
    (after the answer path's lock-free read, before its write)."""
    real = study_service.decide_answer
    pending: list[tuple[Study, str, Any, str]] = []
    results: list[Any] = []

    def decide_answer(*args: Any) -> Any:
        if pending:
            study, variant_id, answer, key = pending.pop()
            results.append(study.answer(variant_id, answer, key=key))
        return real(*args)

    monkeypatch.setattr(study_service, "decide_answer", decide_answer)
    return pending, results


def test_an_answer_that_loses_the_claim_is_409_and_records_nothing(study: Study, db: Any,
                                                                   answered_meanwhile: Any
                                                                   ) -> None:
    pending, results = answered_meanwhile
    vid = served_numeric(study)
    pending.append((study, vid, study.right_answer(vid), "winner"))
    loser = study.answer(vid, study.wrong_answer(vid), key="loser")
    assert results[0].status_code == 201 and results[0].json["correct"] is True
    assert loser.status_code == 409
    assert db.scalar(select(func.count()).select_from(Attempt)
                     .where(Attempt.variant_id == vid)) == 1
    assert db.scalar(select(func.count()).select_from(ReviewLog)) == 1


def test_a_retry_that_loses_the_claim_to_its_first_send_gets_the_first_result(
        study: Study, db: Any, answered_meanwhile: Any) -> None:
    pending, results = answered_meanwhile
    vid = served_numeric(study)
    answer = study.right_answer(vid)
    pending.append((study, vid, answer, "same-request"))
    retried = study.answer(vid, answer, key="same-request")
    assert retried.status_code == 201 and retried.headers["Idempotent-Replayed"] == "true"
    assert retried.json == results[0].json
    assert db.scalar(select(func.count()).select_from(Attempt)
                     .where(Attempt.variant_id == vid)) == 1
