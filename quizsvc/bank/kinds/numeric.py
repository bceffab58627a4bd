"""The numeric kind: one integer, or a vector of integers, computed by replaying the ledger.

A numeric question is a template in a folder of its own: ``question.yaml`` declares the
parameters and the prompt, its generator module turns drawn parameters into a ledger scenario
(``quizsvc.bank.numeric``), and the answer is read from the replayed trace, so it can never
disagree with the scheduler. Its solution is the ledger's worked solution of the asked step.
Answers are graded exactly, a vector per element with partial credit, and an answer equal to
a named wrong model's is reported with that model.
"""

from __future__ import annotations

import string
from typing import TYPE_CHECKING, Any

from marshmallow import ValidationError, fields, validate, validates_schema

from quizsvc.bank import numeric as generators
from quizsvc.bank.errors import BankError
from quizsvc.bank.kinds.base import Kind, VariantSource, wrong_model
from quizsvc.bank.kinds.form import FormFields, first, number_or_text, vector_values
from quizsvc.bank.model import AnswerInput, Grade, Misconception, QuestionKind, Text, Variant
from quizsvc.bank.parsing import parse_integer, parse_vector
from quizsvc.bank.schema import (
    NON_EMPTY,
    PARAM_NAME,
    SLUG,
    QuestionBaseSchema,
    StrictSchema,
    TextSchema,
)
from quizsvc.bank.stated import SETTING_KEYS

if TYPE_CHECKING:
    from quizsvc.bank.answer_key import AnswerKey
    from quizsvc.bank.loader import QuestionEntry


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


def ledger_replay(
    scenario: dict[str, Any], wrong_rules: tuple[str, ...] = (), wrong_from_step: int = 0
) -> dict[str, Any]:
    """Replay a FORMAT.md scenario through the ledger core (imported on first use).

    ``wrong_rules`` (the ledger's ``WrongRule`` names) replay it under a named wrong model
    from loop step ``wrong_from_step`` on, for misconception feedback.
    """
    from quizsvc.ledger import replay

    if wrong_rules:
        return replay(scenario, wrong_rules=wrong_rules, wrong_from_step=wrong_from_step)
    return replay(scenario)


def ledger_solution(trace: dict[str, Any], step: int, lang: str,
                    focus: tuple[str, ...] = ()) -> str:
    """Return the ledger's worked solution (markdown) for one step of a trace."""
    from quizsvc.ledger.explain import worked_solution

    return worked_solution(trace, step, lang, focus)


def focus_of(build: generators.Build) -> tuple[str, ...]:
    """Return the request ids a numeric question asks about (read from its answer refs)."""
    found: list[str] = []
    for ref in build.refs:
        path = ref.path
        rid = path[1] if path[:1] == ("requests",) else path[2] if path[:2] == (
            "schedule", "limits") else None
        if rid is not None and rid not in found:
            found.append(rid)
    return tuple(found)


def draw(entry: QuestionEntry, seed: int) -> generators.NumericDraw:
    """Generate the draw (scenario, trace, answer) behind a numeric question's variant."""
    if entry.generator is None:
        raise BankError("question", "kind", f"{entry.question.id} is not a numeric question")
    return generators.generate(entry.question.id, seed, entry.spec["params"], entry.generator,
                               ledger_replay, str(entry.path))


class CountFormatter(string.Formatter):
    """Format prompt templates, writing ``{n:token|tokens}`` as "1 token" or "3 tokens".

    English nouns must agree with the numbers a generator draws ("1 request", never
    "1 requests"); a field whose format spec holds ``singular|plural`` gets the number and the
    right noun. Every other field formats as ``str.format`` would.
    """

    def format_field(self, value: Any, format_spec: str) -> str:
        """Write a count with its noun, or fall back to the usual formatting."""
        if "|" in format_spec and isinstance(value, int) and not isinstance(value, bool):
            singular, plural = format_spec.split("|", 1)
            return f"{value} {singular if value == 1 else plural}"
        return str(super().format_field(value, format_spec))


PROMPT_FORMAT = CountFormatter()


def localised(values: dict[str, Any], lang: str) -> dict[str, Any]:
    """Pick the ``lang`` side of every ``Text`` value (a phrase a generator wrote in both)."""
    return {k: v.get(lang) if isinstance(v, Text) else v for k, v in values.items()}


class Numeric(Kind):
    """Ask for numbers the ledger computes; grade them exactly."""

    name = QuestionKind.NUMERIC
    schema = NumericSchema
    template = "kinds/numeric.html"
    graded = True
    computed = True

    def variant(self, source: VariantSource) -> Variant:
        """Draw the scenario, fill the prompt from the replayed trace and write the worked
        solution of the asked step; the answer and the wrong models' answers come from the
        trace too."""
        entry, spec = source.entry, source.spec
        drawn = draw(entry, source.seed)
        shown = {k: v for k, v in drawn.display.items() if not k.startswith("_")}
        prompt = {}
        for lang in ("zh", "en"):
            values = localised(shown, lang)
            try:
                prompt[lang] = PROMPT_FORMAT.vformat(spec["prompt"][lang], (), values)
            except (KeyError, IndexError, ValueError) as error:
                raise BankError(
                    str(entry.path), f"prompt.{lang}", f"cannot fill: {error!r}"
                ) from None
        solution = {}
        for lang in ("zh", "en"):
            worked = ledger_solution(drawn.trace, drawn.build.step, lang, focus_of(drawn.build))
            values = localised(drawn.display, lang)
            intro = PROMPT_FORMAT.vformat(spec["solution"][lang], (), values) if spec[
                "solution"] else ""
            solution[lang] = f"{intro}\n\n{worked}" if intro else worked
        declared = spec["misconceptions"]
        undeclared = sorted(set(drawn.wrong) - set(declared))
        if undeclared:
            raise BankError(str(entry.path), "misconceptions", f"generator names {undeclared}")
        wrong: list[Misconception] = []
        for mid in declared:  # declared order is priority order; equal answers keep the first
            if mid in drawn.wrong and all(m.answer != drawn.wrong[mid] for m in wrong):
                wrong.append(Misconception(mid, source.names[mid], drawn.wrong[mid]))
        build = drawn.build
        if build.is_vector:
            labels = build.labels or tuple(str(i + 1) for i in range(len(build.refs)))
            answer_input = AnswerInput("vector", length=len(build.refs), labels=labels)
        else:
            answer_input = AnswerInput("integer")
        return source.variant(
            prompt=Text(**prompt),
            params={
                k: {"zh": v.zh, "en": v.en} if isinstance(v, Text) else v for k, v in shown.items()
            },
            input=answer_input,
            answer=drawn.answer,
            solution=Text(**solution),
            misconceptions=tuple(wrong),
            scenario=build.scenario,
            answer_ref=drawn.answer_ref,
            extra={"draw": dict(drawn.params), "step": build.step, "attempts": drawn.attempts},
        )

    def grade(self, key: AnswerKey, raw: Any) -> Grade:
        """Grade one integer exactly, or a vector per element (the score is the share right)."""
        if key.input_type == "vector":
            values = parse_vector(raw, key.length or 0)
            per_element = tuple(v == a for v, a in zip(values, key.answer, strict=True))
            correct = all(per_element)
            return Grade(correct, sum(per_element) / len(per_element),
                         misconception=None if correct else wrong_model(key, values),
                         per_element=per_element)
        value = parse_integer(raw)
        correct = value == key.answer
        return Grade(correct, 1.0 if correct else 0.0,
                     misconception=None if correct else wrong_model(key, value))

    def read_form(self, shape: AnswerInput, posted: FormFields) -> Any:
        """Read the one box, or one box per vector element, as numbers where they are."""
        if shape.type == "vector":
            return [number_or_text(value) for value in vector_values(shape.length or 0, posted)]
        return number_or_text(first(posted, "answer"))


NUMERIC = Numeric()
