"""The pages' presentation helpers are values in, text out: no app, no request needed."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from flask import has_app_context

from quizsvc.bank.catalog import ModelStep
from quizsvc.bank.kinds.form import position_field, vector_field
from quizsvc.bank.model import AnswerInput, Option, Text
from quizsvc.errors import N_
from quizsvc.web import presentation

OPTIONS = (Option("running", Text("运行中", "running")),
           Option("waiting", Text("等待中", "waiting")))
VECTOR = SimpleNamespace(input=AnswerInput("vector", 3, ("A", "B", "C")))
INTEGER = SimpleNamespace(input=AnswerInput("integer"))
CHOICE = SimpleNamespace(input=AnswerInput("choice", options=OPTIONS))
ORDER = SimpleNamespace(input=AnswerInput("order", 2, options=OPTIONS))


@pytest.fixture(autouse=True)
def no_app() -> None:
    assert not has_app_context()


def test_a_time_and_a_link_code_are_written_for_reading():
    assert presentation.when(datetime(2026, 11, 2, 9, 5, tzinfo=UTC)) == "2026-11-02 09:05 UTC"
    assert presentation.when(None) == ""
    assert presentation.grouped("6LFUF59GQZKL") == "6LFU-F59G-QZKL"
    assert presentation.field_id("A.num_tokens") == "f-A-num_tokens"


@pytest.mark.parametrize(("raw", "rated"), [("12", 12), ("", None), ("x1", None),
                                            ("1234567890", None), ("-3", None)])
def test_only_a_short_whole_number_names_the_attempt_just_rated(raw, rated):
    assert presentation.rated_attempt(raw) == rated


@pytest.mark.parametrize(("value", "served", "lang", "shown"), [
    ([1, 6, 1], VECTOR, "en", "A = 1 · B = 6 · C = 1"),
    (["waiting", "running"], ORDER, "zh", "1. 等待中 → 2. 运行中"),
    ("running", CHOICE, "en", "running"),
    ("running", CHOICE, "zh", "运行中"),
    (12, INTEGER, "en", "12"),
    (None, INTEGER, "en", ""),
])
def test_an_answer_is_shown_with_its_options_words_and_its_boxes_labels(value, served, lang,
                                                                         shown):
    assert presentation.answer_text(value, served, lang) == shown
    assert presentation.text_in(Text("题", "Q"), lang) == {"zh": "题", "en": "Q"}[lang]


def test_a_numeric_answer_is_set_beside_the_schedulers_box_by_box():
    assert presentation.compare_rows([1, 5, 1], [1, 6, 1], VECTOR) == [
        ("A", 1, 1), ("B", 5, 6), ("C", 1, 1)]
    assert presentation.compare_rows(13, 12, INTEGER) == [("Value", 13, 12)]
    assert presentation.compare_rows("running", "waiting", CHOICE) == []
    assert presentation.compare_rows([1, 5], [1, 6, 1], VECTOR) == []


def test_only_the_cells_that_differ_from_the_real_run_are_marked():
    step = ModelStep(2, ("request", "C"), real=(("A", "8"), ("B", "3")),
                     wrong=(("A", "8"), ("B", "4")))
    assert presentation.model_cells(step, step.wrong) == [
        [("A", False), ("8", False)], [("B", False), ("4", True)]]
    assert presentation.model_cells(step, step.real) == [
        [("A", False), ("8", False)], [("B", False), ("3", False)]]


def test_a_wrong_models_step_is_listed_as_the_cells_that_differ_only():
    step = ModelStep(2, ("request", "n", "bound"),
                     real=(("A", "8", "demand"), ("B", "3", "token_budget")),
                     wrong=(("A", "8", "demand"), ("B", "4", "demand"), ("C", "1", "demand")))
    assert presentation.model_differences(step) == [
        ("B", "n", "3", "4"), ("B", "bound", "token_budget", "demand"),
        ("C", "n", "—", "1"), ("C", "bound", "—", "demand")]


def test_an_unreadable_answer_is_said_under_the_box_it_concerns():
    element = presentation.answer_problem(
        VECTOR, "answer", N_("element %(element)s: expected an integer, got %(got)s"),
        "not_integer", {"element": 2, "got": "'x'"}, "en")
    assert (element.box, element.label, element.message) == (
        vector_field(1), "B", "one whole number per box")
    position = presentation.answer_problem(
        ORDER, position_field("waiting"), N_("choose a position from 1 to %(max)s"),
        "position_range", {"max": 2}, "zh")
    assert (position.box, position.label, position.message) == (
        position_field("waiting"), "等待中", "choose a position from 1 to 2")
    whole = presentation.answer_problem(CHOICE, "answer", N_("expected one option id"),
                                        "one_option", {}, "en")
    assert (whole.box, whole.label, whole.message) == ("answer", "Your answer",
                                                       "choose one option")
