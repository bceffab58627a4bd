"""The QTI 2.1 export, read back and scored by a QTI engine we did not write.

The reader is ``pyslet`` from PyPI (IMS content packaging and QTI 2.1): it opens the .zip
as a content package, reads each item the manifest lists into its QTI 2.1 object model
(checking each element is one QTI allows where it stands) and runs the item's response
processing on a response, as a delivery system does. Every variant's correct response must
be the bank's answer, and the score the engine gives a response must be the score quizsvc
gives the same answer. No package on PyPI or npm ships the QTI 2.1 XSD, so the items are
not validated against it here.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from pyslet import imscpv1p2
from pyslet.qtiv2 import variables
from pyslet.qtiv2 import xml as qtixml

from quizsvc.bank.catalog import Bank
from quizsvc.bank.lms.exercises import ExerciseSet, exercise_set
from quizsvc.bank.lms.qti import qti_package
from quizsvc.bank.model import QuestionKind, Variant
from quizsvc.cli import main
from tests.support.lms import (
    expected_plain,
    nasty_choice,
    nasty_vector,
    plain_text,
    scalar_variant,
    single_set,
)

# pyslet (2017) calls its own renamed methods through shims that warn on every call.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:pyslet.*")

LESSON = "vllm-v1-ledger"
QTI = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
SEEDS_FROM = 2026


@pytest.fixture(scope="module")
def exercises(bank: Bank) -> ExerciseSet:
    """Draw three variants of every graded question of the real bank."""
    return exercise_set(bank, LESSON, None, 3, SEEDS_FROM)


@contextmanager
def opened(data: bytes, folder: Path) -> Iterator[dict[str, Any]]:
    """Open a package with pyslet; yield its items by identifier (read as QTI 2.1)."""
    path = folder / "bank.zip"
    path.write_bytes(data)
    package = imscpv1p2.ContentPackage(str(path))
    try:
        items = {}
        for resource in package.manifest.root.Resources.Resource:
            if resource.type == "imsqti_item_xmlv2p1":
                entry = resource.File[0]
                document = qtixml.QTIDocument(baseURI=str(entry.resolve_uri(entry.href)))
                document.read()
                items[document.root.identifier] = document.root
        yield items
    finally:
        package.close()


@pytest.fixture(scope="module")
def read_back(bank: Bank, exercises: ExerciseSet, tmp_path_factory: Any
              ) -> Iterator[dict[str, Any]]:
    """Read the whole export back with pyslet, once."""
    with opened(qti_package(bank, exercises, "en"), tmp_path_factory.mktemp("qti")) as items:
        yield items


def item_key(variant: Variant) -> str:
    """Return the item identifier the export gives a variant."""
    return f"quizsvc-{variant.question_id}-{variant.seed}"


def responses(variant: Variant, answer: Any) -> dict[str, Any]:
    """Write an answer quizsvc grades as the QTI responses a candidate would submit."""
    if variant.kind is QuestionKind.NUMERIC:
        if variant.input.type == "vector":
            return {f"RESPONSE_{i}": value for i, value in enumerate(answer, start=1)}
        return {"RESPONSE": answer}
    if variant.kind in (QuestionKind.MULTI, QuestionKind.ORDER):
        return {"RESPONSE": [f"o-{option}" for option in answer]}
    return {"RESPONSE": f"o-{answer}"}


def attempt(item: Any, submitted: dict[str, Any]) -> tuple[float, set[str]]:
    """Submit responses to an item in pyslet; return SCORE and the feedback it shows."""
    state = variables.ItemSessionState(item)
    state.begin_session()
    for response, value in submitted.items():
        state[response].set_value(value)
    state.end_attempt()
    return state["SCORE"].value, set(state["FEEDBACK"].value or {})


def answers_to_try(variant: Variant) -> list[Any]:
    """Return the right answer, each wrong model's, and a few others a student might give."""
    right = variant.answer
    models = [[m.answer] if variant.kind is QuestionKind.MULTI else m.answer
              for m in variant.misconceptions]  # a multi's wrong model is one option
    tried: list[Any] = [right, *models]
    ids = [o.id for o in variant.input.options]
    if variant.kind is QuestionKind.NUMERIC:
        if variant.input.type == "vector":
            tried += [[right[0] + 1, *right[1:]], [0] * len(right)]
        else:
            tried += [right + 1]
    elif variant.kind is QuestionKind.MULTI:
        others = [i for i in ids if i not in right]
        tried += [[], ids, right[1:], [*right[1:], others[0]], [others[0]]]
    elif variant.kind is QuestionKind.ORDER:
        tried += [right[::-1], right[1:] + right[:1], [right[1], right[0], *right[2:]]]
    else:
        tried += ids
    return tried


def test_every_variant_is_an_item_whose_correct_response_is_the_banks_answer(
        exercises, read_back):
    variants = [v for item in exercises.items for v in item.variants]
    assert set(read_back) == {item_key(v) for v in variants}
    assert len(read_back) == len(variants) > 100  # anchors never publish
    for variant in variants:
        item = read_back[item_key(variant)]
        correct = {d.identifier: d.get_correct_value().value for d in item.ResponseDeclaration}
        expected = responses(variant, variant.answer)
        if variant.kind is QuestionKind.MULTI:
            expected = {"RESPONSE": {value: 1 for value in expected["RESPONSE"]}}
        assert correct == expected


def test_the_engine_scores_every_answer_as_quizsvc_grades_it(bank, exercises, read_back):
    tried = 0
    for variant in (v for item in exercises.items for v in item.variants):
        item = read_back[item_key(variant)]
        for answer in answers_to_try(variant):
            score, shown = attempt(item, responses(variant, answer))
            grade = bank.grade(variant, answer)
            assert score == pytest.approx(grade.score), (variant.question_id, answer)
            assert "solution" in shown
            wrong = {f for f in shown if f.startswith("wrong-")}
            if grade.misconception is not None:
                assert f"wrong-{grade.misconception.id}" in wrong
            elif variant.kind is not QuestionKind.MULTI or grade.correct:
                assert wrong == set()
            tried += 1
    assert tried > 500


def test_a_single_number_is_one_integer_entry_with_its_wrong_models(bank, tmp_path):
    variant = scalar_variant(bank)
    with opened(qti_package(bank, single_set(bank, variant), "en"), tmp_path) as items:
        (item,) = items.values()
        (declaration,) = item.ResponseDeclaration
        assert declaration.get_correct_value().value == 7
        assert attempt(item, {"RESPONSE": 7}) == (1.0, {"solution"})
        assert attempt(item, {"RESPONSE": 9}) == (0.0, {
            "solution", "wrong-drafts-counted-twice", "wrong-computed-waits-for-acceptance"})
        assert attempt(item, {"RESPONSE": 0}) == (0.0, {"solution", "wrong-no-rollback"})


def package_files(data: bytes) -> dict[str, bytes]:
    """Return the files of a package by name."""
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        return {name: package.read(name) for name in package.namelist()}


def test_the_package_records_the_numbers_that_make_it_again(bank, exercises):
    data = qti_package(bank, exercises, "both")
    files = package_files(data)
    record = json.loads(files["quizsvc-export.json"])
    assert record == {**json.loads(json.dumps(exercises.record())), "lang": "both", "qti": "2.1"}
    manifest = ET.fromstring(files["imsmanifest.xml"])
    cp = "{http://www.imsglobal.org/xsd/imscp_v1p1}"
    hrefs = [r.get("href") for r in manifest.iter(f"{cp}resource")]
    assert sorted(hrefs) == sorted(name for name in files if name != "imsmanifest.xml")
    assert qti_package(bank, exercise_set(bank, LESSON, None, 3, SEEDS_FROM), "both") == data


def test_each_item_shows_the_variants_options_and_says_what_to_do(bank, exercises):
    files = package_files(qti_package(bank, exercises, "en"))
    for variant in (v for item in exercises.items for v in item.variants):
        root = ET.fromstring(files[f"items/{item_key(variant)}.xml"])
        body = root.find(f"{QTI}itemBody")
        assert expected_plain(variant.prompt.en)[:50] in plain_text(
            ET.tostring(body, encoding="unicode"))
        choices = {c.get("identifier"): plain_text(ET.tostring(c, encoding="unicode"))
                   for c in body.iter(f"{QTI}simpleChoice")}
        assert choices == {f"o-{o.id}": expected_plain(o.text.en)
                           for o in variant.input.options}
        if variant.kind is QuestionKind.NUMERIC:
            entries = [e.get("responseIdentifier")
                       for e in body.iter(f"{QTI}textEntryInteraction")]
            assert entries == [f"RESPONSE_{i}" for i in range(1, len(variant.answer) + 1)]
        solution = root.find(f"{QTI}modalFeedback[@identifier='solution']")
        assert plain_text(ET.tostring(solution, encoding="unicode")) == expected_plain(
            variant.solution.en)


@pytest.mark.parametrize(("lang", "tags"), [("zh", {"zh-Hans"}), ("en", {"en"}),
                                            ("both", {"zh-Hans", "en"})])
def test_the_language_mode_picks_the_text(bank, lang, tags):
    variant = bank.variant("choice-eight-computed", 2**48 + 1)
    (data,) = (v for k, v in package_files(
        qti_package(bank, single_set(bank, variant), lang)).items() if k.startswith("items/"))
    root = ET.fromstring(data)
    lang_attr = "{http://www.w3.org/XML/1998/namespace}lang"
    found = {e.get(lang_attr) for e in root.iter() if e.get(lang_attr)}
    assert found == tags
    text = plain_text(ET.tostring(root.find(f"{QTI}itemBody"), encoding="unicode"))
    assert (expected_plain(variant.prompt.zh) in text) == ("zh-Hans" in tags)
    assert (expected_plain(variant.prompt.en) in text) == ("en" in tags)
    if lang == "both":
        assert text.index(expected_plain(variant.prompt.zh)) < text.index(
            expected_plain(variant.prompt.en))


@pytest.mark.parametrize("make", [nasty_choice, nasty_vector])
def test_text_that_looks_like_markup_stays_text(bank, tmp_path, make):
    variant = make(bank)
    data = qti_package(bank, single_set(bank, variant), "en")
    (item_xml,) = (v for k, v in package_files(data).items() if k.startswith("items/"))
    root = ET.fromstring(item_xml)
    assert not list(root.iter(f"{QTI}script")) and not list(root.iter("script"))
    texts = " ".join("".join(e.itertext()) for e in root.iter(f"{QTI}div"))
    assert "<script>alert(1)</script>" in texts and "]]>" in texts
    with opened(data, tmp_path) as items:
        (item,) = items.values()
        assert attempt(item, responses(variant, variant.answer))[0] == 1.0


def test_the_command_writes_the_package_and_prints_the_seeds(tmp_path, capsys, bank,
                                                            export_database):
    out = tmp_path / "class.zip"
    assert main(["export", "qti", "--lesson", LESSON, "--questions", "order-computed-path",
                 "--variants", "4", "--seeds-from", "8", "--out", str(out)]) == 0
    exercises = exercise_set(bank, LESSON, ["order-computed-path"], 4, 8)
    assert out.read_bytes() == qti_package(bank, exercises, "zh")
    (item,) = exercises.items
    assert f"order-computed-path: seeds {', '.join(map(str, item.seeds))}" in (
        capsys.readouterr().out)
