"""The no-JavaScript answer forms turned into the API's answer values, by each question's kind."""

from __future__ import annotations

import pytest

from quizsvc.bank.model import AnswerInput, Option, QuestionKind, Text
from quizsvc.errors import Invalid
from quizsvc.web.forms import answer_from_form

OPTIONS = tuple(Option(i, Text(i, i)) for i in ("a", "b", "c"))
SHAPES = {
    "integer": (QuestionKind.NUMERIC, AnswerInput("integer")),
    "choice": (QuestionKind.CHOICE, AnswerInput("choice", options=OPTIONS)),
    "anchor": (QuestionKind.ANCHOR, AnswerInput("choice", options=OPTIONS)),
    "multi": (QuestionKind.MULTI, AnswerInput("multi", options=OPTIONS)),
    "order": (QuestionKind.ORDER, AnswerInput("order", 3, options=OPTIONS)),
    "text": (QuestionKind.EXPLAIN, AnswerInput("text")),
    "flashcard": (QuestionKind.FLASHCARD, AnswerInput("flashcard")),
}


def posted(fields: dict) -> dict[str, list[str]]:
    """Return fields as a form posts them (``request.form.to_dict(flat=False)``)."""
    return {name: value if isinstance(value, list) else [value] for name, value in fields.items()}


def read(shape: str, fields: dict, length: int | None = None) -> object:
    if shape == "vector":
        return answer_from_form(QuestionKind.NUMERIC, AnswerInput("vector", length),
                                posted(fields))
    kind, answer_input = SHAPES[shape]
    return answer_from_form(kind, answer_input, posted(fields))


@pytest.mark.parametrize(("shape", "length", "fields", "expected"), [
    ("integer", None, {"answer": " 12 "}, 12),
    ("integer", None, {"answer": "twelve"}, "twelve"),
    ("vector", 3, {"answer.0": "1", "answer.1": "-6", "answer.2": ""}, [1, -6, ""]),
    # Full-width digits and signs from a Chinese input method read as the numbers they are.
    ("vector", 2, {"answer.0": "１２", "answer.1": "－3"}, [12, -3]),
    ("integer", None, {"answer": "＋７"}, 7),
    # A whole list pasted into the first box spreads over the boxes...
    ("vector", 3, {"answer.0": "1，6，1", "answer.1": "", "answer.2": ""}, [1, 6, 1]),
    ("vector", 3, {"answer.0": "1, 6 ,1"}, [1, 6, 1]),
    ("vector", 3, {"answer.0": "1、6、1"}, [1, 6, 1]),
    # ...but only a list of the right length, and only when the other boxes are empty.
    ("vector", 3, {"answer.0": "1,6", "answer.1": "", "answer.2": ""}, ["1,6", "", ""]),
    ("vector", 2, {"answer.0": "1,6", "answer.1": "2"}, ["1,6", 2]),
    ("choice", None, {"answer": "running"}, "running"),
    ("anchor", None, {"answer": "running"}, "running"),
    ("choice", None, {}, ""),
    ("text", None, {"answer": "rejected drafts"}, "rejected drafts"),
    ("flashcard", None, {}, None),
    ("multi", None, {}, []),
])
def test_fields_become_the_value_the_api_takes(shape: str, length: int | None, fields: dict,
                                               expected: object) -> None:
    assert read(shape, fields, length) == expected


def test_ticked_boxes_become_a_list_of_option_ids() -> None:
    assert read("multi", {"answer": ["a", "c"]}) == ["a", "c"]


def test_positions_become_the_option_ids_in_order() -> None:
    fields = {"position.a": "3", "position.b": "1", "position.c": "2"}
    assert read("order", fields) == ["b", "c", "a"]


@pytest.mark.parametrize(("fields", "field"), [
    ({"position.a": "1", "position.b": "1", "position.c": "2"}, "answer"),
    ({"position.a": "1", "position.b": "4", "position.c": "2"}, "position.b"),
    ({"position.a": "1", "position.b": "2"}, "position.c"),
])
def test_positions_that_are_not_an_order_name_the_field(fields: dict, field: str) -> None:
    with pytest.raises(Invalid) as caught:
        read("order", fields)
    assert caught.value.field == field
