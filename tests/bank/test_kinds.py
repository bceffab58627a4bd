"""Question kinds are a registry: a new kind is one module and one line in the table.

A toy true-or-false kind, written here as its own module would be and added to a copy of the
table (the bank's own table is never touched), is read from a question file, drawn, graded,
sealed in an answer key, read from a posted form and written by the exporters, through the
same entry points the real kinds use, with nothing else changed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from marshmallow import fields

from quizsvc.bank import AnswerKey, BankError, read_bank
from quizsvc.bank.kinds import GRADED, KINDS, SELF_RATED, VARIED, Kind, VariantSource, table
from quizsvc.bank.kinds.form import FormFields, first
from quizsvc.bank.lms import moodle, qti
from quizsvc.bank.model import AnswerInput, Grade, Option, QuestionKind, Text, Variant
from quizsvc.bank.parsing import parse_choice
from quizsvc.bank.schema import QuestionBaseSchema, TextSchema, text
from quizsvc.bank.worksheet import render_markdown
from quizsvc.errors import Invalid
from tests.support.tiny_bank import LESSON, choice_data, write_tiny_bank, write_yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "quizsvc" / "web" / "templates"


# ---------------------------------------------------------------- the toy kind's module


class TrueFalseSchema(QuestionBaseSchema):
    """Validate a statement to call true or false."""

    prompt = fields.Nested(TextSchema, required=True)
    answer = fields.Boolean(required=True, truthy={True}, falsy={False})
    solution = fields.Nested(TextSchema, required=True)


TRUE_FALSE = (Option("true", Text("对", "True")), Option("false", Text("错", "False")))


class TrueFalse(Kind):
    """Ask whether a statement is true; it answers as one option, so the choice inputs draw
    it and every exporter writes it as a single choice."""

    name = "truefalse"
    schema = TrueFalseSchema
    template = "kinds/choice.html"
    graded = True

    def variant(self, source: VariantSource) -> Variant:
        spec = source.spec
        return source.variant(prompt=text(spec["prompt"]), params={},
                              input=AnswerInput("choice", options=TRUE_FALSE),
                              answer="true" if spec["answer"] else "false",
                              solution=text(spec["solution"]))

    def grade(self, key: AnswerKey, raw: Any) -> Grade:
        choice = parse_choice(raw, set(key.option_ids))
        return Grade(choice == key.answer, float(choice == key.answer))

    def read_form(self, shape: AnswerInput, posted: FormFields) -> Any:
        return first(posted, "answer")


# ---------------------------------------------------------------- the table, copied

TOY_KINDS = table(*KINDS.values(), TrueFalse())
QID = "running-goes-first"


def truefalse_data(**changes: Any) -> dict:
    """Return a valid true-or-false question body (the tiny bank's choice question's frame)."""
    frame = {key: value for key, value in choice_data(QID).items()
             if key not in ("options", "answer", "prompt", "solution")}
    return {**frame, "kind": "truefalse",
            "prompt": {"zh": "running 请求先拿预算。", "en": "Running requests are served first."},
            "answer": True,
            "solution": {"zh": "对：先 running。", "en": "True: running first."}, **changes}


@pytest.fixture
def toy_bank_dir(tmp_path: Path) -> Path:
    root = write_tiny_bank(tmp_path)
    write_yaml(root / LESSON / "questions" / f"{QID}.yaml", truefalse_data())
    return root


@pytest.fixture
def toy_bank(toy_bank_dir: Path) -> Any:
    return read_bank(toy_bank_dir, TOY_KINDS)


def test_the_copy_holds_the_toy_and_the_bank_s_table_does_not():
    assert "truefalse" in TOY_KINDS and "truefalse" not in KINDS
    assert "truefalse" not in GRADED
    with pytest.raises(TypeError):
        KINDS["truefalse"] = TrueFalse()  # type: ignore[index]


def test_the_bank_s_table_refuses_a_kind_it_does_not_hold(toy_bank_dir):
    with pytest.raises(BankError, match=r"kind: must be one of"):
        read_bank(toy_bank_dir)


def test_a_question_of_the_new_kind_loads_with_the_copied_table(toy_bank):
    question = toy_bank.questions[QID]
    assert question.kind == "truefalse"
    # Graded, so it comes after nothing computed and before the self-rated kinds.
    assert [q.id for q in toy_bank.questions_for(LESSON)] == ["pick-one", QID]


@pytest.mark.parametrize(("changes", "field"), [
    ({"answer": "yes"}, "answer"),
    ({"rules": []}, "rules"),  # a graded kind names its rules, whatever its schema
    ({"options": []}, "options"),  # unknown keys are refused as everywhere
])
def test_its_schema_and_the_graded_rule_hold_its_files(tmp_path, changes, field):
    root = write_tiny_bank(tmp_path)
    write_yaml(root / LESSON / "questions" / f"{QID}.yaml", truefalse_data(**changes))
    with pytest.raises(BankError) as caught:
        read_bank(root, TOY_KINDS)
    assert caught.value.field == field


def test_its_variant_is_drawn_by_its_kind_and_the_same_for_the_same_seed(toy_bank):
    variant = toy_bank.variant(QID, 7)
    assert variant.kind == "truefalse" and variant.answer == "true"
    assert variant.prompt.en == "Running requests are served first."
    assert [o.id for o in variant.input.options] == ["true", "false"]
    assert variant.rules == ("running-first",)
    assert variant.lesson_link.endswith("#rule-running-first")
    assert toy_bank.make_variant(toy_bank.entry(QID), 7) == variant


@pytest.mark.parametrize(("raw", "correct"), [("true", True), (["true"], True), ("false", False)])
def test_its_answers_are_graded_by_its_grader(toy_bank, raw, correct):
    variant = toy_bank.variant(QID, 0)
    result = toy_bank.grade(variant, raw)
    assert (result.correct, result.score) == (correct, float(correct))


def test_an_answer_it_cannot_read_is_refused_and_costs_nothing(toy_bank):
    with pytest.raises(Invalid) as caught:
        toy_bank.grade(toy_bank.variant(QID, 0), "maybe")
    assert (caught.value.field, caught.value.reason) == ("answer", "unknown_option")


def test_its_answer_key_is_sealed_and_graded_like_any_other(toy_bank):
    key = AnswerKey.from_variant(toy_bank.variant(QID, 0))
    sealed = AnswerKey.from_json(key.to_json(), TOY_KINDS)
    assert sealed == key
    assert toy_bank.grade_key(sealed, "true").correct
    assert not toy_bank.grade_key(sealed, "false").correct
    with pytest.raises(ValueError, match="unknown kind"):
        AnswerKey.from_json(key.to_json())  # the bank's own table does not hold it


def test_a_posted_form_becomes_the_answer_its_grader_reads(toy_bank):
    variant = toy_bank.variant(QID, 0)
    kind = TOY_KINDS[variant.kind]
    given = kind.read_form(variant.input, {"answer": ["false"], "csrf_token": ["x"]})
    assert given == "false"
    assert not toy_bank.grade(variant, given).correct
    assert (TEMPLATES / kind.template).is_file()


def test_the_exporters_write_it_by_its_answer_input(toy_bank):
    variant = toy_bank.variant(QID, 0)
    question = toy_bank.questions[QID]
    assert '<question type="multichoice">' in moodle.question_xml(question, variant, "en")
    item = qti.assessment_item(question, variant, "en")
    assert item.find(".//choiceInteraction").get("maxChoices") == "1"
    _, key = render_markdown(toy_bank, LESSON, [variant], 0, "en")
    assert "**Answer:** A" in key


# ---------------------------------------------------------------- the shipped table


def test_every_shipped_kind_is_in_the_table_under_its_name_with_its_template():
    assert list(KINDS) == list(QuestionKind)
    for name, kind in KINDS.items():
        assert kind.name is QuestionKind(name)
        assert (TEMPLATES / kind.template).is_file(), kind.template


def test_the_kind_sets_are_read_from_the_table():
    graded = {QuestionKind.NUMERIC, QuestionKind.CHOICE, QuestionKind.MULTI, QuestionKind.ORDER,
              QuestionKind.ANCHOR}
    assert (graded, set(QuestionKind) - graded) == (GRADED, SELF_RATED)
    assert {QuestionKind.CHOICE, QuestionKind.MULTI, QuestionKind.ORDER} == VARIED
    assert [name for name, kind in KINDS.items() if kind.computed] == [QuestionKind.NUMERIC]


# The modules that once branched on a question's kind; they ask the kind now.
ASKING = ("bank/catalog.py", "bank/schema.py", "bank/grading.py", "bank/answer_key.py",
          "bank/anki.py", "bank/worksheet.py", "bank/check.py", "bank/publication.py",
          "bank/content.py", "bank/lms/moodle.py", "bank/lms/qti.py", "bank/lms/wording.py",
          "bank/lms/exercises.py", "web/forms.py", "web/templates/question.html",
          "study/bank_index.py")


@pytest.mark.parametrize("path", ASKING)
def test_no_module_outside_the_kinds_names_a_kind(path):
    source = (ROOT / "quizsvc" / path).read_text(encoding="utf-8")
    assert not re.findall(r"QuestionKind\.\w+|kind (?:==|is) '\w+'", source)
