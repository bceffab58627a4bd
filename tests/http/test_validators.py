"""Our range, length and choice validators refuse in marshmallow's own words, as a ``Said``."""

from __future__ import annotations

from typing import Any

import pytest
from marshmallow import ValidationError, validate

from quizsvc.http.validators import Length, OneOf, Range, Said


def refusal(validator: Any, value: Any) -> str:
    """Return the message a validator refuses ``value`` with."""
    with pytest.raises(ValidationError) as caught:
        validator(value)
    message: str = caught.value.messages[0]
    return message


@pytest.mark.parametrize(("ours", "theirs", "value"), [
    (Range(min=1), validate.Range(min=1), 0),
    (Range(max=4), validate.Range(max=4), 5),
    (Range(min=1, max=4), validate.Range(min=1, max=4), 0),
    (Range(min=1, max=4), validate.Range(min=1, max=4), 5),
    (Range(min=0.7, max=0.97), validate.Range(min=0.7, max=0.97), 0.98),
    (Length(min=1), validate.Length(min=1), ""),
    (Length(max=3), validate.Length(max=3), "abcd"),
    (Length(min=1, max=3), validate.Length(min=1, max=3), ""),
    (Length(min=1, max=3), validate.Length(min=1, max=3), "abcd"),
    (Length(equal=2), validate.Length(equal=2), "abc"),
    (OneOf(("again", "good")), validate.OneOf(("again", "good")), "meh"),
], ids=repr)
def test_a_refusal_is_marshmallows_sentence_with_its_template(ours, theirs, value):
    said = refusal(ours, value)
    assert said == refusal(theirs, value)
    assert isinstance(said, Said) and said.template % said.params == said


@pytest.mark.parametrize("validator", [
    Range(min=1, error="too small: {input}"), Length(max=1, error="too long: {input}"),
    OneOf(("a",), error="not {input}")], ids=repr)
def test_a_validator_given_its_own_error_keeps_it_plain(validator):
    said = refusal(validator, "bb" if isinstance(validator, Length | OneOf) else 0)
    assert not isinstance(said, Said) and said.endswith(("0", "bb"))


def test_an_accepted_value_passes_through():
    assert Range(min=1, max=4)(2) == 2
    assert Length(max=3)("abc") == "abc"
    assert OneOf(("good",))("good") == "good"
