"""Report a problem with a question: stored with the variant, listed only for the author,
bounded and rate-limited like the other writes."""

from __future__ import annotations

from typing import Any

import pytest

from quizsvc import create_app
from quizsvc.store.models import QuestionReport, ServedVariant
from tests.support.browsers import ApiBrowser
from tests.support.cohorts import AUTHOR_TOKEN
from tests.support.fake_bank import LESSON_ID

TOKEN = AUTHOR_TOKEN


def served_variant(study: Any) -> dict:
    session = study.start(LESSON_ID, mode="quiz", size=1)
    return study.next(session["id"])["question"]


def report(browser: Any, variant_id: str, reason: str = "wrong_answer",
           text: str = "the budget looks off") -> Any:
    return browser.post("/api/reports", json={"variant_id": variant_id, "reason": reason,
                                              "text": text})


def test_a_report_is_stored_with_its_variant(author_app: Any, db: Any, bank: Any) -> None:
    from tests.support.browsers import Study
    browser = ApiBrowser(author_app)
    question = served_variant(Study(browser, db, bank))
    response = report(browser, question["variant_id"])
    assert response.status_code == 201
    assert response.json["question_id"] == question["question_id"]
    stored = db.query(QuestionReport).one()
    served = db.get(ServedVariant, question["variant_id"])
    assert (stored.question_id, stored.seed, stored.bank_version) == (
        served.question_id, served.seed, served.bank_version)
    assert (stored.reason, stored.text) == ("wrong_answer", "the budget looks off")
    listed = author_app.test_client().get("/api/author/reports",
                                          headers={"Authorization": f"Bearer {TOKEN}"})
    assert listed.status_code == 200
    assert [(r["question_id"], r["seed"], r["bank_version"], r["reason"])
            for r in listed.json] == [(served.question_id, served.seed, served.bank_version,
                                       "wrong_answer")]


def test_reports_are_listed_only_with_the_author_token(author_app: Any, client: Any) -> None:
    anyone = author_app.test_client()
    assert anyone.get("/api/author/reports").status_code == 401
    assert anyone.get("/api/author/reports",
                      headers={"Authorization": "Bearer guess"}).status_code == 401
    assert client.get("/api/author/reports").status_code == 404  # no token configured


def test_a_learner_cannot_report_on_anothers_variant(study: Any, new_browser: Any) -> None:
    question = served_variant(study)
    assert report(new_browser(), question["variant_id"]).status_code == 404


@pytest.mark.parametrize(("body", "field"), [
    ({"reason": "spam"}, "reason"), ({"text": "x" * 501}, "text"),
    ({"reason": None}, "reason"), ({"extra": 1}, "extra")])
def test_a_bad_report_is_422_naming_the_field(study: Any, body: dict, field: str) -> None:
    question = served_variant(study)
    response = study.browser.post("/api/reports", json={
        "variant_id": question["variant_id"], "reason": "unclear", "text": "", **body})
    assert response.status_code == 422
    assert field in response.json["errors"]["json"]


def test_a_report_needs_the_csrf_echo(study: Any) -> None:
    question = served_variant(study)
    response = study.browser.client.post("/api/reports", json={
        "variant_id": question["variant_id"], "reason": "unclear"})
    assert response.status_code == 403


def test_reports_are_rate_limited(app_config: dict, connection: Any, db: Any,
                                  bank: Any) -> None:
    from tests.support.browsers import Study
    app = create_app({**app_config, "REPORT_RATE_LIMIT": "2/minute"})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    browser = ApiBrowser(app)
    question = served_variant(Study(browser, db, bank))
    statuses = [report(browser, question["variant_id"]).status_code for _ in range(3)]
    assert statuses == [201, 201, 429]


def test_the_openapi_document_describes_reports(client: Any) -> None:
    paths = client.get("/api/openapi.json").json["paths"]
    assert "post" in paths["/api/reports"] and "get" in paths["/api/author/reports"]
