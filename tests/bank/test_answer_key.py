"""Answer keys: a variant's sealed answer grades and reveals exactly as the variant does."""

from __future__ import annotations

import json
from typing import Any

import pytest

from quizsvc.bank import AnswerKey, BankError, load_bank
from quizsvc.bank.answer_key import FORMAT_VERSION
from quizsvc.bank.catalog import DEFAULT_BANK_DIR
from quizsvc.bank.grading import grade, grade_key
from quizsvc.bank.kinds import GRADED
from quizsvc.bank.model import (
    AnswerInput,
    Grade,
    Misconception,
    Option,
    QuestionKind,
    Text,
    Variant,
)
from quizsvc.errors import Invalid

QUESTION_IDS = sorted(load_bank(DEFAULT_BANK_DIR).questions)
# Small seeds like the other bank tests, and one 48-bit seed like those the service draws
# (distinctive enough to look for in the key's text).
BIG_SEED = 2**47 + 12_345
SEEDS = (0, 7, 11, BIG_SEED)
NOT_NEEDED = {"seed", "scenario", "prompt", "params", "answer_ref", "extra", "labels",
              "question_id"}
MAX_KEY_BYTES = 8192


def sealed(variant: Variant) -> AnswerKey:
    """Return the variant's key as the service will read it back: through its JSON."""
    return AnswerKey.from_json(AnswerKey.from_variant(variant).to_json())


def answers_to_try(variant: Variant) -> list[tuple[str, Any]]:
    """List (what it is, raw answer) pairs covering every way grading can go for a variant."""
    ids = [option.id for option in variant.input.options]
    tries: list[tuple[str, Any]] = []
    if variant.kind is QuestionKind.NUMERIC and variant.input.type == "vector":
        right = list(variant.answer)
        tries += [
            ("right", right), ("right as a tuple", tuple(right)),
            ("right as '1, 6, 1'", ", ".join(map(str, right))),
            ("right as '1 6 1'", " ".join(map(str, right))),
            ("right as '[1,6,1]'", json.dumps(right)),
            ("right as strings", [str(value) for value in right]),
            ("wrong", [value + 1 for value in right]),
            ("unparseable: too short", right[:-1]), ("unparseable: text", "x"),
            ("unparseable: null", None), ("unparseable: booleans", [True] * len(right)),
        ]
        tries += [(f"{m.id} as text", ", ".join(map(str, m.answer)))
                  for m in variant.misconceptions]
    elif variant.kind is QuestionKind.NUMERIC:
        tries += [("right", variant.answer), ("right as text", str(variant.answer)),
                  ("wrong", variant.answer + 1), ("unparseable: text", "twelve"),
                  ("unparseable: null", None)]
    elif variant.kind in (QuestionKind.CHOICE, QuestionKind.ANCHOR):
        tries += [("right", variant.answer), ("right in a list", [variant.answer]),
                  ("right padded", f" {variant.answer} ")]
        tries += [(f"option {option}", option) for option in ids]
        tries += [("unparseable: unknown", "no-such"), ("unparseable: null", None),
                  ("unparseable: two", ids[:2])]
    elif variant.kind is QuestionKind.MULTI:
        tries += [("right", variant.answer), ("right as text", ",".join(variant.answer)),
                  ("none", []), ("one", ids[:1]), ("all", ids), ("all reversed", ids[::-1]),
                  ("unparseable: twice", [ids[0], ids[0]]), ("unparseable: unknown", "no-such"),
                  ("unparseable: null", None)]
    elif variant.kind is QuestionKind.ORDER:
        tries += [("right", variant.answer), ("right as text", ",".join(variant.answer)),
                  ("reversed", variant.answer[::-1]), ("as shown", ids),
                  ("unparseable: one short", variant.answer[:-1]),
                  ("unparseable: unknown", "no-such"), ("unparseable: null", None)]
    elif variant.kind is QuestionKind.FLASHCARD:
        tries += [("again", "again"), ("hard", "hard"), ("Good", "Good"), ("4", 4),
                  ("unparseable: 0", 0), ("unparseable: meh", "meh"), ("unparseable: null", None)]
    else:
        tries += [("text", "because"), ("unparseable: blank", "  "), ("unparseable: 42", 42),
                  ("unparseable: too long", "x" * 20_001)]
    # Labelled by position: two options may name the same wrong model.
    tries += [(f"wrong model {i}", m.answer) for i, m in enumerate(variant.misconceptions)]
    return tries


def outcome(grader: Any, *args: Any) -> Grade | tuple[str, str, dict[str, Any]]:
    """Return what grading gives: the grade, or the refusal's field, reason and params."""
    try:
        result: Grade = grader(*args)
    except Invalid as refused:
        return refused.field, refused.reason, refused.params
    return result


def keys_in(data: Any) -> set[str]:
    """Collect every object key anywhere in parsed JSON."""
    if isinstance(data, dict):
        return set(data).union(*(keys_in(value) for value in data.values()))
    if isinstance(data, list):
        return set().union(*(keys_in(item) for item in data))
    return set()


@pytest.mark.parametrize("question_id", QUESTION_IDS)
def test_a_stored_key_grades_every_answer_exactly_as_the_variant_does(bank, question_id):
    for seed in SEEDS:
        variant = bank.variant(question_id, seed)
        key = sealed(variant)
        for label, raw in answers_to_try(variant):
            assert (outcome(bank.grade_key, key, raw)
                    == outcome(bank.grade, variant, raw)), (seed, label)


@pytest.mark.parametrize("question_id", QUESTION_IDS)
def test_the_answers_tried_cover_right_wrong_misconceptions_and_refusals(bank, question_id):
    variant = bank.variant(question_id, 7)
    key = sealed(variant)
    results = {label: outcome(grade_key, key, raw) for label, raw in answers_to_try(variant)}
    unreadable = [label for label in results if label.startswith("unparseable")]
    assert unreadable and all(isinstance(results[label], tuple) for label in unreadable)
    if variant.kind in GRADED:
        grades = {label: g for label, g in results.items() if isinstance(g, Grade)}
        assert grades["right"].correct
        assert any(not g.correct for g in grades.values())
        for index, wrong in enumerate(variant.misconceptions):
            assert grades[f"wrong model {index}"].misconception == wrong
    if variant.input.type == "vector":
        assert grades["right as '1, 6, 1'"].correct


@pytest.mark.parametrize("question_id", QUESTION_IDS)
def test_a_key_read_back_holds_what_the_reveal_shows(bank, question_id):
    variant = bank.variant(question_id, 11)
    key = sealed(variant)
    assert key == AnswerKey.from_variant(variant)
    assert (key.answer, type(key.answer)) == (variant.answer, type(variant.answer))
    assert key.solution == variant.solution
    assert key.misconceptions == variant.misconceptions
    assert key.lesson_link == variant.lesson_link
    assert key.to_json() == AnswerKey.from_variant(variant).to_json()


@pytest.mark.parametrize("question_id", QUESTION_IDS)
def test_a_key_never_holds_the_seed_the_scenario_or_what_is_shown_before_answering(
        bank, question_id):
    variant = bank.variant(question_id, BIG_SEED)
    text = AnswerKey.from_variant(variant).to_json()
    assert str(BIG_SEED) not in text
    assert keys_in(json.loads(text)).isdisjoint(NOT_NEEDED)
    if variant.scenario is not None:
        assert json.dumps(variant.scenario, separators=(",", ":")) not in text


def test_keys_stay_small_over_the_whole_bank(bank):
    sizes = {(qid, seed): len(AnswerKey.from_variant(bank.variant(qid, seed)).to_json().encode())
             for qid in QUESTION_IDS for seed in SEEDS}
    largest = max(sizes, key=sizes.__getitem__)
    print(f"largest answer key: {sizes[largest]} bytes ({largest[0]}, seed {largest[1]})")
    assert sizes[largest] <= MAX_KEY_BYTES, largest


def test_the_bank_refuses_a_key_of_another_bank_version(bank):
    key = AnswerKey.from_variant(bank.variant("choice-running-first", 0))
    stale = AnswerKey(**{**key.__dict__, "bank_version": "0000"})
    with pytest.raises(BankError, match="another bank version"):
        bank.grade_key(stale, key.answer)


# Shapes the real bank does not have today (an integer answer, a tuple-valued wrong model):
# the round trip must keep their verdicts too.
def make(kind: QuestionKind, answer: Any, input_: AnswerInput, wrong=()) -> Variant:
    return Variant(
        question_id="q", seed=5, bank_version="v", kind=kind, prompt=Text("题", "Q"),
        params={}, input=input_, answer=answer, solution=Text("解", "S"), misconceptions=wrong,
    )


TUPLE_WRONG = Misconception("as-tuple", Text("元组", "Tuple"), (1, 3, 7))
LIST_WRONG = Misconception("as-list", Text("列表", "List"), [2, 2, 2])
VECTOR = make(QuestionKind.NUMERIC, (1, 5, 5), AnswerInput("vector", 3, ("A", "B", "C")),
              (TUPLE_WRONG, LIST_WRONG))
INTEGER = make(QuestionKind.NUMERIC, 12, AnswerInput("integer"),
               (Misconception("off-by-one", Text("差一", "Off by one"), 13),))
MULTI = make(QuestionKind.MULTI, ("a", "b"),
             AnswerInput("multi", options=tuple(Option(i, Text(i, i)) for i in "abc")),
             (Misconception("picks-c", Text("选 c", "Picks c"), "c"),))


SHAPES = {"vector": VECTOR, "integer": INTEGER, "multi": MULTI}


@pytest.mark.parametrize(("shape", "raw"), [
    ("vector", [1, 5, 5]), ("vector", "1, 5, 5"), ("vector", [1, 3, 7]), ("vector", "1 3 7"),
    ("vector", [2, 2, 2]), ("vector", "2,2,2"), ("vector", [1, 5]), ("vector", "x"),
    ("integer", 12), ("integer", "13"), ("integer", 14), ("integer", "twelve"),
    ("multi", ["a", "b"]), ("multi", "c"), ("multi", ["a"]), ("multi", ["z"]),
], ids=repr)
def test_tuples_and_integers_in_answers_keep_their_verdict_through_json(shape, raw):
    variant = SHAPES[shape]
    key = sealed(variant)
    assert key == AnswerKey.from_variant(variant)
    assert type(key.answer) is type(variant.answer)
    assert type(key.misconceptions[0].answer) is type(variant.misconceptions[0].answer)
    assert outcome(grade_key, key, raw) == outcome(grade, variant, raw)


def test_a_tuple_wrong_model_never_matches_a_typed_vector_before_or_after_sealing():
    assert grade(VECTOR, [1, 3, 7]).misconception is None
    assert grade_key(sealed(VECTOR), [1, 3, 7]).misconception is None
    assert grade_key(sealed(VECTOR), [2, 2, 2]).misconception == LIST_WRONG


@pytest.mark.parametrize("answer", [{1, 2}, {"a": 1}, float("nan"), b"12", [1, object()]])
def test_an_answer_that_would_not_come_back_from_json_is_refused_when_sealing(answer):
    key = AnswerKey.from_variant(make(QuestionKind.NUMERIC, answer, AnswerInput("integer")))
    with pytest.raises(ValueError, match="answer key"):
        key.to_json()


def valid_body() -> dict[str, Any]:
    """Return a parsed valid key, to break one field at a time."""
    return json.loads(AnswerKey.from_variant(VECTOR).to_json())


@pytest.mark.parametrize("version", [0, 2, FORMAT_VERSION + 1, "1", True, None, 1.0])
def test_a_key_of_an_unknown_format_version_is_refused(version):
    body = valid_body()
    body["v"] = version
    with pytest.raises(ValueError, match="unknown format version"):
        AnswerKey.from_json(json.dumps(body))


def test_a_key_without_a_format_version_is_refused():
    body = valid_body()
    del body["v"]
    with pytest.raises(ValueError, match="unknown format version"):
        AnswerKey.from_json(json.dumps(body))


def broken(defect: str) -> Any:
    """Return the valid key's JSON with one named defect (or a named bad input)."""
    whole = AnswerKey.from_variant(VECTOR).to_json()
    plain = {"empty text": "", "not JSON": "not json", "a list": "[]", "an empty object": "{}",
             "null": "null", "only a version": '{"v":1}', "truncated": whole[:-1],
             "None": None, "a number": 12}
    if defect in plain:
        return plain[defect]
    body = valid_body()
    if defect == "extra field":
        body["seed"] = 5
    elif defect == "missing field":
        del body["solution"]
    elif defect == "unknown kind":
        body["kind"] = "essay"
    elif defect == "length is true":
        body["input"]["length"] = True
    elif defect == "option id not text":
        body["input"]["options"] = [1]
    elif defect == "unknown answer tag":
        body["answer"] = {"set": [1, 5, 5]}
    elif defect == "solution without en":
        body["solution"] = {"zh": "解"}
    elif defect == "misconception not an object":
        body["misconceptions"] = [["as-tuple"]]
    elif defect == "NaN answer":
        return json.dumps(body).replace('"answer": {"tuple": [1, 5, 5]}', '"answer": NaN')
    return json.dumps(body)


@pytest.mark.parametrize("defect", [
    "empty text", "not JSON", "a list", "an empty object", "null", "only a version", "truncated",
    "None", "a number", "extra field", "missing field", "unknown kind", "length is true",
    "option id not text", "unknown answer tag", "solution without en",
    "misconception not an object", "NaN answer",
])
def test_malformed_key_text_is_a_value_error_so_the_caller_can_rebuild(defect):
    text = broken(defect)
    assert text != AnswerKey.from_variant(VECTOR).to_json()
    with pytest.raises(ValueError, match="answer key"):
        AnswerKey.from_json(text)
