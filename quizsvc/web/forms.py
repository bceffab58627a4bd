"""Read the answers and numbers that the no-JavaScript forms post, in the shapes the API takes.

The JSON API receives an answer as one JSON value; an HTML form sends flat fields. The
question's kind reads its own form (``quizsvc.bank.kinds``: each kind's ``read_form``, the
field names of ``quizsvc.bank.kinds.form``) and leaves judging the value to the bank's grader,
so every form is graded as the API grades.
"""

from __future__ import annotations

from typing import Any

from quizsvc.bank.kinds import KINDS
from quizsvc.bank.kinds.form import FormFields, normalized
from quizsvc.bank.model import AnswerInput


def answer_from_form(kind: str, shape: AnswerInput, posted: FormFields) -> Any:
    """Build the API answer value of a question of ``kind`` from its posted fields
    (``errors.Invalid`` naming the field when they cannot make one)."""
    return KINDS[kind].read_form(shape, posted)


def decimal_or_text(raw: Any) -> float | str:
    """Return a typed decimal number ("0.85", "０.８５") as a float, else the text as typed,
    for the use case to refuse by name."""
    text = normalized(raw)
    try:
        value = float(text)
    except ValueError:
        return text
    return value if value == value and abs(value) != float("inf") else text
