"""Read the answers that the no-JavaScript question forms post, in the shapes the API takes.

The JSON API receives an answer as one JSON value; an HTML form sends flat fields. These
functions turn the fields into that value (a string, a list of strings, a list of option ids)
and leave judging it to the bank's grader, so every form is graded as the API grades.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from werkzeug.datastructures import MultiDict

from quizsvc.errors import N_, filled

FieldSource = MultiDict[str, str]  # what a posted form offers (``request.form``)


class FormError(ValueError):
    """Report a form field that cannot be turned into an answer, naming the field.

    ``template`` is one English sentence marked ``N_`` where it is raised and ``params``
    fills its ``%(name)s`` holes (``message`` is the filled sentence, ``str(error)``
    ``"field: message"``); ``reason`` is a stable word for the page's catalog.
    """

    def __init__(self, field_name: str, template: str, *, reason: str,
                 params: dict[str, Any] | None = None) -> None:
        self.field = field_name
        self.template = template
        self.reason = reason
        self.params = dict(params or {})
        self.message = filled(template, self.params)
        super().__init__(f"{field_name}: {self.message}")


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
        return [number_or_text(value) for value in vector_values(length or 0, form)]
    if input_type == "integer":
        return number_or_text(form.get("answer", ""))
    if input_type == "multi":
        return [str(value) for value in form.getlist("answer")]
    if input_type == "order":
        return order_from_positions(option_ids, form)
    if input_type == "flashcard":
        return None
    return str(form.get("answer", ""))


# A list pasted into the first box of a vector answer: "1,6,1", "1，6，1", "1 6 1", "1、6、1".
LIST_SEPARATORS = re.compile(r"[\s,;、]+")


def vector_values(length: int, form: FieldSource) -> list[str]:
    """Read a vector answer's boxes; a whole list pasted into the first box (the others left
    empty) spreads over them, as the page's script does while the learner pastes."""
    values = [normalized(form.get(vector_field(i), "")) for i in range(length)]
    if length > 1 and not any(values[1:]):
        parts = [part for part in LIST_SEPARATORS.split(values[0]) if part]
        if len(parts) == length:
            return parts
    return values


def normalized(raw: Any) -> str:
    """Return typed text with full-width digits, signs and punctuation made ASCII (NFKC), so
    that "１２" or "－3" from a Chinese input method reads as 12 or -3."""
    return unicodedata.normalize("NFKC", str(raw if raw is not None else "")).strip()


def number_or_text(raw: Any) -> int | str:
    """Return a typed whole number as an int (as a script would send it), else the text.

    Text that is not a number is passed on as typed, for the grader to refuse by name.
    """
    text = normalized(raw)
    digits = text[1:] if text[:1] in "+-" else text
    if digits.isdigit() and digits.isascii() and len(digits) <= 18:
        return int(text)
    return text


def decimal_or_text(raw: Any) -> float | str:
    """Return a typed decimal number ("0.85", "０.８５") as a float, else the text as typed,
    for the use case to refuse by name."""
    text = normalized(raw)
    try:
        value = float(text)
    except ValueError:
        return text
    return value if value == value and abs(value) != float("inf") else text


def order_from_positions(option_ids: Sequence[str], form: FieldSource) -> list[str]:
    """Turn one position per option (1 = first) into the option ids in that order."""
    positions: dict[str, int] = {}
    for option_id in option_ids:
        raw = normalized(form.get(position_field(option_id), ""))
        if not raw.isdigit() or not 1 <= int(raw) <= len(option_ids):
            raise FormError(position_field(option_id),
                            N_("choose a position from 1 to %(max)s"), reason="position_range",
                            params={"max": len(option_ids)})
        positions[option_id] = int(raw)
    if len(set(positions.values())) != len(positions):
        raise FormError("answer", N_("give every item a different position"),
                        reason="position_twice")
    return sorted(positions, key=positions.__getitem__)
