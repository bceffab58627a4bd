"""The multi kind: tick every right option, and only those.

Written like a choice question (one form or several, a pool with ``draw``), with a set of
right options. An answer earns a share of the mark for each right option ticked, less one for
each wrong one, and names the wrong model of a tagged wrong option it ticked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from marshmallow import ValidationError, fields, validate, validates_schema

from quizsvc.bank.kinds.base import Kind, VariantSource
from quizsvc.bank.kinds.form import FormFields
from quizsvc.bank.kinds.options import options_variant
from quizsvc.bank.model import AnswerInput, Grade, QuestionKind, Variant
from quizsvc.bank.parsing import parse_ids
from quizsvc.bank.schema import (
    NON_EMPTY,
    OPTION_ID,
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


class MultiFormSchema(StrictSchema):
    """Validate one form of a multiple-answer question: ``answer`` is the set of right ids.

    With ``draw``, the options are a pool: each variant shows ``draw.right`` of the right
    options and ``draw.wrong`` of the wrong ones, and is graded on the ones it shows.
    """

    prompt = fields.Nested(TextSchema, required=True)
    options = fields.List(
        fields.Nested(OptionSchema), required=True, validate=validate.Length(min=3)
    )
    answer = fields.List(fields.String(validate=OPTION_ID), required=True, validate=NON_EMPTY)
    solution = fields.Nested(TextSchema, required=True)
    draw = fields.Nested(DrawSchema, load_default=None)

    @validates_schema
    def check_answer(self, data: dict[str, Any], **_: Any) -> None:
        """Require every answer id to be an option, and at least one wrong option."""
        ids = unique_option_ids(data["options"], "options")
        unknown = sorted(set(data["answer"]) - ids)
        if unknown:
            raise ValidationError(f"{unknown} are not option ids", "answer")
        if len(set(data["answer"])) != len(data["answer"]):
            raise ValidationError("answer ids must be unique", "answer")
        if set(data["answer"]) == ids:
            raise ValidationError("at least one option must be wrong", "answer")
        draw = data["draw"]
        if draw and (draw["right"] > len(data["answer"])
                     or draw["wrong"] > len(ids) - len(data["answer"])):
            raise ValidationError("draws more options than the pool holds", "draw")


class MultiSchema(FormsMixin, QuestionBaseSchema):
    """Validate a multiple-answer question."""

    form_schema = MultiFormSchema
    form_keys = ("prompt", "options", "answer", "solution", "draw")
    prompt = fields.Raw()
    options = fields.Raw()
    answer = fields.Raw()
    solution = fields.Raw()
    draw = fields.Raw()
    forms = forms_field(MultiFormSchema)


class Multi(Kind):
    """Ask for every right option; partial credit for right picks minus wrong ones."""

    name = QuestionKind.MULTI
    schema = MultiSchema
    template = "kinds/multi.html"
    graded = True
    varied = True

    def variant(self, source: VariantSource) -> Variant:
        """Draw a form and the options it shows; the answer is its right options shown."""
        return options_variant(source, "multi", one_right=False)

    def grade(self, key: AnswerKey, raw: Any) -> Grade:
        """Grade a set of option ids: max(0, (hits - false picks) / right options)."""
        chosen = set(parse_ids(raw, set(key.option_ids)))
        expected = set(key.answer)
        hits = len(chosen & expected)
        false_picks = len(chosen - expected)
        correct = chosen == expected
        wrong = None if correct else next(
            (m for m in key.misconceptions if m.answer in chosen), None)
        return Grade(correct, max(0.0, (hits - false_picks) / len(expected)),
                     misconception=wrong)

    def read_form(self, shape: AnswerInput, posted: FormFields) -> Any:
        """Read the ticked boxes' option ids."""
        return [str(value) for value in posted.get("answer", [])]


MULTI = Multi()
