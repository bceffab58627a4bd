"""The Moodle XML export, read back by a parser we did not write.

The reader is ``moodle-xml-parser`` from PyPI: it reads ``cloze`` (every field with its
answers, marks and feedback) and ``multichoice`` questions. No PyPI package reads Moodle's
``ordering`` or ``numerical`` types; both store their answers as the ``answer`` elements
``multichoice`` does (ordering: the right order is the answers' order, each answer's
fraction its position), so the tests hand the reader those questions marked as
multichoice, and it reads their answers as it reads any. No schema of Moodle XML is
published; the file is checked to be well-formed XML by the standard library.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from xml.etree import ElementTree as ET

import pytest
from moodle_xml_parser.parser import parse_bytes

from quizsvc.bank.catalog import Bank
from quizsvc.bank.lms.exercises import ExerciseSet, exercise_set
from quizsvc.bank.lms.moodle import moodle_xml
from quizsvc.bank.model import QuestionKind, Variant
from quizsvc.cli import main
from tests.support.lms import (
    NASTY,
    expected_plain,
    nasty_choice,
    nasty_vector,
    plain_text,
    scalar_variant,
    single_set,
)

LESSON = "vllm-v1-ledger"
VARIANTS = 3
SEEDS_FROM = 2026


@pytest.fixture(scope="module")
def exercises(bank: Bank) -> ExerciseSet:
    """Draw three variants of every graded question of the real bank."""
    return exercise_set(bank, LESSON, None, VARIANTS, SEEDS_FROM)


def read(data: bytes, retag: tuple[str, ...] = ()) -> dict[str, list]:
    """Read an export with the third-party parser (``retag``: types to read as multichoice);
    fail on anything it reports (it prints its errors instead of raising)."""
    for qtype in retag:
        data = data.replace(f'<question type="{qtype}">'.encode(),
                            b'<question type="multichoice">')
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        parsed = parse_bytes(data)
    assert printed.getvalue() == ""
    return parsed


def by_name(questions: list) -> dict[tuple[str, int], object]:
    """Index parsed questions by (question id, seed), read from their names."""
    found = {}
    for parsed in questions:
        question_id, seed = parsed.name.split(" · ")
        found[(question_id, int(seed))] = parsed
    return found


def option_ids(variant: Variant, parsed_options: list, lang: str = "en") -> list[str]:
    """Map parsed answers back to the variant's option ids by what they say."""
    texts = {expected_plain(o.text.get(lang)): o.id for o in variant.input.options}
    return [texts[plain_text(option.answer)] for option in parsed_options]


def number(answer: str) -> tuple[int, str]:
    """Read a Cloze numerical answer ``value:tolerance``."""
    value, tolerance = answer.split(":")
    return int(value), tolerance


def test_every_vector_reads_back_as_one_numerical_field_per_element(bank, exercises):
    parsed = by_name(read(moodle_xml(bank, exercises, "en"))["cloze"])
    vectors = [(item.question, v) for item in exercises.items for v in item.variants
               if v.kind is QuestionKind.NUMERIC]
    assert len(parsed) == len(vectors) > 40
    for question, variant in vectors:
        cloze = parsed[(question.id, variant.seed)]
        assert [gap.sub_type for gap in cloze.gaps] == ["NUMERICAL"] * len(variant.answer)
        for index, gap in enumerate(cloze.gaps):
            right = [number(o.answer) for o in gap.options if o.score == 100]
            assert right == [(variant.answer[index], "0")]
            wrong = {number(o.answer)[0]: plain_text(o.feedback)
                     for o in gap.options if o.score == 0}
            expected = {m.answer[index] for m in variant.misconceptions
                        if m.answer[index] != variant.answer[index]}
            assert set(wrong) == expected
            for model in variant.misconceptions:
                if model.answer[index] != variant.answer[index]:
                    assert expected_plain(model.name.en) in wrong[model.answer[index]]
        assert expected_plain(variant.prompt.en)[:60] in plain_text(cloze.text_pre_parse)


def test_every_choice_and_multi_reads_back_with_its_marks_and_wrong_models(bank, exercises):
    data = moodle_xml(bank, exercises, "en")
    parsed = by_name(read(data)["multichoice"])
    written = {e.findtext("idnumber"): e for e in ET.fromstring(data).iter("question")}
    kinds = (QuestionKind.CHOICE, QuestionKind.ANCHOR, QuestionKind.MULTI)
    chosen = [(item.question, v) for item in exercises.items for v in item.variants
              if v.kind in kinds]
    assert len(parsed) == len(chosen) > 40  # anchors ask one thing each and never publish
    for question, variant in chosen:
        mc = parsed[(question.id, variant.seed)]
        ids = option_ids(variant, mc.options)
        assert sorted(ids) == sorted(o.id for o in variant.input.options)
        marks = dict(zip(ids, (o.score_fraction for o in mc.options), strict=True))
        if variant.kind is QuestionKind.MULTI:
            assert not mc.single
            share = 100 / len(variant.answer)
            assert {i for i, m in marks.items() if m > 0} == set(variant.answer)
            for option_id, mark in marks.items():
                assert mark == pytest.approx(share if option_id in variant.answer else -share,
                                             abs=1e-5)
        else:
            assert mc.single
            assert marks == {i: 100 if i == variant.answer else 0 for i in ids}
        feedback = dict(zip(ids, (plain_text(o.feedback or "") for o in mc.options),
                            strict=True))
        for model in variant.misconceptions:
            assert expected_plain(model.name.en) in feedback[model.answer]
        named = {m.answer for m in variant.misconceptions}
        assert all(feedback[i] == "" for i in ids if i not in named)
        assert mc.general_feedback.strip()
        element = written[f"quizsvc-{question.id}-{variant.seed}"]
        assert plain_text(element.findtext("generalfeedback/text")) == expected_plain(
            variant.solution.en)


def test_every_order_reads_back_in_the_right_order_numbered_by_position(bank, exercises):
    parsed = by_name(read(moodle_xml(bank, exercises, "en"), ("ordering",))["multichoice"])
    orders = [(item.question, v) for item in exercises.items for v in item.variants
              if v.kind is QuestionKind.ORDER]
    assert len(orders) >= 10
    for question, variant in orders:
        answers = parsed[(question.id, variant.seed)].options
        assert option_ids(variant, answers) == variant.answer
        assert [o.score_fraction for o in answers] == list(range(1, len(answers) + 1))
    xml = moodle_xml(bank, exercises, "en").decode()
    assert xml.count('<question type="ordering">') == len(orders)
    assert xml.count("<gradingtype>ABSOLUTE_POSITION</gradingtype>") == len(orders)


def test_a_single_number_goes_as_numerical_with_its_wrong_models(bank):
    variant = scalar_variant(bank)
    data = moodle_xml(bank, single_set(bank, variant), "en")
    assert b'<question type="numerical">' in data
    (parsed,) = read(data, ("numerical",))["multichoice"]
    answers = [(o.answer, o.score_fraction, plain_text(o.feedback or ""))
               for o in parsed.options]
    assert answers[0] == ("7", 100, "")
    assert [a[:2] for a in answers[1:]] == [("9", 0), ("0", 0)]
    assert answers[1][2].startswith("Wrong model: “]]>") and answers[1][2].endswith("; B")
    assert answers[2][2] == "Wrong model: C"
    written = list(ET.fromstring(data).iter("answer"))
    assert [e.findtext("tolerance") for e in written] == ["0", "0", "0"]
    assert plain_text(written[1].findtext("feedback/text")) == (
        f"Wrong model: {expected_plain(NASTY.en)}; B")


def test_each_question_is_one_category_holding_its_variants(bank, exercises):
    root = ET.fromstring(moodle_xml(bank, exercises, "both"))
    current = None
    held: dict[str, list[str]] = {}
    for element in root.iter("question"):
        if element.get("type") == "category":
            current = element.findtext("category/text")
            assert current not in held
            held[current] = []
        else:
            held[current].append(element.findtext("idnumber"))
    assert len(held) == len(exercises.items)
    # Moodle splits a category path on single slashes; a slash in a name is written "//".
    segments = [re.split(r"(?<!/)/(?!/)", path) for path in held]
    assert {len(parts) for parts in segments} == {4}
    assert len({tuple(parts[:3]) for parts in segments}) == 1
    assert segments[0][:2] == ["$course$", "top"]
    assert segments[0][2].startswith("quizsvc ")
    assert segments[0][2].endswith(f"(seeds-from {SEEDS_FROM})")
    for (path, ids), item in zip(held.items(), exercises.items, strict=True):
        assert path.endswith(f"[{item.question.id}]")
        assert ids == [f"quizsvc-{item.question.id}-{seed}" for seed in item.seeds]


def test_the_file_records_the_numbers_that_make_it_again(bank, exercises):
    data = moodle_xml(bank, exercises, "zh")
    record = json.loads(re.search(rb"<!-- quizsvc export (.*?) -->", data).group(1))
    assert record == json.loads(json.dumps(exercises.record()))
    root = ET.fromstring(data)
    about = root.find("question/info/text").text
    first = exercises.items[0]
    assert str(SEEDS_FROM) in about and all(str(seed) in about for seed in first.seeds)
    for element in root.iter("question"):
        if element.get("type") != "category":
            question_id, seed = element.findtext("name/text").split(" · ")
            assert bank.questions[question_id].lesson == LESSON
            assert int(seed) in record["questions"][question_id]


def test_the_same_export_gives_the_same_bytes(bank, exercises):
    again = exercise_set(bank, LESSON, None, VARIANTS, SEEDS_FROM)
    assert moodle_xml(bank, again, "both") == moodle_xml(bank, exercises, "both")


@pytest.mark.parametrize(("lang", "present", "absent"), [
    ("zh", ["zh"], ["en"]), ("en", ["en"], ["zh"]), ("both", ["zh", "en"], [])])
def test_the_language_mode_picks_the_text(bank, lang, present, absent):
    variant = bank.variant("choice-eight-computed", 2**48 + 1)
    root = ET.fromstring(moodle_xml(bank, single_set(bank, variant), lang))
    question = root.findall("question")[1]
    shown = question.findtext("questiontext/text")
    for side in present:
        assert expected_plain(variant.prompt.get(side)) in plain_text(shown)
    for side in absent:
        assert expected_plain(variant.prompt.get(side)) not in plain_text(shown)
    if lang == "both":
        assert shown.index('lang="zh-Hans"') < shown.index('lang="en"')
        option = question.find("answer/text").text
        assert option.index('lang="zh-Hans"') < option.index('lang="en"')


def test_text_that_looks_like_markup_stays_text(bank):
    data = moodle_xml(bank, single_set(bank, nasty_choice(bank)), "en")
    question = ET.fromstring(data).findall("question")[1]
    for path in ("questiontext/text", "generalfeedback/text", "answer/text"):
        shown = question.findtext(path)
        assert "<script>" not in shown and "&lt;script&gt;" in shown
        assert plain_text(shown) == expected_plain(NASTY.en)
    feedbacks = [plain_text(a.findtext("feedback/text")) for a in question.iter("answer")]
    assert f"Wrong model: {expected_plain(NASTY.en)}" in feedbacks


def test_a_cloze_field_cannot_be_ended_or_opened_by_the_text_around_it(bank):
    variant = nasty_vector(bank)
    shown = ET.fromstring(moodle_xml(bank, single_set(bank, variant), "en")).findall(
        "question")[1].findtext("questiontext/text")
    fields = re.findall(r"\{1:NUMERICAL:([^{}]*)\}", shown)
    assert len(fields) == len(variant.answer)
    assert "{" not in re.sub(r"\{1:NUMERICAL:[^{}]*\}", "", shown)
    for field in fields:
        for alternative in field.split("~"):
            assert re.fullmatch(r"(=|%0%)-?\d+:0(#[^~}\\]*)?", alternative)
    # Moodle decodes a field's feedback once before storing it as HTML: what it stores
    # must show the text, not run it.
    feedback = field.split("#", 1)[1]
    assert "&amp;lt;script&amp;gt;" in feedback and "<script>" not in feedback


def test_the_command_writes_the_file_and_prints_how_to_make_it_again(tmp_path, capsys, bank,
                                                                     export_database):
    out = tmp_path / "class.xml"
    args = ["export", "moodle", "--lesson", LESSON, "--questions", "spec-demand,choice-seats",
            "--variants", "2", "--lang", "both", "--seeds-from", "31", "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    exercises = exercise_set(bank, LESSON, ["spec-demand", "choice-seats"], 2, 31)
    assert out.read_bytes() == moodle_xml(bank, exercises, "both")
    for item in exercises.items:
        assert f"{item.question.id}: seeds {', '.join(map(str, item.seeds))}" in printed
    again = printed.split("again: ", 1)[1].split()
    assert again[:2] == ["quizsvc", "export"] and again[2:-2] == args[1:-2]


@pytest.mark.parametrize(("args", "message"), [
    (["--lesson", "nope"], "no lesson"),
    (["--lesson", LESSON, "--questions", "card-num-computed-tokens"], "not graded"),
])
def test_the_command_refuses_what_cannot_be_exported(tmp_path, capsys, args, message,
                                                    export_database):
    assert main(["export", "moodle", *args, "--out", str(tmp_path / "x.xml")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.xml").exists()


@pytest.mark.parametrize("args", [["--variants", "0"], ["--variants", "51"],
                                  ["--lang", "fr"], ["--seeds-from", "-1"]])
def test_the_command_refuses_bad_options(tmp_path, args):
    with pytest.raises(SystemExit) as stopped:
        main(["export", "moodle", "--lesson", LESSON, *args, "--out", str(tmp_path / "x")])
    assert stopped.value.code == 2
