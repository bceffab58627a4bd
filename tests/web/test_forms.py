"""The no-JavaScript answer forms turned into the API's answer values."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from quizsvc.web.forms import FormError, answer_from_form


@pytest.mark.parametrize(("kind", "length", "fields", "expected"), [
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
    ("text", None, {"answer": "rejected drafts"}, "rejected drafts"),
    ("flashcard", None, {}, None),
])
def test_fields_become_the_value_the_api_takes(kind: str, length: int | None, fields: dict,
                                               expected: object) -> None:
    assert answer_from_form(kind, length, [], MultiDict(fields)) == expected


def test_ticked_boxes_become_a_list_of_option_ids() -> None:
    form = MultiDict([("answer", "a"), ("answer", "c")])
    assert answer_from_form("multi", None, ["a", "b", "c"], form) == ["a", "c"]


def test_positions_become_the_option_ids_in_order() -> None:
    form = MultiDict({"position.a": "3", "position.b": "1", "position.c": "2"})
    assert answer_from_form("order", None, ["a", "b", "c"], form) == ["b", "c", "a"]


@pytest.mark.parametrize(("fields", "field"), [
    ({"position.a": "1", "position.b": "1", "position.c": "2"}, "answer"),
    ({"position.a": "1", "position.b": "4", "position.c": "2"}, "position.b"),
    ({"position.a": "1", "position.b": "2"}, "position.c"),
])
def test_positions_that_are_not_an_order_name_the_field(fields: dict, field: str) -> None:
    with pytest.raises(FormError) as caught:
        answer_from_form("order", None, ["a", "b", "c"], MultiDict(fields))
    assert caught.value.field == field
