"""Diagnosis accuracy over time: how often the rule named with a wrong answer's explanation
is the one its matched wrong model breaks, week by week, beside calibration and never mastery.
"""

from __future__ import annotations

from sqlalchemy import func, select

from quizsvc.store.models import Mastery
from tests.api.test_study_flow import serve_kind
from tests.support.clock import START


def explain_wrong(study, browser, kind, rule):
    """Serve ``kind`` in a quiz, answer it wrong (with its wrong model's answer when it has
    one that differs from the right answer) and explain it naming ``rule``."""
    _, question = serve_kind(study, kind, mode="quiz")
    vid = question["variant_id"]
    wrong = study.answer(vid, study.wrong_answer(vid) if kind == "choice"
                         else [x + 1 for x in study.right_answer(vid)]).json
    assert browser.explain(wrong, rule=rule).status_code == 200


def test_progress_counts_diagnoses_that_named_the_broken_rule_by_week(study, browser, clock,
                                                                       db):
    explain_wrong(study, browser, "choice", "running-first")  # names what FIFO breaks
    explain_wrong(study, browser, "numeric", "two-budgets")  # no wrong model: not graded
    clock.advance(days=7)
    explain_wrong(study, browser, "choice", "two-budgets")  # names another rule
    clock.advance(days=1)
    explain_wrong(study, browser, "choice", "running-first")
    report = browser.get("/api/progress").json
    assert report["diagnoses"] == [
        {"week": START.date().isoformat(), "diagnoses": 1, "named": 1, "rate": 1.0},
        {"week": "2026-11-09", "diagnoses": 2, "named": 1, "rate": 0.5}]
    assert db.scalar(select(func.count()).select_from(Mastery)) == 0  # never mastery


def test_a_learner_with_no_graded_diagnosis_has_an_empty_history(study, browser):
    explain_wrong(study, browser, "numeric", "running-first")
    assert browser.get("/api/progress").json["diagnoses"] == []


def test_the_progress_page_shows_diagnosis_accuracy_beside_calibration(study, browser, app):
    explain_wrong(study, browser, "choice", "running-first")
    page = browser.get("/progress?lang=en").get_data(as_text=True)
    assert page.index('id="calibration-h"') < page.index('id="diagnosis-h"')
    assert "<th scope=\"row\">2026-11-02</th><td>1</td><td>1</td><td>100%</td>" in page
    empty = app.test_client().get("/progress?lang=en").get_data(as_text=True)
    assert 'id="diagnoses-none"' in empty
