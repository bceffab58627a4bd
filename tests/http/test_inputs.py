"""The strict JSON check: a list of plain values (numbers, or text) is checked at once, and
nothing that must be refused hides in it."""

from __future__ import annotations

import pytest

from quizsvc.errors import Invalid
from quizsvc.http.inputs import MAX_JSON_DEPTH, check_json_value, parse_json_body


def refusal(value: object) -> Invalid:
    """Return what ``check_json_value`` raises for ``value``."""
    with pytest.raises(Invalid) as raised:
        check_json_value(value)
    return raised.value


def test_lists_of_plain_values_pass():
    check_json_value({"requests": [{"prompt_token_ids": [7] * 65_536, "flags": [True, None]}],
                      "labels": ["ab", "é", "\U0001f600"] * 1000, "weights": [0.5, 1, True]})


@pytest.mark.parametrize(("items", "field", "reason"), [
    ([1, 2, "a\x00b", 4], "prompt_token_ids.2", "unstorable_text"),
    ([1, "\ud800", 3], "prompt_token_ids.1", "unstorable_text"),
    ([1, 2, float("inf")], "prompt_token_ids.2", "number_too_large"),
    ([1, {"k\x00": 1}], "prompt_token_ids.1.k\x00", "unstorable_key"),
    (["a", "b", "c\x00"], "prompt_token_ids.2", "unstorable_text"),
    (["\ud83d", "\ude00"], "prompt_token_ids.1", "unstorable_text"),  # a pair split in two
    ([0.5, 1, float("-inf")], "prompt_token_ids.2", "number_too_large"),
])
def test_text_and_numbers_to_refuse_among_integers_are_found_by_their_place(items, field,
                                                                            reason):
    error = refusal({"prompt_token_ids": items})
    assert (error.field, error.reason) == (field, reason)


def test_a_list_of_integers_too_deep_is_still_too_deep():
    value: object = [1, 2, 3]
    for _ in range(MAX_JSON_DEPTH):
        value = [value]
    assert refusal(value).reason == "too_deep"
    check_json_value(value[0])  # type: ignore[index]  # one level less is within the limit


def test_a_body_of_many_token_ids_parses_to_what_was_sent():
    body = b'{"requests": [{"id": "r0", "prompt_token_ids": [' + b",".join([b"7"] * 4096) + b"]}]}"
    assert parse_json_body(body) == {"requests": [{"id": "r0", "prompt_token_ids": [7] * 4096}]}
