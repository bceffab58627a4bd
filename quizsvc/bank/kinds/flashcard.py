"""The flashcard kind: a front to recall from, and a back to compare with.

A flashcard is self-rated: the learner reveals the back and rates how well they recalled it.
It takes no answer, so nothing is graded and nothing it shows becomes mastery.
"""

from __future__ import annotations

from typing import Any

from marshmallow import fields

from quizsvc.bank.kinds.base import Kind, VariantSource
from quizsvc.bank.kinds.form import FormFields
from quizsvc.bank.model import AnswerInput, QuestionKind, Variant
from quizsvc.bank.schema import QuestionBaseSchema, TextSchema, text
from quizsvc.errors import N_, Invalid


class FlashcardSchema(QuestionBaseSchema):
    """Validate a flashcard: a front, a back, self-rated."""

    front = fields.Nested(TextSchema, required=True)
    back = fields.Nested(TextSchema, required=True)


class Flashcard(Kind):
    """Show the front, then the back; the learner rates themselves."""

    name = QuestionKind.FLASHCARD
    schema = FlashcardSchema
    template = "kinds/flashcard.html"
    graded = False

    def variant(self, source: VariantSource) -> Variant:
        """Show the front as the prompt; the back is the solution (every seed the same)."""
        return source.variant(prompt=text(source.spec["front"]), params={},
                              input=AnswerInput("flashcard"), answer=None,
                              solution=text(source.spec["back"]))

    def check_answer(self, answer: Any) -> Any:
        """Take no answer (null, or an empty string from a form): a card is rated, not
        answered."""
        if answer not in (None, ""):
            raise Invalid("answer", N_("a flashcard takes no answer: send null, then rate it"),
                          reason="flashcard_takes_no_answer")
        return None

    def read_form(self, shape: AnswerInput, posted: FormFields) -> Any:
        """Read nothing: the form only asks to reveal the back."""
        return None


FLASHCARD = Flashcard()
