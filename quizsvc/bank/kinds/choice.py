"""The choice kind: pick the one right option.

A choice question is written as one form or several (``forms``), each with its own prompt,
options, answer and solution; with ``draw`` a form's options are a pool, and each variant
shows one of its right statements beside some of its wrong ones. A wrong option may carry the
misconception that picks it, so choosing it names that wrong model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from marshmallow import ValidationError, fields, validate, validates_schema

from quizsvc.bank.kinds.base import Kind, VariantSource, wrong_model
from quizsvc.bank.kinds.form import FormFields, first
from quizsvc.bank.kinds.options import options_variant
from quizsvc.bank.model import AnswerInput, Grade, QuestionKind, Variant
from quizsvc.bank.parsing import parse_choice
from quizsvc.bank.schema import (
    OPTION_ID_PATTERN,
    DrawSchema,
    FormsMixin,
    OptionSchema,
    QuestionBaseSchema,
    StrictSchema,
    TextSchema,
    forms_field,
    unique_option_ids,
)

if TYPE_CHECKING:
    from quizsvc.bank.answer_key import AnswerKey


class ChoiceFormSchema(StrictSchema):
    """Validate one form of a single-answer question: its own prompt, options, answer, solution.

    With ``draw`` (``right`` must be 1), the options are a pool: ``answer`` may list several
    right statements, and each variant shows one of them beside ``draw.wrong`` of the wrong
    ones, so the form asks something new more often than a mere reshuffle would.
    """

    prompt = fields.Nested(TextSchema, required=True)
    options = fields.List(
        fields.Nested(OptionSchema), required=True, validate=validate.Length(min=2)
    )
    answer = fields.Raw(required=True)  # one option id; with draw, a list of the right ones
    solution = fields.Nested(TextSchema, required=True)
    draw = fields.Nested(DrawSchema, load_default=None)

    @validates_schema
    def check_answer(self, data: dict[str, Any], **_: Any) -> None:
        """Require the answer to be options, none tagged as a misconception, and a draw that
        shows exactly one right option."""
        ids = unique_option_ids(data["options"], "options")
        right = right_ids(data["answer"])
        draw = data["draw"]
        if len(right) > 1 and not draw:
            raise ValidationError("several right options need a draw", "answer")
        for answer in right:
            if answer not in ids:
                raise ValidationError(f"{answer!r} is not an option id", "answer")
        for option in data["options"]:
            if option["id"] in right and option["misconception"]:
                raise ValidationError("the correct option cannot carry a misconception", "options")
        if draw and (draw["right"] != 1 or draw["wrong"] > len(ids) - len(right)):
            raise ValidationError("must draw 1 right option and at most the wrong ones", "draw")


def right_ids(answer: Any) -> list[str]:
    """Return a single-answer form's right option ids: its one id, or its pool's list."""
    right = answer if isinstance(answer, list) else [answer]
    if not right or not all(isinstance(item, str) and OPTION_ID_PATTERN.match(item)
                            for item in right):
        raise ValidationError("must be an option id or a list of option ids", "answer")
    if len(set(right)) != len(right):
        raise ValidationError("answer ids must be unique", "answer")
    return right


class ChoiceSchema(FormsMixin, QuestionBaseSchema):
    """Validate a single-answer question (``choice`` or ``anchor``)."""

    form_schema = ChoiceFormSchema
    form_keys = ("prompt", "options", "answer", "solution", "draw")
    prompt = fields.Raw()
    options = fields.Raw()
    answer = fields.Raw()
    solution = fields.Raw()
    draw = fields.Raw()
    forms = forms_field(ChoiceFormSchema)


class Choice(Kind):
    """Ask for one option; it is right or wrong, and a tagged wrong one names its model."""

    name = QuestionKind.CHOICE
    schema = ChoiceSchema
    template = "kinds/choice.html"
    graded = True
    varied = True

    def variant(self, source: VariantSource) -> Variant:
        """Draw a form and the options it shows; the answer is its one right option shown."""
        return options_variant(source, "choice", one_right=True)

    def grade(self, key: AnswerKey, raw: Any) -> Grade:
        """Grade one option id (a one-element list will do)."""
        choice = parse_choice(raw, set(key.option_ids))
        correct = choice == key.answer
        return Grade(correct, 1.0 if correct else 0.0,
                     misconception=None if correct else wrong_model(key, choice))

    def read_form(self, shape: AnswerInput, posted: FormFields) -> Any:
        """Read the ticked radio button's option id."""
        return first(posted, "answer")


CHOICE = Choice()
