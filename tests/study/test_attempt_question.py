"""``answering.attempt_question``: the question an attempt answered, as it was served, for
pages that show the prompt beside the result, and never the answer before it is earned."""

from __future__ import annotations

import dataclasses

import pytest

from quizsvc.errors import NotFound
from quizsvc.study import answering
from quizsvc.study.answering import AttemptView
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.serving import ServedQuestion
from tests.support.fake_bank import LESSON_ID, FakeBank
from tests.support.fake_study import FakeStudy


def answer_first(learner: FakeStudy, right: bool) -> tuple[ServedQuestion, AttemptView]:
    """Serve the first question of a quiz and answer it; return (served, result)."""
    session = learner.start(LESSON_ID, mode="quiz", size=2)
    served = learner.next(session.id).question
    assert served is not None
    vid = served.variant_id
    answer = learner.right_answer(vid) if right else learner.wrong_answer(vid)
    return served, learner.answer(vid, answer)


def test_it_is_the_question_as_served(learner: FakeStudy) -> None:
    served, result = answer_first(learner, right=True)
    learner.clock.advance(minutes=5)
    question = answering.attempt_question(learner.ctx, result.id)
    assert question == served
    assert learner.uow.shapes[-1] == "read"


def test_it_carries_no_answer_even_after_a_wrong_unexplained_answer(learner: FakeStudy
                                                                    ) -> None:
    served, result = answer_first(learner, right=False)
    assert result.reveal is None
    question = answering.attempt_question(learner.ctx, result.id)
    assert {f.name for f in dataclasses.fields(question)} == {
        f.name for f in dataclasses.fields(ServedQuestion)}
    variant = learner.variant(served.variant_id)
    shown = repr(question)
    assert variant.solution.zh not in shown and variant.solution.en not in shown
    assert not any(m.name.zh in shown for m in variant.misconceptions)
    assert str(variant.seed) not in shown


def test_another_learners_attempt_is_not_found(learner: FakeStudy) -> None:
    _, result = answer_first(learner, right=True)
    with pytest.raises(NotFound):
        answering.attempt_question(learner.another("stranger").ctx, result.id)


@pytest.mark.parametrize("attempt_id", [0, -1, 999_999, 2**40])
def test_an_unknown_attempt_is_not_found(learner: FakeStudy, attempt_id: int) -> None:
    with pytest.raises(NotFound):
        answering.attempt_question(learner.ctx, attempt_id)


def test_after_the_bank_changed_there_is_nothing_to_rebuild(learner: FakeStudy) -> None:
    _, result = answer_first(learner, right=True)
    newer = FakeBank(version="fake-2")
    ctx = dataclasses.replace(learner.ctx, bank=newer, index=BankIndex.of(newer))
    assert answering.attempt_question(ctx, result.id) is None
