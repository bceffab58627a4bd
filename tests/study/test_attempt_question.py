"""``answering.attempt_question``: the question an attempt answered, as it was served, for
pages that show the prompt beside the result, and never the answer before it is earned."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from quizsvc.errors import NotFound
from quizsvc.study import answering
from tests.support.browsers import ApiBrowser, Study
from tests.support.context import context_of
from tests.support.fake_bank import LESSON_ID, FakeBank

SERVED_FIELDS = {"variant_id", "question_id", "kind", "lesson", "section", "title", "prompt",
                 "params", "input", "served_at"}


def answer_first(study: Study, right: bool) -> tuple[dict, dict]:
    """Serve the first question of a quiz and answer it; return (served JSON, result JSON)."""
    session = study.start(LESSON_ID, mode="quiz", size=2)
    served = study.next(session["id"])["question"]
    vid = served["variant_id"]
    result = study.answer(vid, study.right_answer(vid) if right else study.wrong_answer(vid))
    assert result.status_code == 201, result.json
    return served, result.json


def test_it_is_the_question_as_served(study: Study, browser: ApiBrowser, db: Any,
                                      bank: Any, clock: Any) -> None:
    served, result = answer_first(study, right=True)
    clock.advance(minutes=5)
    question = answering.attempt_question(context_of(browser, db, bank, clock), result["id"])
    assert question is not None
    assert (question.variant_id, question.question_id, question.kind) == (
        served["variant_id"], served["question_id"], served["kind"])
    assert question.prompt.zh == served["prompt"]["zh"]
    assert question.params == served["params"]
    assert question.input.type == served["input"]["type"]
    assert question.served_at.isoformat() == served["served_at"]


def test_it_carries_no_answer_even_after_a_wrong_unexplained_answer(
        study: Study, browser: ApiBrowser, db: Any, bank: Any, clock: Any) -> None:
    served, result = answer_first(study, right=False)
    assert result["reveal"] is None
    question = answering.attempt_question(context_of(browser, db, bank, clock), result["id"])
    assert {f.name for f in dataclasses.fields(question)} == SERVED_FIELDS
    variant = study.variant(served["variant_id"])
    shown = repr(question)
    assert variant.solution.zh not in shown and variant.solution.en not in shown
    assert not any(m.name.zh in shown for m in variant.misconceptions)
    assert str(variant.seed) not in shown


def test_another_learners_attempt_is_not_found(study: Study, new_browser: Any, db: Any,
                                               bank: Any, clock: Any) -> None:
    _, result = answer_first(study, right=True)
    stranger = context_of(new_browser(), db, bank, clock)
    with pytest.raises(NotFound):
        answering.attempt_question(stranger, result["id"])


@pytest.mark.parametrize("attempt_id", [0, -1, 999_999, 2**40])
def test_an_unknown_attempt_is_not_found(browser: ApiBrowser, db: Any, bank: Any, clock: Any,
                                         attempt_id: int) -> None:
    with pytest.raises(NotFound):
        answering.attempt_question(context_of(browser, db, bank, clock), attempt_id)


def test_after_the_bank_changed_there_is_nothing_to_rebuild(study: Study, browser: ApiBrowser,
                                                            db: Any, clock: Any) -> None:
    _, result = answer_first(study, right=True)
    newer = FakeBank(version="fake-2")
    assert answering.attempt_question(context_of(browser, db, newer, clock), result["id"]) is None
