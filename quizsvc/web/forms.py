"""Read the answers that the no-JavaScript question forms post, in the shapes the API takes.

The JSON API receives an answer as one JSON value; an HTML form sends flat fields. These
functions turn the fields into that value (a string, a list of strings, a list of option ids)
and leave judging it to the bank's grader, so a form and a script are graded the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from werkzeug.datastructures import MultiDict

FieldSource = MultiDict[str, str]  # what a posted form offers (``request.form``)


class FormError(ValueError):
    """Report a form field that cannot be turned into an answer, naming the field."""

    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(f"{field_name}: {reason}")
        self.field = field_name
        self.reason = reason


def vector_field(index: int) -> str:
    """Return the form field name of a vector answer's element ``index``."""
    return f"answer.{index}"


def position_field(option_id: str) -> str:
    """Return the form field name of an ordering question's position for ``option_id``."""
    return f"position.{option_id}"


def answer_from_form(input_type: str, length: int | None, option_ids: Sequence[str],
                     form: FieldSource) -> Any:
    """Build the API answer value for an answer shape from the posted fields."""
    if input_type == "vector":
        return [number_or_text(form.get(vector_field(i), "")) for i in range(length or 0)]
    if input_type == "integer":
        return number_or_text(form.get("answer", ""))
    if input_type == "multi":
        return [str(value) for value in form.getlist("answer")]
    if input_type == "order":
        return order_from_positions(option_ids, form)
    if input_type == "flashcard":
        return None
    return str(form.get("answer", ""))


def number_or_text(raw: Any) -> int | str:
    """Return a typed whole number as an int (as a script would send it), else the text.

    Text that is not a number is passed on as typed, for the grader to refuse by name.
    """
    text = str(raw if raw is not None else "").strip()
    digits = text[1:] if text[:1] in "+-" else text
    if digits.isdigit() and digits.isascii() and len(digits) <= 18:
        return int(text)
    return text


def order_from_positions(option_ids: Sequence[str], form: FieldSource) -> list[str]:
    """Turn one position per option (1 = first) into the option ids in that order."""
    positions: dict[str, int] = {}
    for option_id in option_ids:
        raw = str(form.get(position_field(option_id), "")).strip()
        if not raw.isdigit() or not 1 <= int(raw) <= len(option_ids):
            raise FormError(position_field(option_id),
                            f"choose a position from 1 to {len(option_ids)}")
        positions[option_id] = int(raw)
    if len(set(positions.values())) != len(positions):
        raise FormError("answer", "give every item a different position")
    return sorted(positions, key=positions.__getitem__)
