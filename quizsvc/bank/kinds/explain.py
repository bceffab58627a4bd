"""The explain kind: answer in your own words, then compare with the model answer.

An explanation is stored, never auto-graded: the learner reads the model answer (the
solution) and rates themselves, so nothing it answers becomes mastery.
"""

from __future__ import annotations

from typing import Any

from marshmallow import fields

from quizsvc.bank.kinds.base import Kind, VariantSource
from quizsvc.bank.kinds.form import FormFields, first
from quizsvc.bank.model import AnswerInput, QuestionKind, Variant
from quizsvc.bank.schema import QuestionBaseSchema, TextSchema, text
from quizsvc.errors import N_, Invalid

MAX_TEXT_ANSWER = 4000  # characters of a free-text answer


class ExplainSchema(QuestionBaseSchema):
    """Validate a free-text question; ``solution`` is the model answer shown afterwards."""

    prompt = fields.Nested(TextSchema, required=True)
    solution = fields.Nested(TextSchema, required=True)


class Explain(Kind):
    """Ask for an explanation in the learner's words; store it, show the model answer."""

    name = QuestionKind.EXPLAIN
    schema = ExplainSchema
    template = "kinds/explain.html"
    graded = False

    def variant(self, source: VariantSource) -> Variant:
        """Show the prompt; the model answer is the solution (every seed the same)."""
        return source.variant(prompt=text(source.spec["prompt"]), params={},
                              input=AnswerInput("text"), answer=None,
                              solution=text(source.spec["solution"]))

    def check_answer(self, answer: Any) -> Any:
        """Take non-empty text of at most ``MAX_TEXT_ANSWER`` characters, stored as sent."""
        if not isinstance(answer, str) or not answer.strip():
            raise Invalid("answer", N_("expected your explanation as non-empty text"),
                          reason="text_required")
        if len(answer) > MAX_TEXT_ANSWER:
            raise Invalid("answer", N_("at most %(max)s characters"), reason="too_long",
                          params={"max": MAX_TEXT_ANSWER})
        return answer

    def read_form(self, shape: AnswerInput, posted: FormFields) -> Any:
        """Read the text as typed."""
        return first(posted, "answer")


EXPLAIN = Explain()
