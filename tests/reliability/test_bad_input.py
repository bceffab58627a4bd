"""Hostile input gets a 4xx naming what is wrong, on SQLite and PostgreSQL, never a 500.

Oversized bodies, deep JSON, wrong content types, huge and negative numbers, NaN, Unicode of
every kind in every text field (stored text read back exactly), and ``/api/simulate``
scenarios that would run forever or too long.
"""

from __future__ import annotations

import io
import json
import secrets
from typing import Any

import pytest
from sqlalchemy import select

from quizsvc import create_app
from quizsvc.store.models import Browser, ServedVariant
from quizsvc.study.linking import digest
from tests.support.browsers import ApiBrowser

LESSON = "vllm-v1-ledger"
ENVELOPE = {"code", "status", "reason", "message", "errors", "request_id"}
# Text a learner might type, from every corner of Unicode a database could mangle.
UNICODE = [
    "调度账本：token_budget 与 num_computed_tokens",
    "🦙🚀 emoji outside the BMP \U0010fffd",
    "مرحبا بالعالم — right to left",
    "e\u0301 combining, \u200b zero width, \u200d joiner, \ufeff BOM",
    "line\u2028separator\u2029paragraph\r\n\ttabs",
    "\\\" quotes ' and <script>alert(1)</script> & %s {0}",
    "ｆｕｌｌｗｉｄｔｈ ﬁ ligature Ω≈ç√∫",
]
UNSTORABLE = {"NUL": '"a\\u0000b"', "lone surrogate": '"a\\ud800b"'}


@pytest.fixture
def browser(app: Any) -> ApiBrowser:
    """Return one browser that has made its first request."""
    return ApiBrowser(app)


def learner_of(db: Any, browser: ApiBrowser) -> int:
    """Return the learner id behind a browser."""
    token = browser.client.get_cookie("quizsvc_browser").value
    return db.scalar(select(Browser.learner_id).where(Browser.token_hash == digest(token)))


def serve_question(db: Any, bank: Any, browser: ApiBrowser, kind: str, clock: Any) -> str:
    """Hand the browser a variant of a question of ``kind``; return its id."""
    question = next(q for q in bank.questions.values() if str(q.kind) == kind)
    variant_id = secrets.token_urlsafe(16)
    db.add(ServedVariant(id=variant_id, learner_id=learner_of(db, browser),
                         question_id=question.id, lesson=question.lesson, kind=kind,
                         seed=7, bank_version=str(bank.version), served_at=clock(),
                         answered=False, open_book=False))
    db.commit()
    return variant_id


def raw_post(browser: ApiBrowser, url: str, data: bytes | str, content_type: str,
             method: str = "POST", headers: dict[str, str] | None = None) -> Any:
    """Send a body exactly as given, with the CSRF header."""
    return browser.client.open(url, method=method, data=data, headers={
        "Content-Type": content_type, "X-CSRF-Token": browser.csrf, **(headers or {})})


def assert_refused(response: Any, status: int, location: str | None = None,
                   field: str | None = None) -> None:
    """Check a refusal: status, the envelope, and the location/field it names."""
    assert response.status_code == status, response.get_data(as_text=True)[:300]
    assert set(response.json) == ENVELOPE and response.json["code"] == status
    if field is not None:
        assert field in response.json["errors"][location], response.json


# ---------------------------------------------------------------- size and shape


def test_a_body_over_max_content_length_is_413(browser):
    padding = "x" * (1_048_576 + 1)
    response = raw_post(browser, "/api/sessions", json.dumps({"lesson": padding}),
                        "application/json")
    assert_refused(response, 413)


def test_an_import_over_its_own_limit_is_413(browser):
    padding = "x" * (33_554_432 + 1)
    response = raw_post(browser, "/api/import", json.dumps({"format": padding}),
                        "application/json")
    assert_refused(response, 413)


def test_a_chunked_body_without_a_length_over_the_limit_is_413(browser):
    response = browser.client.post(
        "/api/simulate", input_stream=io.BytesIO(b" " * 2_000_000),
        headers={"Content-Type": "application/json", "X-CSRF-Token": browser.csrf},
        environ_overrides={"CONTENT_LENGTH": "", "HTTP_TRANSFER_ENCODING": "chunked",
                           "wsgi.input_terminated": True})
    assert_refused(response, 413)


@pytest.mark.parametrize("depth", [33, 1000, 200_000])
def test_json_nested_too_deeply_is_422(browser, depth):
    body = '{"lesson": ' + "[" * depth + "]" * depth + "}"
    assert_refused(raw_post(browser, "/api/sessions", body, "application/json"), 422, "json",
                   "_schema")


def test_json_nested_to_the_limit_reaches_validation(browser):
    body = '{"lesson": ' + "[" * 31 + "]" * 31 + "}"
    assert_refused(raw_post(browser, "/api/sessions", body, "application/json"), 422, "json",
                   "lesson")


@pytest.mark.parametrize("body", ['{"size": NaN}', '{"size": Infinity}', '[-Infinity]',
                                  '{"size": ' + "9" * 5000 + "}"])
def test_non_json_numbers_and_numbers_too_long_to_read_are_422(browser, body):
    assert_refused(raw_post(browser, "/api/sessions", body, "application/json"), 422, "json",
                   "_schema")


JSON_ENDPOINTS = [
    ("POST", "/api/sessions"), ("POST", "/api/attempts"), ("POST", "/api/attempts/1/rating"),
    ("POST", "/api/attempts/1/explanation"), ("POST", "/api/link"), ("POST", "/api/import"),
    ("POST", "/api/simulate"), ("PUT", "/api/self-assessments/budget"),
]


@pytest.mark.parametrize(("method", "url"), JSON_ENDPOINTS)
@pytest.mark.parametrize("content_type", [
    "text/plain", "application/xml", "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x", "application/octet-stream", ""])
def test_a_body_that_is_not_declared_json_is_422_naming_the_content_type(
        browser, method, url, content_type):
    response = raw_post(browser, url, '{"lesson": "vllm-v1-ledger"}', content_type, method,
                        headers={"Idempotency-Key": "k"})
    assert_refused(response, 422, "headers", "Content-Type")


@pytest.mark.parametrize("body", [b"\xff\xfe{", b'{"lesson": "\xc3"}', b"{not json"])
def test_a_body_that_is_not_utf8_json_is_400(browser, body):
    assert_refused(raw_post(browser, "/api/sessions", body, "application/json"), 400)


# ---------------------------------------------------------------- numbers


HUGE = [-1, 0, 2**31, 2**63, 10**30, 1.5, 1e308, -1e308, "7", True, None]


@pytest.mark.parametrize("size", [*HUGE, 51])
def test_session_size_out_of_range_or_not_an_integer_is_422(browser, size):
    response = browser.post("/api/sessions", json={"lesson": LESSON, "size": size})
    assert_refused(response, 422, "json", "size")


@pytest.mark.parametrize("rating", [*HUGE, 5, 10**400])
def test_self_assessment_rating_out_of_range_is_422(browser, rating):
    response = browser.put("/api/self-assessments/budget", json={"rating": rating})
    assert_refused(response, 422, "json", "rating")


@pytest.mark.parametrize("limit", ["-1", "101", str(10**30), "1e3", "nan", "½", ""])
def test_due_limit_out_of_range_is_422(browser, limit):
    assert_refused(browser.get(f"/api/reviews/due?limit={limit}"), 422, "query", "limit")


@pytest.mark.parametrize("seed", ["-1", str(2**63), str(10**30), "1.5", "0x10"])
def test_author_preview_seed_out_of_range_is_422(app_config, connection, seed):
    app = create_app({**app_config, "AUTHOR_TOKEN": "t"})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    response = app.test_client().get(f"/api/author/variants/budget-split?seed={seed}",
                                     headers={"Authorization": "Bearer t"})
    assert_refused(response, 422, "query", "seed")


@pytest.mark.parametrize("attempt_id", ["-1", "0", str(2**31), str(10**30), "1e3"])
def test_impossible_attempt_ids_are_404(browser, attempt_id):
    assert browser.get(f"/api/attempts/{attempt_id}").status_code == 404
    assert browser.post(f"/api/attempts/{attempt_id}/rating",
                        json={"rating": "good"}).status_code == 404


@pytest.mark.parametrize("answer", [[10**30, -10**30], [1e308, -1e308], [-1, -2], [0.5, 2],
                                    [2**63, 2**64], [True, False], ["1", "2"], [], [[1], [2]]])
def test_extreme_numeric_answers_are_graded_or_422_and_stored_exactly(browser, db, bank, clock,
                                                                      answer):
    variant_id = serve_question(db, bank, browser, "numeric", clock)
    response = browser.post("/api/attempts", json={"variant_id": variant_id, "answer": answer},
                            headers={"Idempotency-Key": "extreme"})
    assert response.status_code in (201, 422), response.json
    if response.status_code == 422:
        assert "answer" in response.json["errors"]["json"]
        return
    assert response.json["correct"] is False
    exported = browser.get("/api/export").json["attempts"]
    assert [a["answer"] for a in exported] == [answer]


# ---------------------------------------------------------------- Unicode in every text field


@pytest.mark.parametrize("text", UNICODE)
def test_unicode_notes_explanations_and_text_answers_come_back_exactly(browser, db, bank,
                                                                       clock, text):
    section = next(iter(bank.lessons.values())).sections[0].id
    stored = browser.put(f"/api/self-assessments/{section}", json={"rating": 2, "note": text})
    assert stored.status_code in (200, 201) and stored.json["note"] == text
    assert browser.get(f"/api/self-assessments/{section}").json["note"] == text

    free_text = serve_question(db, bank, browser, "explain", clock)
    response = browser.post("/api/attempts", json={"variant_id": free_text, "answer": text},
                            headers={"Idempotency-Key": f"text-{text[:20]}"})
    assert response.status_code == 201, response.json

    numeric = serve_question(db, bank, browser, "numeric", clock)
    wrong = browser.post("/api/attempts", json={"variant_id": numeric, "answer": [-1, -1]},
                         headers={"Idempotency-Key": f"numeric-{text[:20]}"}).json
    explained = browser.explain(wrong, explanation=text)
    assert explained.status_code == 200
    assert explained.json["reveal"]["explanation"] == text.strip()

    exported = browser.get("/api/export").json
    assert exported["self_assessments"][0]["note"] == text
    assert [a["answer"] for a in exported["attempts"] if a["kind"] == "explain"] == [text]


TEXT_FIELDS: dict[str, tuple[str, str, Any]] = {
    # field: (method, url, body with {} where the text goes); expected statuses come below
    "sessions.lesson": ("POST", "/api/sessions", {"lesson": "{}"}),
    "sessions.mode": ("POST", "/api/sessions", {"lesson": LESSON, "mode": "{}"}),
    "attempts.variant_id": ("POST", "/api/attempts", {"variant_id": "{}", "answer": "{}"}),
    "rating.rating": ("POST", "/api/attempts/1/rating", {"rating": "{}"}),
    "explanation.explanation": ("POST", "/api/attempts/1/explanation", {"explanation": "{}"}),
    "explanation.rule": ("POST", "/api/attempts/1/explanation",
                         {"explanation": "a sentence of words", "rule": "{}"}),
    "link.code": ("POST", "/api/link", {"code": "{}"}),
    "self_assessment.note": ("PUT", "/api/self-assessments/nowhere", {"rating": 1, "note": "{}"}),
    "simulate.id": ("POST", "/api/simulate", {"requests": [{"id": "{}", "prompt_len": 3}]}),
    "import.format": ("POST", "/api/import", {"format": "{}"}),
    "path.session": ("GET", "/api/sessions/{}", None),
    "path.next": ("GET", "/api/sessions/{}/next", None),
    "path.ref": ("GET", "/api/self-assessments/{}", None),
    "path.lesson": ("GET", "/api/lessons/{}", None),
    "query.lesson": ("GET", "/api/reviews/due?lesson={}", None),
    "query.lang": ("GET", f"/api/lessons/{LESSON}?lang={{}}", None),
    "query.format": ("GET", "/api/export?format={}", None),
    "query.unknown": ("GET", "/api/progress?{}=1", None),
}


def fill(template: Any, text: str) -> Any:
    """Put ``text`` wherever the template has ``"{}"``."""
    if isinstance(template, str):
        return template.replace("{}", text)
    if isinstance(template, dict):
        return {key: fill(value, text) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(value, text) for value in template]
    return template


@pytest.mark.parametrize("field", sorted(TEXT_FIELDS))
def test_unicode_in_every_text_field_is_never_a_500(browser, field):
    from urllib.parse import quote

    method, url, body = TEXT_FIELDS[field]
    for text in UNICODE:
        target = fill(url, quote(text, safe=""))
        response = browser.send(method, target, json=fill(body, text),
                                headers={"Idempotency-Key": "unicode"})
        assert response.status_code < 500, (field, text, response.json)
        if response.status_code >= 400:
            assert set(response.json) == ENVELOPE
        if field == "simulate.id":
            assert response.status_code == 200 and text in response.json["final"], response.json


@pytest.mark.parametrize("field", sorted(name for name, (_, _, body) in TEXT_FIELDS.items()
                                         if body is not None))
@pytest.mark.parametrize("problem", sorted(UNSTORABLE))
def test_nul_and_lone_surrogates_in_json_text_are_422_naming_the_field(browser, field, problem):
    method, url, body = TEXT_FIELDS[field]
    raw = json.dumps(body).replace('"{}"', UNSTORABLE[problem])
    response = raw_post(browser, url, raw, "application/json", method,
                        headers={"Idempotency-Key": "unstorable"})
    assert_refused(response, 422)
    named = json.dumps(response.json["errors"]["json"])
    assert problem.split()[-1].lower() in response.json["message"].lower(), named


@pytest.mark.parametrize("url", ["/api/sessions/a%00b", "/api/self-assessments/x%00",
                                 "/api/sessions/a%00b/next", "/study/a%00b"])
def test_a_nul_in_a_path_is_404(browser, url):
    assert browser.get(url).status_code == 404


@pytest.mark.parametrize(("url", "field"), [("/api/reviews/due?lesson=a%00", "lesson"),
                                            ("/api/progress?lesson=%00", "lesson")])
def test_a_nul_in_a_query_is_422_naming_it(browser, url, field):
    assert_refused(browser.get(url), 422, "query", field)


def test_a_nul_in_a_header_is_422_naming_it(browser):
    response = browser.post("/api/attempts", json={"variant_id": "x", "answer": 1},
                            headers={"Idempotency-Key": "a\x00b"})
    assert_refused(response, 422, "headers", "Idempotency-Key")


def test_a_nul_in_a_web_form_is_refused_on_a_page(browser):
    response = browser.client.post(f"/lessons/{LESSON}/self-assessment", data={
        "csrf_token": browser.csrf, "ref": "budget", "rating": "2", "note": "a\x00b"})
    assert response.status_code == 422 and response.mimetype == "text/html"


def test_latin1_idempotency_keys_work(browser, db, bank, clock):
    variant_id = serve_question(db, bank, browser, "numeric", clock)
    body = {"variant_id": variant_id, "answer": [0, 0]}
    first = browser.post("/api/attempts", json=body, headers={"Idempotency-Key": "clé-ñ-µ"})
    again = browser.post("/api/attempts", json=body, headers={"Idempotency-Key": "clé-ñ-µ"})
    assert first.status_code == again.status_code == 201
    assert again.json["id"] == first.json["id"] and again.headers["Idempotent-Replayed"]


# ---------------------------------------------------------------- the sandbox's bounds


FOREVER = {"requests": [{"id": "A", "prompt_len": 3, "max_tokens": 4096}]}


@pytest.mark.parametrize(("change", "field"), [
    ({"config": {"max_steps": 10**6}}, "config.max_steps"),
    ({"config": {"max_steps": 2**63}}, "config.max_steps"),
    ({"requests": [{"id": "A", "prompt_len": 3, "max_tokens": 10**9}]}, "requests[0].max_tokens"),
    ({"requests": [{"id": str(i), "prompt_len": 3} for i in range(10_000)]}, "requests"),
    ({"requests": [{"id": "A", "prompt_len": 10**30}]}, "requests[0].prompt_len"),
    ({"requests": [{"id": "A", "prompt_len": 3, "arrival_step": 10**12}]},
     "requests[0].arrival_step"),
    ({"config": {"num_gpu_blocks": 10**12}}, "config.num_gpu_blocks"),
    ({"config": {"max_num_batched_tokens": 10**12}}, "config.max_num_batched_tokens"),
    ({"config": {"max_model_len": 10**12}}, "config.max_model_len"),
    ({"config": {"num_speculative_tokens": 10**6}}, "config.num_speculative_tokens"),
    ({"requests": [{"id": "A", "prompt_len": -5}]}, "requests[0].prompt_len"),
])
def test_a_scenario_that_would_run_forever_or_too_long_is_422_naming_the_field(browser, change,
                                                                               field):
    response = browser.post("/api/simulate", json={**FOREVER, **change})
    assert_refused(response, 422, "json", field)


def test_a_scenario_that_never_finishes_stops_at_the_step_bound(browser):
    trace = browser.post("/api/simulate", json=FOREVER).json
    assert len(trace["steps"]) == 200
    assert trace["final"]["A"]["status"] == "RUNNING" and trace["final"]["A"][
        "finished_step"] is None


HEAVIEST = {"config": {"max_num_batched_tokens": 65_536, "max_num_seqs": 256,
                       "num_gpu_blocks": 100_000, "max_model_len": 65_536,
                       "num_speculative_tokens": 16, "enable_prefix_caching": True,
                       "block_size": 1},
            "requests": [{"id": f"r{i}", "prompt_token_ids": [7] * 4096, "max_tokens": 4096}
                         for i in range(16)]}


def test_the_heaviest_scenario_within_bounds_is_answered_in_a_small_summary(
        app_config, connection):
    from quizsvc import create_app
    from tests.support.browsers import ApiBrowser

    app = create_app({**app_config, "SIMULATE_CPU_SECONDS": 10.0})  # the test's own pace
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    response = ApiBrowser(app).post("/api/simulate", json=HEAVIEST)
    assert response.status_code == 200
    assert response.json["detail"] == "summary"  # no per-request snapshots unless asked
    assert len(response.json["steps"]) == 200 and len(response.json["final"]) == 16
    assert "requests" not in response.json["steps"][0]
    assert len(response.get_data()) < 200_000  # the full trace is over 3 MB


def test_a_scenario_over_the_cpu_budget_is_422_on_the_scenario(app_config, connection):
    from quizsvc import create_app
    from tests.support.browsers import ApiBrowser

    app = create_app({**app_config, "SIMULATE_CPU_SECONDS": 0.005})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    response = ApiBrowser(app).post("/api/simulate", json=HEAVIEST)
    assert response.status_code == 422
    assert response.json["reason"] == "too_costly"
    assert "scenario" in response.json["errors"]["json"]


WEB_FORMS: dict[str, tuple[str, dict[str, str]]] = {
    # form: (URL, fields with {} where the text goes)
    "start": ("/study", {"mode": "{}", "lesson": "{}", "size": "{}"}),
    "self-assessment": (f"/lessons/{LESSON}/self-assessment",
                        {"ref": "{}", "rating": "2", "note": "{}"}),
    "answer": ("/study/{}/answer", {"variant_id": "{}", "idempotency_key": "{}",
                                    "answer": "{}", "answer.0": "{}"}),
    "explanation": ("/study/x/attempts/1/explanation", {"explanation": "{}", "rule": "{}"}),
    "rating": ("/study/x/attempts/1/rating", {"rating": "{}"}),
    "link": ("/link/redeem", {"code": "{}"}),
}


@pytest.mark.parametrize("form", sorted(WEB_FORMS))
def test_unicode_in_every_web_form_field_is_never_a_500(browser, form):
    from urllib.parse import quote

    url, fields = WEB_FORMS[form]
    for text in UNICODE:
        response = browser.client.post(fill(url, quote(text, safe="")), data={
            "csrf_token": browser.csrf, **fill(fields, text)})
        assert response.status_code < 500, (form, text, response.get_data(as_text=True)[:300])
        if response.mimetype == "application/json":  # a URL that matches no page at all
            assert response.status_code == 404 and set(response.json) == ENVELOPE


def test_a_unicode_note_posted_by_the_page_form_comes_back_exactly(browser, bank):
    section = next(iter(bank.lessons.values())).sections[0].id
    for text in UNICODE:
        saved = browser.client.post(f"/lessons/{LESSON}/self-assessment", data={
            "csrf_token": browser.csrf, "ref": section, "rating": "3", "note": text})
        assert saved.status_code == 303
        assert browser.get(f"/api/self-assessments/{section}").json["note"] == text
