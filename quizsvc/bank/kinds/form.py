"""Name the fields a question page's form posts, and read what a learner typed in them.

The JSON API takes an answer as one JSON value; a form without JavaScript posts flat fields.
Each kind's ``read_form`` turns its fields into that value with these helpers and leaves
judging it to its grader, so a form is graded exactly as the API grades. The page templates
name their inputs with ``vector_field`` and ``position_field``, so the form and the reading of
it cannot disagree. Pure functions of the posted fields: no web framework here.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

# What a posted form offers: every field's values (``request.form.to_dict(flat=False)``).
FormFields = Mapping[str, list[str]]

# A list pasted into the first box of a vector answer: "1,6,1", "1，6，1", "1 6 1", "1、6、1".
LIST_SEPARATORS = re.compile(r"[\s,;、]+")


def vector_field(index: int) -> str:
    """Return the form field name of a vector answer's element ``index``."""
    return f"answer.{index}"


def position_field(option_id: str) -> str:
    """Return the form field name of an ordering question's position for ``option_id``."""
    return f"position.{option_id}"


def first(fields: FormFields, name: str) -> str:
    """Return the first value posted for ``name`` ("" when the form did not post it)."""
    return (fields.get(name) or [""])[0]


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


def vector_values(length: int, fields: FormFields) -> list[str]:
    """Read a vector answer's boxes; a whole list pasted into the first box (the others left
    empty) spreads over them, as the page's script does while the learner pastes."""
    values = [normalized(first(fields, vector_field(i))) for i in range(length)]
    if length > 1 and not any(values[1:]):
        parts = [part for part in LIST_SEPARATORS.split(values[0]) if part]
        if len(parts) == length:
            return parts
    return values
