"""The order kind: put the items in their right order.

A form lists its items in the right order; each variant shows them shuffled (with ``draw``,
only that many of them, kept in their relative order). An answer earns a share of the mark
for each item in its place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from marshmallow import ValidationError, fields, validate, validates_schema

from quizsvc.bank.kinds.base import Kind, VariantSource
from quizsvc.bank.kinds.form import FormFields, first, normalized, position_field
from quizsvc.bank.kinds.options import pick_form, shown
from quizsvc.bank.model import AnswerInput, Grade, QuestionKind, Variant
from quizsvc.bank.parsing import parse_ids, unreadable
from quizsvc.bank.schema import (
    FormsMixin,
    OptionSchema,
    QuestionBaseSchema,
    StrictSchema,
    TextSchema,
    forms_field,
    text,
    unique_option_ids,
)
from quizsvc.errors import N_, Invalid

if TYPE_CHECKING:
    from quizsvc.bank.answer_key import AnswerKey


class OrderFormSchema(StrictSchema):
    """Validate one form of an ordering question: ``items`` are written in the correct order.

    With ``draw``, each variant orders that many of the items (kept in their relative order).
    """

    prompt = fields.Nested(TextSchema, required=True)
    items = fields.List(fields.Nested(OptionSchema), required=True, validate=validate.Length(min=3))
    solution = fields.Nested(TextSchema, required=True)
    draw = fields.Integer(load_default=None, strict=True, validate=validate.Range(min=3))

    @validates_schema
    def check_items(self, data: dict[str, Any], **_: Any) -> None:
        """Require unique item ids and a draw no larger than the items."""
        unique_option_ids(data["items"], "items")
        if data["draw"] is not None and data["draw"] > len(data["items"]):
            raise ValidationError("draws more items than there are", "draw")


class OrderSchema(FormsMixin, QuestionBaseSchema):
    """Validate an ordering question."""

    form_schema = OrderFormSchema
    form_keys = ("prompt", "items", "solution", "draw")
    prompt = fields.Raw()
    items = fields.Raw()
    solution = fields.Raw()
    draw = fields.Raw()
    forms = forms_field(OrderFormSchema)


class Order(Kind):
    """Ask for the items in order; partial credit per item in its place."""

    name = QuestionKind.ORDER
    schema = OrderSchema
    template = "kinds/order.html"
    graded = True
    varied = True

    def variant(self, source: VariantSource) -> Variant:
        """Draw a form (and, with ``draw``, the items it orders) and shuffle the items."""
        rng = source.rng()
        index, form = pick_form(source.spec["forms"], rng)
        items = list(form["items"])
        if form.get("draw"):
            keep = set(rng.sample(range(len(items)), form["draw"]))
            items = [item for i, item in enumerate(items) if i in keep]
        shuffled = list(items)
        # Uniform over every order, the answer's included: leaving the answer out would
        # make the one order never shown the answer, found by serving enough variants.
        rng.shuffle(shuffled)
        return source.variant(
            prompt=text(form["prompt"]),
            params={},
            input=AnswerInput("order", length=len(items), options=shown(shuffled)),
            answer=[item["id"] for item in items],
            solution=text(form["solution"]),
            form=index,
        )

    def grade(self, key: AnswerKey, raw: Any) -> Grade:
        """Grade every item's position (an answer must place each item once)."""
        order = parse_ids(raw, set(key.option_ids))
        if len(order) != len(key.answer):
            raise unreadable(N_("expected all %(count)s items in order"), "order_incomplete",
                             {"count": len(key.answer)})
        per_element = tuple(a == b for a, b in zip(order, key.answer, strict=True))
        return Grade(all(per_element), sum(per_element) / len(per_element),
                     per_element=per_element)

    def read_form(self, shape: AnswerInput, posted: FormFields) -> Any:
        """Turn one position per item (1 = first) into the item ids in that order."""
        option_ids = [option.id for option in shape.options]
        positions: dict[str, int] = {}
        for option_id in option_ids:
            field = position_field(option_id)
            raw = normalized(first(posted, field))
            if not raw.isdigit() or not 1 <= int(raw) <= len(option_ids):
                raise Invalid(field, N_("choose a position from 1 to %(max)s"), "form",
                              reason="position_range", params={"max": len(option_ids)})
            positions[option_id] = int(raw)
        if len(set(positions.values())) != len(positions):
            raise Invalid("answer", N_("give every item a different position"), "form",
                          reason="position_twice")
        return sorted(positions, key=positions.__getitem__)


ORDER = Order()
