"""Marshmallow schemas for the hand-written bank files, and how their errors are reported.

Every file under ``question_bank/`` is validated here before anything is built from it, so a
typo in a YAML file fails with the file's path, the field and the reason (``BankError``)
rather than with a traceback at the first learner who draws that question. Unknown keys are
errors, as everywhere in quizsvc.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import (
    RAISE,
    Schema,
    ValidationError,
    fields,
    post_load,
    validate,
    validates_schema,
)

from quizsvc.bank.errors import BankError
from quizsvc.bank.model import GRADED, QuestionKind
from quizsvc.bank.stated import SETTING_KEYS

SLUG = validate.Regexp(r"^[a-z0-9]+(-[a-z0-9]+)*$", error="must be a lowercase-hyphenated slug")
PARAM_NAME = validate.Regexp(r"^[a-z_][a-z0-9_]*$", error="must be a lowercase identifier")
OPTION_ID_PATTERN = re.compile(r"^[a-z0-9_-]+$")
OPTION_ID = validate.Regexp(OPTION_ID_PATTERN, error="must be lowercase letters, digits, - or _")
NON_EMPTY = validate.Length(min=1)


class StrictSchema(Schema):
    """Reject unknown keys: a misspelt field must not be silently ignored."""

    class Meta:
        unknown = RAISE


class TextSchema(StrictSchema):
    """Validate a piece of text in Chinese (primary) and English; both are required."""

    zh = fields.String(required=True, validate=NON_EMPTY)
    en = fields.String(required=True, validate=NON_EMPTY)


class AnchorSchema(StrictSchema):
    """Validate a source anchor: a vllm 0.33.0 file, a function and a 1-based line range."""

    file = fields.String(
        required=True,
        validate=validate.Regexp(r"^vllm/[\w/]+\.py$", error="must be a vllm/... .py path"),
    )
    function = fields.String(required=True, validate=NON_EMPTY)
    lines = fields.List(
        fields.Integer(strict=True, validate=validate.Range(min=1)),
        required=True,
        validate=validate.Length(equal=2),
    )

    @validates_schema
    def check_range(self, data: dict[str, Any], **_: Any) -> None:
        """Require the range to be ordered (first line <= last line)."""
        first, last = data["lines"]
        if first > last:
            raise ValidationError("first line must not exceed the last", "lines")


class SectionSchema(StrictSchema):
    """Validate one lesson section (the unit learners self-assess on)."""

    id = fields.String(required=True, validate=SLUG)
    title = fields.Nested(TextSchema, required=True)
    heading = fields.Nested(TextSchema, load_default=None)


class MisconceptionSchema(StrictSchema):
    """Validate one named wrong model from the lesson's catalogue."""

    id = fields.String(required=True, validate=SLUG)
    # The rule of rules.yaml this wrong model breaks: the reveal links to where it is taught.
    breaks = fields.String(required=True, validate=SLUG)
    name = fields.Nested(TextSchema, required=True)
    rule = fields.Nested(TextSchema, required=True)


def _text_files(required: bool) -> fields.Dict:
    """Return the field naming one markdown file per language (``{zh: x.zh.md, en: ...}``)."""
    options: dict[str, Any] = {"required": True} if required else {"load_default": None}
    return fields.Dict(
        keys=fields.String(validate=validate.OneOf(["zh", "en"])),
        values=fields.String(validate=validate.Regexp(r"^[\w.-]+\.md$")),
        **options,
    )


class LessonSchema(StrictSchema):
    """Validate ``lesson.yaml``: identity, sections, the text files and the misconceptions.

    ``reference`` names the quick-reference page's text files (every formula and limit on one
    page), optional for a lesson that has none.
    """

    id = fields.String(required=True, validate=SLUG)
    title = fields.Nested(TextSchema, required=True)
    text = _text_files(required=True)
    reference = _text_files(required=False)
    sections = fields.List(fields.Nested(SectionSchema), required=True, validate=NON_EMPTY)
    misconceptions = fields.List(fields.Nested(MisconceptionSchema), load_default=list)

    @validates_schema
    def check_unique(self, data: dict[str, Any], **_: Any) -> None:
        """Require unique section and misconception ids and a Chinese text file."""
        if "zh" not in data["text"]:
            raise ValidationError("the Chinese text (zh) is required", "text")
        for key in ("sections", "misconceptions"):
            _no_duplicates([item["id"] for item in data[key]], key)


class RuleSchema(StrictSchema):
    """Validate one rule of ``rules.yaml``: its id, its title and the section that teaches it."""

    id = fields.String(required=True, validate=SLUG)
    title = fields.Nested(TextSchema, required=True)
    section = fields.String(required=True, validate=SLUG)


class RulesFileSchema(StrictSchema):
    """Validate ``rules.yaml``: a ``rules`` list with unique ids."""

    rules = fields.List(fields.Nested(RuleSchema), required=True, validate=NON_EMPTY)

    @validates_schema
    def check_unique(self, data: dict[str, Any], **_: Any) -> None:
        """Require unique rule ids."""
        _no_duplicates([rule["id"] for rule in data["rules"]], "rules")


class GlossaryTermSchema(StrictSchema):
    """Validate one glossary term (the field names are a contract with the deck export)."""

    id = fields.String(required=True, validate=SLUG)
    term = fields.String(required=True, validate=NON_EMPTY)
    name = fields.Nested(TextSchema, required=True)
    definition = fields.Nested(TextSchema, required=True)
    rule = fields.String(required=True, validate=SLUG)
    flashcard = fields.String(load_default=None, validate=SLUG)


class GlossaryFileSchema(StrictSchema):
    """Validate ``glossary.yaml``: a ``terms`` list with unique ids and unique terms."""

    terms = fields.List(fields.Nested(GlossaryTermSchema), required=True, validate=NON_EMPTY)

    @validates_schema
    def check_unique(self, data: dict[str, Any], **_: Any) -> None:
        """Require unique ids and terms."""
        _no_duplicates([term["id"] for term in data["terms"]], "terms")
        _no_duplicates([term["term"] for term in data["terms"]], "terms")


class ExampleSchema(StrictSchema):
    """Validate one worked example: a ledger scenario, the step it shows and how to show it.

    ``rows`` are the request ids the table lists (default: every request in the step);
    ``columns`` the table's columns; ``view: fields`` shows the step's ``SchedulerOutput``
    fields instead of one row per request; ``simulator`` the simulator page's settings that
    build the same state, when its form can express it (else the page loads the scenario).
    """

    id = fields.String(required=True, validate=SLUG)
    rule = fields.String(required=True, validate=SLUG)
    step = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    setting = fields.Nested(TextSchema, required=True)
    rows = fields.List(fields.String(validate=NON_EMPTY), load_default=list)
    columns = fields.List(fields.String(validate=NON_EMPTY), load_default=list)
    simulator = fields.Dict(keys=fields.String(), values=fields.Raw(), load_default=None)
    view = fields.String(load_default="requests",
                         validate=validate.OneOf(["requests", "fields"]))
    scenario = fields.Dict(required=True)


class LocalScenarioSchema(StrictSchema):
    """Validate a question's own scenario: its numbers fill ``{{name.who.field}}`` in texts."""

    step = fields.Integer(required=True, strict=True, validate=validate.Range(min=0))
    scenario = fields.Dict(required=True)


def _no_duplicates(ids: list[str], field_name: str) -> None:
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValidationError(f"duplicate ids {duplicates}", field_name)




class QuestionBaseSchema(StrictSchema):
    """Validate the fields every question has.

    ``rules`` name the rules the question tests, the first one the rule its reveal links to;
    every graded question must name at least one. ``scenarios`` are ledger scenarios whose
    replayed numbers the question's texts quote.
    """

    id = fields.String(required=True, validate=SLUG)
    kind = fields.String(required=True, validate=validate.OneOf([k.value for k in QuestionKind]))
    section = fields.String(required=True, validate=SLUG)
    tags = fields.List(fields.String(validate=SLUG), required=True, validate=NON_EMPTY)
    anchors = fields.List(fields.Nested(AnchorSchema), required=True, validate=NON_EMPTY)
    title = fields.Nested(TextSchema, required=True)
    rules = fields.List(fields.String(validate=SLUG), load_default=list)
    scenarios = fields.Dict(
        keys=fields.String(validate=SLUG), values=fields.Nested(LocalScenarioSchema),
        load_default=dict,
    )

    @validates_schema
    def check_rules(self, data: dict[str, Any], **_: Any) -> None:
        """Require graded questions to name their rules, each once."""
        if QuestionKind(data["kind"]) in GRADED and not data["rules"]:
            raise ValidationError("a graded question must name the rules it tests", "rules")
        if len(set(data["rules"])) != len(data["rules"]):
            raise ValidationError("a rule is listed twice", "rules")


class OptionSchema(StrictSchema):
    """Validate one option; ``misconception`` names the wrong model that picks it."""

    id = fields.String(required=True, validate=OPTION_ID)
    text = fields.Nested(TextSchema, required=True)
    misconception = fields.String(load_default=None, validate=SLUG)


def _unique_option_ids(options: list[dict[str, Any]], field_name: str) -> set[str]:
    ids = [option["id"] for option in options]
    if len(set(ids)) != len(ids):
        raise ValidationError("option ids must be unique", field_name)
    return set(ids)


class DrawSchema(StrictSchema):
    """Validate how many right and wrong options a form draws from its pool of options."""

    right = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    wrong = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))


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
        ids = _unique_option_ids(data["options"], "options")
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
        ids = _unique_option_ids(data["options"], "options")
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
        _unique_option_ids(data["items"], "items")
        if data["draw"] is not None and data["draw"] > len(data["items"]):
            raise ValidationError("draws more items than there are", "draw")


def _forms_field(form: type[Schema]) -> fields.List[Any]:
    return fields.List(fields.Nested(form), load_default=None, validate=NON_EMPTY)


class FormsMixin:
    """Accept either one form written at the top level or a ``forms`` list, never both.

    Loading always yields ``forms`` (a list of validated forms), so the bank draws every kind
    the same way: one form per seed, graded from that form's own answer.
    """

    form_schema: type[Schema]
    form_keys: tuple[str, ...]

    @validates_schema
    def check_forms(self, data: dict[str, Any], **_: Any) -> None:
        """Require exactly one way of writing the forms."""
        top = [key for key in self.form_keys if key in data]
        if data.get("forms") and top:
            raise ValidationError(f"give either forms or {', '.join(top)}", "forms")
        if not data.get("forms") and not top:
            raise ValidationError("give the question's prompt, or its forms", "forms")

    @post_load
    def gather_forms(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        """Move a top-level form into ``forms`` after validating it as a form.

        ``forms_written`` remembers which way the file was written, so that later errors name
        the field as the author wrote it (``options.1`` rather than ``forms.0.options.1``).
        """
        data["forms_written"] = bool(data.get("forms"))
        if not data.get("forms"):
            single = {key: data.pop(key) for key in self.form_keys if key in data}
            try:
                data["forms"] = [self.form_schema().load(single)]
            except ValidationError as error:
                raise ValidationError(error.messages) from None
        return data


class ChoiceSchema(FormsMixin, QuestionBaseSchema):
    """Validate a single-answer question (``choice`` or ``anchor``)."""

    form_schema = ChoiceFormSchema
    form_keys = ("prompt", "options", "answer", "solution", "draw")
    prompt = fields.Raw()
    options = fields.Raw()
    answer = fields.Raw()
    solution = fields.Raw()
    draw = fields.Raw()
    forms = _forms_field(ChoiceFormSchema)


class MultiSchema(FormsMixin, QuestionBaseSchema):
    """Validate a multiple-answer question."""

    form_schema = MultiFormSchema
    form_keys = ("prompt", "options", "answer", "solution", "draw")
    prompt = fields.Raw()
    options = fields.Raw()
    answer = fields.Raw()
    solution = fields.Raw()
    draw = fields.Raw()
    forms = _forms_field(MultiFormSchema)


class OrderSchema(FormsMixin, QuestionBaseSchema):
    """Validate an ordering question."""

    form_schema = OrderFormSchema
    form_keys = ("prompt", "items", "solution", "draw")
    prompt = fields.Raw()
    items = fields.Raw()
    solution = fields.Raw()
    draw = fields.Raw()
    forms = _forms_field(OrderFormSchema)


class FlashcardSchema(QuestionBaseSchema):
    """Validate a flashcard: a front, a back, self-rated."""

    front = fields.Nested(TextSchema, required=True)
    back = fields.Nested(TextSchema, required=True)


class ExplainSchema(QuestionBaseSchema):
    """Validate a free-text question; ``solution`` is the model answer shown afterwards."""

    prompt = fields.Nested(TextSchema, required=True)
    solution = fields.Nested(TextSchema, required=True)


class ParamSchema(StrictSchema):
    """Validate one declared parameter: an inclusive integer range or a list of choices."""

    min = fields.Integer(strict=True)
    max = fields.Integer(strict=True)
    choices = fields.List(fields.Raw(), validate=NON_EMPTY)

    @validates_schema
    def check_shape(self, data: dict[str, Any], **_: Any) -> None:
        """Require exactly one of ``min``/``max`` (both) or ``choices``."""
        has_range = "min" in data or "max" in data
        if has_range == ("choices" in data):
            raise ValidationError("give either min and max, or choices", "choices")
        if has_range:
            if "min" not in data or "max" not in data:
                raise ValidationError("a range needs both min and max", "max")
            if data["min"] > data["max"]:
                raise ValidationError("min must not exceed max", "min")
        else:
            for choice in data["choices"]:
                if isinstance(choice, bool) or not isinstance(choice, int | str):
                    raise ValidationError("choices must be integers or strings", "choices")


class NumericSchema(QuestionBaseSchema):
    """Validate a numeric template: declared parameters, a generator module, a prompt."""

    prompt = fields.Nested(TextSchema, required=True)
    params = fields.Dict(
        keys=fields.String(validate=PARAM_NAME),
        values=fields.Nested(ParamSchema),
        required=True,
        validate=NON_EMPTY,
    )
    generator = fields.String(
        load_default="generator.py", validate=validate.Regexp(r"^[a-z_][a-z0-9_]*\.py$")
    )
    misconceptions = fields.List(fields.String(validate=SLUG), load_default=list)
    solution = fields.Nested(TextSchema, load_default=None)
    # The scenario settings the prompt names; bank check proves the others cannot bind.
    states = fields.List(fields.String(validate=validate.OneOf(SETTING_KEYS)), required=True)


QUESTION_SCHEMAS: dict[QuestionKind, type[QuestionBaseSchema]] = {
    QuestionKind.NUMERIC: NumericSchema,
    QuestionKind.CHOICE: ChoiceSchema,
    QuestionKind.ANCHOR: ChoiceSchema,
    QuestionKind.MULTI: MultiSchema,
    QuestionKind.ORDER: OrderSchema,
    QuestionKind.FLASHCARD: FlashcardSchema,
    QuestionKind.EXPLAIN: ExplainSchema,
}

PLACEHOLDER = re.compile(r"{([a-zA-Z_][a-zA-Z0-9_]*)}")


def first_error(messages: Any, prefix: str = "") -> tuple[str, str]:
    """Flatten marshmallow's nested error messages to the first ``(field path, reason)``.

    Marshmallow reports errors as nested dicts keyed by field name (and list index); a
    person fixing a YAML file wants one dotted path such as ``options.2.text.en``.
    """
    if isinstance(messages, dict):
        for key in sorted(messages, key=str):
            name = f"{prefix}.{key}" if prefix else str(key)
            if key == "_schema":
                name = prefix or "(file)"
            return first_error(messages[key], name)
    if isinstance(messages, list) and messages:
        return first_error(messages[0], prefix)
    return (prefix or "(file)", str(messages))


def load_with(schema: Schema, data: Any, path: str) -> dict[str, Any]:
    """Validate ``data`` with ``schema``, turning the first error into a ``BankError``."""
    if not isinstance(data, dict):
        raise BankError(path, "(file)", "must be a mapping")
    try:
        loaded: dict[str, Any] = schema.load(data)
        return loaded
    except ValidationError as error:
        field_name, reason = first_error(error.messages)
        raise BankError(path, field_name, reason) from None


def load_question(data: Any, path: str) -> dict[str, Any]:
    """Validate one question file, choosing the schema by its ``kind``."""
    if not isinstance(data, dict):
        raise BankError(path, "(file)", "must be a mapping")
    kind = data.get("kind")
    try:
        schema_class = QUESTION_SCHEMAS[QuestionKind(str(kind))]
    except (ValueError, KeyError):
        choices = ", ".join(k.value for k in QuestionKind)
        raise BankError(path, "kind", f"must be one of: {choices}") from None
    return load_with(schema_class(), data, path)
