"""Marshmallow schemas for the hand-written bank files, and how their errors are reported.

Every file under ``question_bank/`` is validated here before anything is built from it, so a
typo in a YAML file fails with the file's path, the field and the reason (``BankError``)
rather than with a traceback at the first learner who draws that question. Unknown keys are
errors, as everywhere in quizsvc.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

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
from quizsvc.bank.model import Text

if TYPE_CHECKING:
    from quizsvc.bank.kinds.base import Kind

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


def text(data: Mapping[str, str]) -> Text:
    """Build a ``Text`` from a validated ``{zh, en}`` mapping."""
    return Text(zh=data["zh"], en=data["en"])


def _no_duplicates(ids: list[str], field_name: str) -> None:
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValidationError(f"duplicate ids {duplicates}", field_name)


class QuestionBaseSchema(StrictSchema):
    """Validate the fields every question has.

    ``rules`` name the rules the question tests, the first one the rule its reveal links to;
    every graded question must name at least one (``load_question`` holds it to that).
    ``scenarios`` are ledger scenarios whose replayed numbers the question's texts quote.
    """

    id = fields.String(required=True, validate=SLUG)
    kind = fields.String(required=True)  # ``load_question`` chose the schema by it
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
        """Require each rule to be named once."""
        if len(set(data["rules"])) != len(data["rules"]):
            raise ValidationError("a rule is listed twice", "rules")


class OptionSchema(StrictSchema):
    """Validate one option; ``misconception`` names the wrong model that picks it."""

    id = fields.String(required=True, validate=OPTION_ID)
    text = fields.Nested(TextSchema, required=True)
    misconception = fields.String(load_default=None, validate=SLUG)


def unique_option_ids(options: list[dict[str, Any]], field_name: str) -> set[str]:
    """Return the ids of ``options``, refusing a repeated one."""
    ids = [option["id"] for option in options]
    if len(set(ids)) != len(ids):
        raise ValidationError("option ids must be unique", field_name)
    return set(ids)


class DrawSchema(StrictSchema):
    """Validate how many right and wrong options a form draws from its pool of options."""

    right = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))
    wrong = fields.Integer(required=True, strict=True, validate=validate.Range(min=1))


def forms_field(form: type[Schema]) -> fields.List[Any]:
    """Return the ``forms`` field of a question written as several forms of ``form``."""
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


def load_question(data: Any, path: str, kinds: Mapping[str, Kind]) -> tuple[Kind, dict[str, Any]]:
    """Validate one question file with the schema of its ``kind`` (looked up in ``kinds``);
    return the kind and the validated file."""
    if not isinstance(data, dict):
        raise BankError(path, "(file)", "must be a mapping")
    kind = kinds.get(str(data.get("kind")))
    if kind is None:
        raise BankError(path, "kind", f"must be one of: {', '.join(kinds)}")
    spec = load_with(kind.schema(), data, path)
    if kind.graded and not spec["rules"]:
        raise BankError(path, "rules", "a graded question must name the rules it tests")
    return kind, spec
