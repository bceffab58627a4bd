"""Read the answers and numbers that the no-JavaScript forms post, in the shapes the API takes.

The JSON API receives an answer as one JSON value; an HTML form sends flat fields. The
question's kind reads its own form (``quizsvc.bank.kinds``: each kind's ``read_form``, the
field names of ``quizsvc.bank.kinds.form``) and leaves judging the value to the bank's grader,
so every form is graded as the API grades. (The other forms' numbers are read by their
argument schemas, ``quizsvc.http.arguments``.)
"""

from __future__ import annotations

from typing import Any

from quizsvc.bank.kinds import KINDS
from quizsvc.bank.kinds.form import FormFields
from quizsvc.bank.model import AnswerInput


def answer_from_form(kind: str, shape: AnswerInput, posted: FormFields) -> Any:
    """Build the API answer value of a question of ``kind`` from its posted fields
    (``errors.Invalid`` naming the field when they cannot make one)."""
    return KINDS[kind].read_form(shape, posted)

