"""Hostile input to every operation and every form is a 4xx naming the field, never a 500.

What an attacker sends that a schema-driven fuzzer rarely reaches: strings of thousands of
opening brackets (the graders' list parsing used to recurse out), numbers past what a database
stores (``1e999`` reads as infinity; 5,000 digits overflow ``int()``), non-ASCII bytes where a
header or cookie holds a secret (``hmac.compare_digest`` refuses non-ASCII text), and ISO
times that overflow when converted to UTC. Every API operation (walked from the URL map, with
real ids of a learner who has studied) and every page form gets each of them in every field
it reads; none may answer 5xx, and a refusal must not store anything first.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc.store.models import Attempt, Browser, Learner
from tests.support.browsers import ApiBrowser, Study

LESSON = "vllm-v1-ledger"  # the real bank (tests/reliability/conftest.py)
BRACKETS = "[" * 5000
HOSTILE: dict[str, Any] = {
    "brackets": BRACKETS,
    "braces": "{" * 5000,
    "nested brackets in text": "[[[[" * 1000 + "1",
    "5000 digits": "9" * 5000,
    "huge float": 1e308 * 10,  # inf once parsed: json.dumps writes Infinity... sent raw below
    "negative digits": "-" + "1" * 5000,
    "non-ASCII": "é" * 300,
    "overflowing time": "9999-12-31T23:59:59-12:00",
}
RAW_NUMBERS = [b"1e999", b"-1e999", b"9" * 5000]


def count(db: Any, model: Any) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(model))


@pytest.fixture
def studied(browser: ApiBrowser, db: Any, bank: Any) -> dict[str, Any]:
    """A learner with one answered attempt, one open variant of each kind, a link code."""
    study = Study(browser, db, bank)
    session = study.start(LESSON, mode="review", size=4)
    open_variants = {}
    attempt_id = None
    while not (item := study.next(session["id"]))["done"]:
        question = item["question"]
        if attempt_id is None:
            attempt_id = study.answer(question["variant_id"],
                                      study.wrong_answer(question["variant_id"])).json["id"]
            continue
        open_variants[question["kind"]] = question["variant_id"]
        break
    section = next(iter(bank.lessons.values())).sections[0].id
    return {"session_id": session["id"], "attempt_id": attempt_id,
            "variant_id": next(iter(open_variants.values())), "lesson_id": LESSON,
            "ref": section, "question_id": sorted(bank.questions)[0], "study": study}


def api_operations(app: Any) -> list[tuple[str, str]]:
    """Return every (method, rule) of the API."""
    return sorted({(method, rule.rule) for rule in app.url_map.iter_rules()
                   if rule.rule.startswith("/api/")
                   for method in rule.methods - {"HEAD", "OPTIONS"}})


def fill_path(rule: str, ids: dict[str, Any], hostile: str | None = None) -> str:
    """Fill a URL rule's parameters with real ids (or one hostile text)."""
    for converter in ("string:", "int:", ""):
        for name, value in ids.items():
            token = f"<{converter}{name}>"
            if token in rule:
                rule = rule.replace(token, str(value if hostile is None else hostile))
    return rule


FIELDS = ("variant_id", "answer", "explanation", "rating", "lesson", "mode", "size", "code",
          "note", "desired_retention", "leave_progress", "requests", "config", "format")


def test_every_api_operation_refuses_hostile_values_in_every_field(app: Any, studied: dict,
                                                                  browser: ApiBrowser) -> None:
    failures = []
    for method, rule in api_operations(app):
        url = fill_path(rule, studied)
        for label, value in HOSTILE.items():
            bodies = [{name: value} for name in FIELDS] if method != "GET" else [None]
            queries = ([f"?{name}={value}" for name in ("lang", "lesson", "limit", "seed",
                                                        "format", "A.state")]
                       if isinstance(value, str) and len(value) < 400 else [""])
            for body in bodies:
                for query in queries:
                    response = browser.client.open(
                        url + query, method=method, json=body,
                        headers={"X-CSRF-Token": browser.csrf, "Idempotency-Key": "k-hostile"})
                    if response.status_code >= 500:
                        failures.append((method, rule, label, body and list(body), query[:20],
                                         response.status_code))
    assert failures == []


@pytest.mark.parametrize("raw", RAW_NUMBERS)
def test_numbers_no_column_holds_are_422_naming_the_field(studied: dict, browser: ApiBrowser,
                                                          raw: bytes) -> None:
    body = b'{"variant_id": "%s", "answer": %s}' % (studied["variant_id"].encode(), raw)
    response = browser.client.post("/api/attempts", data=body, headers={
        "X-CSRF-Token": browser.csrf, "Idempotency-Key": "k-number",
        "Content-Type": "application/json"})
    assert response.status_code == 422, response.json
    assert response.json["errors"]


@pytest.mark.parametrize("kind", ["vector", "order", "multi"])
def test_an_answer_of_thousands_of_brackets_is_422_on_the_answer(
        browser: ApiBrowser, db: Any, bank: Any, kind: str) -> None:
    study = Study(browser, db, bank)
    for _ in range(10):
        session = study.start(LESSON, mode="quiz", size=50)
        while not (item := study.next(session["id"]))["done"]:
            question = item["question"]
            if question["input"]["type"] == kind:
                response = study.answer(question["variant_id"], BRACKETS)
                assert response.status_code == 422, response.json
                assert "answer" in response.json["errors"]["json"]
                return
            study.answer(question["variant_id"], study.right_answer(question["variant_id"]))
    pytest.fail(f"no {kind} question was served")


@pytest.mark.parametrize("where", ["header", "cookie"])
def test_a_non_ascii_csrf_token_is_403_and_stores_no_learner(app: Any, db: Any, where: str
                                                             ) -> None:
    client = app.test_client()
    client.get("/api/me")
    learners, browsers = count(db, Learner), count(db, Browser)
    if where == "cookie":
        client.set_cookie("csrf_token", "é")
        headers = {"X-CSRF-Token": "é"}
    else:
        headers = {"X-CSRF-Token": "nonce.é" + "0" * 31}
    for url in ("/api/link-codes", "/api/sessions", "/study", "/link/code"):
        response = client.post(url, headers=headers, json={"lesson": LESSON}
                               if url == "/api/sessions" else None)
        assert response.status_code == 403, (url, response.status_code)
    assert (count(db, Learner), count(db, Browser)) == (learners, browsers)


WEB_FORMS: dict[str, dict[str, str]] = {
    "/study": {"lesson": LESSON, "mode": "quiz", "size": "{}"},
    f"/lessons/{LESSON}/self-assessment": {"ref": "{ref}", "rating": "{}", "note": "{}"},
    "/study/{session}/answer": {"variant_id": "{variant}", "idempotency_key": "{}",
                                "answer": "{}", "answer.0": "{}", "answer.1": "{}"},
    "/study/{session}/attempts/{attempt}/explanation": {"explanation": "{}"},
    "/study/{session}/attempts/{attempt}/rating": {"rating": "{}"},
    "/link/redeem": {"code": "{}", "leave_progress": "{}"},
    "/progress/retention": {"desired_retention": "{}"},
}


def test_every_page_form_refuses_hostile_values_in_every_field(studied: dict,
                                                              browser: ApiBrowser) -> None:
    failures = []
    for url, fields in WEB_FORMS.items():
        target = (url.replace("{session}", studied["session_id"])
                  .replace("{attempt}", str(studied["attempt_id"])))
        for label, value in HOSTILE.items():
            text = str(value)
            data = {name: (field.replace("{variant}", studied["variant_id"])
                           .replace("{ref}", studied["ref"]).replace("{}", text))
                    for name, field in fields.items()}
            response = browser.client.post(target, data={"csrf_token": browser.csrf, **data})
            if response.status_code >= 500:
                failures.append((url, label, response.status_code))
    assert failures == []


def test_a_hostile_answer_stored_by_an_old_import_still_shows(studied: dict, db: Any,
                                                              browser: ApiBrowser) -> None:
    """An attempt whose stored answer no grader reads (as an import once let in) still
    shows, without per-element marks, instead of failing every time it is opened."""
    attempt = db.get(Attempt, studied["attempt_id"])
    attempt.answer = BRACKETS
    db.commit()
    response = browser.get(f"/api/attempts/{studied['attempt_id']}")
    assert response.status_code == 200, response.json
    assert response.json["per_element"] == []


def test_an_import_with_a_time_no_column_holds_is_422_naming_it(new_browser: Any,
                                                                studied: dict,
                                                                browser: ApiBrowser) -> None:
    document = browser.get("/api/export").json
    assert document["attempts"], document
    for field, value in (("served_at", "9999-12-31T23:59:59-12:00"),
                         ("submitted_at", "0001-01-01T00:00:00+14:00")):
        forged = copy.deepcopy(document)
        forged["attempts"][0][field] = value
        response = new_browser().post("/api/import", json=forged)
        assert response.status_code == 422, (field, response.json)
        assert field in str(response.json["errors"])
