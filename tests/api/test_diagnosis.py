"""A wrong answer's explanation is a diagnosis: a rule from the offered ones and a sentence.

The fake bank's graded questions test "running-first" and name one wrong model each, which
breaks it; their section "budget" also teaches "two-budgets", so both are offered, and
"rollback" (another section's) is not.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from quizsvc.store.models import Attempt
from tests.api.test_study_flow import serve_kind
from tests.support.browsers import SENTENCE
from tests.support.fake_bank import LESSON_ID

OFFERED = ["running-first", "two-budgets"]


def wrong_choice(study):
    """Answer the choice question with its wrong model's answer (FIFO); return the JSON."""
    _, question = serve_kind(study, "choice")
    vid = question["variant_id"]
    return study.answer(vid, study.variant(vid).misconceptions[0].answer).json


def test_a_wrong_answer_offers_the_rules_it_may_have_broken(study):
    wrong = wrong_choice(study)
    assert [option["id"] for option in wrong["diagnosis_options"]] == OFFERED
    assert wrong["diagnosis_options"][0]["title"] == {"zh": "先 running", "en": "Running first"}


def test_a_right_answer_offers_nothing_to_diagnose(study):
    _, question = serve_kind(study, "numeric")
    right = study.answer(question["variant_id"], study.right_answer(question["variant_id"]))
    assert right.json["diagnosis_options"] == []


def test_a_diagnosis_that_names_the_broken_rule_is_matched(study, browser, db):
    wrong = wrong_choice(study)
    explained = browser.explain(wrong, rule="running-first")
    assert explained.status_code == 200, explained.json
    reveal = explained.json["reveal"]
    assert reveal["wrong_model"]["breaks"] == "running-first"
    assert reveal["diagnosis"] == {
        "rule": "running-first", "title": {"zh": "先 running", "en": "Running first"},
        "taught_at": f"/lessons/{LESSON_ID}#rule-running-first", "matched": True}
    assert explained.json["diagnosis_options"] == []
    assert browser.get(f"/api/attempts/{wrong['id']}").json["reveal"] == reveal
    assert db.scalar(select(Attempt.diagnosed_rule).where(Attempt.id == wrong["id"])) \
        == "running-first"


def test_a_diagnosis_of_another_rule_is_not_matched_and_links_both_rules(study, browser):
    wrong = wrong_choice(study)
    reveal = browser.explain(wrong, rule="two-budgets").json["reveal"]
    assert reveal["diagnosis"]["matched"] is False
    assert reveal["diagnosis"]["taught_at"] == f"/lessons/{LESSON_ID}#rule-two-budgets"
    assert reveal["wrong_model"]["taught_at"] == f"/lessons/{LESSON_ID}#rule-running-first"


def test_without_a_matched_wrong_model_there_is_nothing_to_grade(study, browser):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    off = [x + 1 for x in study.right_answer(vid)]  # no wrong model gives this
    wrong = study.answer(vid, off).json
    reveal = browser.explain(wrong, rule="two-budgets").json["reveal"]
    assert reveal["wrong_model"] is None
    assert reveal["diagnosis"]["rule"] == "two-budgets" and reveal["diagnosis"]["matched"] is None


@pytest.mark.parametrize("rule", ["rollback", "no-such-rule", None, ""])
def test_a_rule_that_was_not_offered_is_422_on_rule_and_reveals_nothing(study, browser, rule):
    wrong = wrong_choice(study)
    response = browser.post(f"/api/attempts/{wrong['id']}/explanation",
                            json={"rule": rule, "explanation": SENTENCE})
    assert response.status_code == 422
    assert list(response.json["errors"]["json"]) == ["rule"]
    assert browser.get(f"/api/attempts/{wrong['id']}").json["reveal"] is None


def test_an_explanation_without_a_rule_is_422_on_rule(study, browser):
    wrong = wrong_choice(study)
    response = browser.post(f"/api/attempts/{wrong['id']}/explanation",
                            json={"explanation": SENTENCE})
    assert response.status_code == 422
    assert "rule" in response.json["errors"]["json"]


@pytest.mark.parametrize("text", ["?", "  ?  ", "not sure", "...!!! ???", "错了", "看错了题",
                                  "C 错"])
def test_an_explanation_shorter_than_a_sentence_is_422_on_explanation(study, browser, text):
    wrong = wrong_choice(study)
    response = browser.explain(wrong, rule="running-first", explanation=text)
    assert response.status_code == 422
    assert list(response.json["errors"]["json"]) == ["explanation"]
    assert response.json["reason"] == "explanation_too_short"
    assert browser.get(f"/api/attempts/{wrong['id']}").json["reveal"] is None


@pytest.mark.parametrize("text", ["I served FIFO.", "我以为先服务 waiting 队列", "先服务等待队列",
                                  "C 回退了两次"])
def test_a_few_words_in_either_language_are_a_sentence(study, browser, text):
    wrong = wrong_choice(study)
    response = browser.explain(wrong, rule="running-first", explanation=text)
    assert response.status_code == 200, response.json
    assert response.json["reveal"]["explanation"] == text


def test_the_refusal_is_said_in_the_learners_language(study, browser):
    wrong = wrong_choice(study)
    response = browser.post(f"/api/attempts/{wrong['id']}/explanation",
                            json={"rule": "running-first", "explanation": "?"},
                            headers={"Accept-Language": "zh"})
    assert response.status_code == 422
    said = response.json["said"]["message"]
    assert "3" in said and "6" in said and said != response.json["message"]


def test_the_openapi_document_describes_the_rule(client):
    spec = client.get("/api/openapi.json").json
    explanation = spec["components"]["schemas"]["Explanation"]
    assert {"rule", "explanation"} <= set(explanation["required"])
    assert explanation["properties"]["rule"]["description"]
    attempt = spec["components"]["schemas"]["Attempt"]["properties"]
    assert "diagnosis_options" in attempt
    reveal = spec["components"]["schemas"]["Reveal"]["properties"]
    assert "diagnosis" in reveal


def test_the_export_carries_the_diagnosis_and_an_import_keeps_it_as_history(
        study, browser, new_browser):
    wrong = wrong_choice(study)
    browser.explain(wrong, rule="two-budgets")
    document = browser.get("/api/export").json
    [record] = [a for a in document["attempts"] if a["diagnosed_rule"] is not None]
    assert record["diagnosis_matched"] is False
    assert record["explanation"] == SENTENCE
    other = new_browser()
    assert other.post("/api/import", json=document).status_code == 201
    [kept] = [a for a in other.get("/api/export").json["attempts"] if a["diagnosed_rule"]]
    assert kept["diagnosed_rule"] == "two-budgets"
    assert kept["diagnosis_matched"] is None  # another learner's: graded against nothing
    assert kept["graded"] is False


def test_an_export_signed_before_diagnoses_existed_still_restores_as_evidence(
        study, browser, db):
    """A document without the field (as exported before 0011) verifies as it was signed."""
    from quizsvc.study import portability, seal
    from tests.support.history import forget_history

    wrong = wrong_choice(study)
    browser.explain(wrong, rule="running-first")
    document = browser.get("/api/export").json
    signed = next(a for a in document["attempts"] if a["diagnosed_rule"])
    assert signed["diagnosed_rule"] == "running-first"  # covered by the signature
    old = {**document, "attempts": [
        {k: v for k, v in a.items() if k not in ("diagnosed_rule", "diagnosis_matched")}
        for a in document["attempts"]]}
    view = portability.signed_view(old)  # as the code before 0011 signed it: no such field
    view["attempts"] = [{k: v for k, v in a.items() if k != "diagnosed_rule"}
                        for a in view["attempts"]]
    secret = browser.client.application.config["SECRET_KEY"]
    old["signature"] = seal.sign(secret, portability.DOCUMENT_PURPOSE, view)
    forget_history(db, browser)
    restored = browser.post("/api/import", json=old)
    assert restored.status_code == 201, restored.json
    assert restored.json["vouched"] is True
