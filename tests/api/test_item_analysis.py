"""Item analysis in the API: author token only, JSON and CSV, over first closed-book answers."""

from __future__ import annotations

import csv
import io

import pytest

from tests.support.browsers import ApiBrowser, Study
from tests.support.cohorts import AUTHOR_TOKEN
from tests.support.fake_bank import LESSON_ID

TOKEN = AUTHOR_TOKEN
URL = f"/api/author/item-analysis?lesson={LESSON_ID}"


def bearer(token=TOKEN):
    return {"Authorization": f"Bearer {token}"}


def take_quiz(app, db, bank, right: bool) -> None:
    """One learner answers every graded question of a quiz right (or wrong), closed-book."""
    study = Study(ApiBrowser(app), db, bank)
    session = study.start(LESSON_ID, mode="quiz", size=10)
    while True:
        item = study.next(session["id"])
        question = item.get("question")
        if question is None:
            return
        variant_id = question["variant_id"]
        if question["input"]["type"] == "flashcard":
            answer = None
        elif question["input"]["type"] == "text":
            answer = "because"
        else:
            answer = study.right_answer(variant_id) if right else study.wrong_answer(variant_id)
        assert study.answer(variant_id, answer).status_code in (200, 201)


@pytest.fixture
def answered(author_app, db, bank):
    take_quiz(author_app, db, bank, right=True)
    take_quiz(author_app, db, bank, right=False)
    return author_app


def test_an_author_sees_each_graded_question_and_rule(answered):
    response = answered.test_client().get(URL, headers=bearer())
    assert response.status_code == 200, response.json
    body = response.json
    assert (body["scope"], body["learners"], body["min_learners"]) == ("everyone", 2, 20)
    items = {item["question_id"]: item for item in body["items"]}
    assert set(items) == {"budget-split", "running-first"}  # graded questions only
    split = items["budget-split"]
    assert (split["answers"], split["right"], split["facility"]) == (2, 1, 0.5)
    assert split["discrimination"] == {"learners": 2, "index": None}  # under 20 learners
    assert split["median_ms"] is not None and split["title"]["en"] == "Question budget-split"
    assert split["misconceptions"][0]["id"] == "even-split"
    assert split["misconceptions"][0]["breaks"] == "running-first"
    assert split["misconceptions"][0]["taught_at"] == f"/lessons/{LESSON_ID}#rule-running-first"
    assert split["misconceptions"][0]["diagnosed_share"] is None
    assert [v["seed"] >= 0 for v in split["variants"]] == [True] * len(split["variants"])
    assert body["rules"][0]["rule_id"] == "running-first"
    assert body["rules"][0]["misconception_answers"] == 2


def test_the_item_analysis_downloads_as_csv(answered):
    client = answered.test_client()
    response = client.get(URL + "&format=csv", headers=bearer())
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    by_id = {row["question_id"]: row for row in rows}
    assert by_id["budget-split"]["facility"] == "0.500"
    assert by_id["budget-split"]["discrimination"] == ""  # no figure under the minimum count
    assert by_id["budget-split"]["misconceptions"] == "even-split (running-first): 1"
    rules = list(csv.DictReader(io.StringIO(
        client.get(URL + "&format=rules-csv", headers=bearer()).get_data(as_text=True))))
    assert rules[0]["rule_id"] == "running-first"


def test_a_second_read_is_kept_until_a_new_answer(answered, db, bank):
    client = answered.test_client()
    first = client.get(URL, headers=bearer()).json
    assert client.get(URL, headers=bearer()).json == first
    take_quiz(answered, db, bank, right=True)
    assert client.get(URL, headers=bearer()).json["learners"] == 3


@pytest.mark.parametrize("headers", [{}, bearer("wrong"), {"Authorization": TOKEN}])
def test_without_the_author_token_it_is_401(answered, headers):
    response = answered.test_client().get(URL, headers=headers)
    assert response.status_code == 401
    assert response.json["reason"] == "author_token"


def test_a_learner_browser_cannot_read_it(answered):
    learner = ApiBrowser(answered)
    assert learner.get(URL).status_code == 401


def test_without_a_configured_token_it_does_not_exist(client):
    assert client.get(URL, headers=bearer()).status_code == 404


@pytest.mark.parametrize(("query", "status"), [
    ("?lesson=nope", 404), ("?format=xml", 422), ("?x=1", 422), ("", 200)])
def test_bad_queries_are_4xx(author_app, query, status):
    response = author_app.test_client().get(f"/api/author/item-analysis{query}",
                                            headers=bearer())
    assert response.status_code == status


def test_it_sets_no_learner_cookie(author_app):
    response = author_app.test_client().get(URL, headers=bearer())
    assert response.headers.getlist("Set-Cookie") == []


def test_it_is_documented_in_openapi(author_app):
    spec = author_app.test_client().get("/api/openapi.json").json
    operation = spec["paths"]["/api/author/item-analysis"]["get"]
    assert operation["security"] == [{"author": []}]
    assert "ItemAnalysis" in spec["components"]["schemas"]
