"""Grading: exact integers, per-element vectors, option ids; unreadable input is refused
(``errors.Invalid`` on ``answer``), never graded wrong.

Self-rated kinds are never graded: their kind checks the answer's shape and it is stored."""

from __future__ import annotations

import pytest

from quizsvc.bank import BankError
from quizsvc.bank.grading import grade
from quizsvc.bank.kinds import GRADED, KINDS
from quizsvc.bank.kinds.explain import MAX_TEXT_ANSWER
from quizsvc.bank.model import (
    AnswerInput,
    Misconception,
    Option,
    QuestionKind,
    Text,
    Variant,
)
from quizsvc.errors import Invalid

WRONG = Misconception("waiting-before-running", Text("先 waiting", "Waiting first"), [1, 3, 7])


def refusal(variant: Variant, raw) -> Invalid:
    """Return the refusal of an answer that cannot be read (failing if it is graded)."""
    with pytest.raises(Invalid) as caught:
        grade(variant, raw)
    assert caught.value.field == "answer"
    return caught.value


def make(kind: QuestionKind, answer, input_: AnswerInput, wrong=()) -> Variant:
    return Variant(
        question_id="q", seed=0, bank_version="v", kind=kind, prompt=Text("题", "Q"),
        params={}, input=input_, answer=answer, solution=Text("解", "S"), misconceptions=wrong,
    )


VECTOR = make(QuestionKind.NUMERIC, [1, 5, 5], AnswerInput("vector", 3, ("A", "B", "C")), (WRONG,))
INTEGER = make(QuestionKind.NUMERIC, 12, AnswerInput("integer"))
OPTIONS = tuple(Option(i, Text(i, i)) for i in ("a", "b", "c", "d"))
CHOICE = make(QuestionKind.CHOICE, "a", AnswerInput("choice", options=OPTIONS),
              (Misconception("m", Text("m", "m"), "c"),))
MULTI = make(QuestionKind.MULTI, ["a", "b"], AnswerInput("multi", options=OPTIONS))
ORDER = make(QuestionKind.ORDER, ["a", "b", "c", "d"], AnswerInput("order", 4, options=OPTIONS))
CARD = make(QuestionKind.FLASHCARD, None, AnswerInput("flashcard"))
EXPLAIN = make(QuestionKind.EXPLAIN, None, AnswerInput("text"))


@pytest.mark.parametrize(("raw", "correct"), [
    (12, True), ("12", True), (" 12 ", True), ("+12", True), (12.0, True),
    (13, False), ("-12", False), (0, False),
])
def test_an_integer_answer_is_graded_exactly(raw, correct):
    result = grade(INTEGER, raw)
    assert result.correct is correct
    assert result.score == (1.0 if correct else 0.0)


@pytest.mark.parametrize("raw", [True, None, "twelve", "12.5", 12.5, "1 2", [12], {"n": 12}, ""])
def test_an_unreadable_integer_is_refused_not_graded_wrong(raw):
    assert refusal(INTEGER, raw).reason in {"not_integer", "empty"}


@pytest.mark.parametrize(("raw", "per_element", "score"), [
    ([1, 5, 5], (True, True, True), 1.0),
    ("1, 5, 5", (True, True, True), 1.0),
    ("[1,5,5]", (True, True, True), 1.0),
    ("1 5 5", (True, True, True), 1.0),
    ("1，5，5", (True, True, True), 1.0),
    ([1, 6, 5], (True, False, True), 2 / 3),
    ([0, 0, 0], (False, False, False), 0.0),
])
def test_a_vector_is_graded_per_element_with_partial_credit(raw, per_element, score):
    result = grade(VECTOR, raw)
    assert result.per_element == per_element
    assert result.score == pytest.approx(score)
    assert result.correct is all(per_element)


@pytest.mark.parametrize(("raw", "reason"), [
    ([1, 5], "expected 3 integers, got 2"),
    ("1,5,5,5", "expected 3 integers, got 4"),
    ([1, "x", 5], "element 2"),
    ("[1, 5", "list of integers"),
    (7, "list of integers"),
    ([1, True, 5], "element 2"),
])
def test_a_malformed_vector_is_refused(raw, reason):
    assert reason in str(refusal(VECTOR, raw))


def test_a_vector_matching_a_wrong_model_names_it():
    result = grade(VECTOR, [1, 3, 7])
    assert result.correct is False
    assert result.misconception == WRONG


def test_a_right_vector_never_names_a_misconception():
    assert grade(VECTOR, [1, 5, 5]).misconception is None


@pytest.mark.parametrize(("raw", "correct", "misconception"), [
    ("a", True, None), (["a"], True, None), (" a ", True, None),
    ("b", False, None), ("c", False, "m"),
])
def test_a_choice_is_graded_by_option_id(raw, correct, misconception):
    result = grade(CHOICE, raw)
    assert result.correct is correct
    assert (result.misconception.id if result.misconception else None) == misconception


@pytest.mark.parametrize("raw", ["z", 1, None, ["a", "b"], ""])
def test_an_unknown_option_is_refused(raw):
    assert refusal(CHOICE, raw).reason in {"unknown_option", "one_option"}


@pytest.mark.parametrize(("raw", "correct", "score"), [
    (["a", "b"], True, 1.0), ("b,a", True, 1.0), (["a"], False, 0.5),
    (["a", "b", "c"], False, 0.5), (["c", "d"], False, 0.0), ([], False, 0.0),
])
def test_a_multi_answer_gets_partial_credit_for_right_picks_minus_wrong_ones(raw, correct, score):
    result = grade(MULTI, raw)
    assert result.correct is correct
    assert result.score == pytest.approx(score)


@pytest.mark.parametrize(("raw", "reason"), [
    (["a", "a"], "listed twice"), (["a", "q"], "unknown option"), ("[a", "list of option ids"),
])
def test_a_malformed_multi_answer_is_refused(raw, reason):
    assert reason in str(refusal(MULTI, raw))


def test_an_order_is_graded_by_position():
    assert grade(ORDER, ["a", "b", "c", "d"]).correct is True
    swapped = grade(ORDER, ["b", "a", "c", "d"])
    assert swapped.correct is False
    assert swapped.per_element == (False, False, True, True)
    assert swapped.score == 0.5


@pytest.mark.parametrize("raw", [["a", "b", "c"], ["a", "b", "c", "c"], ["a", "b", "c", "x"]])
def test_an_order_that_is_not_a_permutation_is_refused(raw):
    assert refusal(ORDER, raw).reason in {"order_incomplete", "option_twice", "unknown_option"}


@pytest.mark.parametrize("variant", [CARD, EXPLAIN], ids=["flashcard", "explain"])
def test_a_self_rated_kind_is_never_graded(variant):
    for raw in ("good", 3, "C rolls back by the rejected drafts", None):
        assert refusal(variant, raw).reason == "not_graded"


@pytest.mark.parametrize(("kind", "answer", "stored"), [
    (QuestionKind.FLASHCARD, None, None),
    (QuestionKind.FLASHCARD, "", None),
    (QuestionKind.EXPLAIN, "C rolls back by the rejected drafts",
     "C rolls back by the rejected drafts"),
    (QuestionKind.EXPLAIN, "x" * MAX_TEXT_ANSWER, "x" * MAX_TEXT_ANSWER),
])
def test_a_self_rated_answer_is_checked_and_stored_as_sent(kind, answer, stored):
    assert KINDS[kind].check_answer(answer) == stored


@pytest.mark.parametrize(("kind", "answer", "reason"), [
    (QuestionKind.FLASHCARD, "good", "flashcard_takes_no_answer"),
    (QuestionKind.FLASHCARD, 3, "flashcard_takes_no_answer"),
    (QuestionKind.EXPLAIN, "   ", "text_required"),
    (QuestionKind.EXPLAIN, 42, "text_required"),
    (QuestionKind.EXPLAIN, None, "text_required"),
    (QuestionKind.EXPLAIN, "x" * (MAX_TEXT_ANSWER + 1), "too_long"),
])
def test_a_self_rated_answer_of_the_wrong_shape_is_refused_on_the_answer(kind, answer, reason):
    with pytest.raises(Invalid) as caught:
        KINDS[kind].check_answer(answer)
    assert (caught.value.field, caught.value.reason) == ("answer", reason)


@pytest.mark.parametrize("kind", sorted(GRADED))
def test_a_graded_kind_never_stores_an_answer_unread(kind):
    with pytest.raises(TypeError):
        KINDS[kind].check_answer("a")


def test_the_bank_refuses_to_grade_a_variant_of_another_version(bank):
    variant = bank.variant("choice-running-first", 0)
    stale = Variant(**{**variant.__dict__, "bank_version": "0000"})
    with pytest.raises(BankError, match="another bank version"):
        bank.grade(stale, "running-then-waiting")


def test_real_numeric_variants_grade_their_answer_and_their_wrong_models(bank):
    for question in bank.questions.values():
        if question.kind is not QuestionKind.NUMERIC:
            continue
        variant = bank.variant(question.id, 7)
        assert bank.grade(variant, variant.answer).correct
        for wrong in variant.misconceptions:
            result = bank.grade(variant, wrong.answer)
            assert not result.correct
            assert result.misconception.id == wrong.id
