"""One error envelope everywhere; nothing a client sends produces a 500."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.fake_bank import LESSON_ID

ENVELOPE = {"code", "status", "reason", "message", "errors", "request_id"}


def assert_envelope(response, status):
    assert response.status_code == status, response.json
    assert set(response.json) == ENVELOPE
    assert response.json["code"] == status


def test_malformed_json_is_a_4xx_envelope(browser):
    response = browser.client.post("/api/sessions", data="{not json",
                                   headers={"Content-Type": "application/json",
                                            "X-CSRF-Token": browser.csrf})
    assert 400 <= response.status_code < 500
    assert set(response.json) == ENVELOPE


def test_a_body_that_is_not_an_object_is_422(browser):
    assert_envelope(browser.post("/api/sessions", json=[1, 2]), 422)


def test_a_form_body_where_json_is_expected_is_422_naming_the_missing_field(browser):
    response = browser.client.post("/api/sessions", data={"lesson": LESSON_ID,
                                                          "csrf_token": browser.csrf})
    assert_envelope(response, 422)


def test_an_oversized_body_is_413(app_config, connection):
    from quizsvc import create_app
    from tests.support.browsers import ApiBrowser

    app = create_app({**app_config, "MAX_CONTENT_LENGTH": 1000,
                      "IMPORT_MAX_CONTENT_LENGTH": 4000})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    browser = ApiBrowser(app)
    assert_envelope(browser.post("/api/sessions", json={"pad": "x" * 2000}), 413)
    # an import has a limit of its own: a learner's export must always import back
    assert browser.post("/api/import", json={"pad": "x" * 2000}).status_code == 422
    assert_envelope(browser.post("/api/import", json={"pad": "x" * 5000}), 413)


def test_validation_errors_name_location_and_field(browser):
    response = browser.post("/api/sessions", json={"lesson": LESSON_ID, "size": -1})
    assert_envelope(response, 422)
    assert response.json["reason"] == "validation_error"
    assert "size" in response.json["errors"]["json"]
    assert "size" in response.json["message"]


@pytest.mark.parametrize(("method", "path", "body", "code", "status", "reason"), [
    ("post", "/api/sessions", {"lesson": LESSON_ID, "size": -1}, 422, "Unprocessable Entity",
     "validation_error"),
    ("get", "/api/sessions/no-such-session", None, 404, "Not Found", "unknown_session"),
    ("get", "/api/no-such-route", None, 404, "Not Found", "not_found"),
    ("delete", "/api/lessons", None, 405, "Method Not Allowed", "method_not_allowed"),
])
def test_the_envelope_keeps_flask_smorests_code_and_status_and_adds_a_reason(
        browser, method, path, body, code, status, reason):
    response = getattr(browser, method)(path, **({"json": body} if body else {}))
    assert (response.status_code, response.json["code"], response.json["status"],
            response.json["reason"]) == (code, code, status, reason)


def test_a_bug_is_a_500_envelope_without_detail(app, client):
    @app.route("/boom")
    def boom():
        raise RuntimeError("secret internals")

    response = client.get("/boom")
    assert_envelope(response, 500)
    assert "secret" not in response.get_data(as_text=True)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=4),
    max_leaves=12)

bodies = st.one_of(
    json_values,
    st.fixed_dictionaries({}, optional={
        "lesson": st.one_of(st.just(LESSON_ID), json_values),
        "mode": st.one_of(st.sampled_from(["review", "quiz"]), json_values),
        "size": st.one_of(st.integers(-5, 60), json_values),
        "variant_id": json_values, "answer": json_values, "explanation": json_values,
        "rating": st.one_of(st.integers(-1, 6), st.sampled_from(["good", "again"]),
                            json_values),
        "note": json_values, "code": json_values, "requests": json_values,
        "config": json_values, "format": json_values}))

TARGETS = ["/api/sessions", "/api/attempts", "/api/attempts/1/explanation",
           "/api/attempts/1/rating", "/api/self-assessments/budget-split", "/api/link",
           "/api/simulate", "/api/import"]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(url=st.sampled_from(TARGETS), body=bodies, key=st.text(max_size=250))
def test_no_request_body_produces_a_500(browser, url, body, key):
    method = "PUT" if "self-assessments" in url else "POST"
    headers = {"Idempotency-Key": key} if key and key.isprintable() and key.isascii() else {}
    response = browser.send(method, url, json=body, headers=headers)
    assert response.status_code < 500, (url, body, response.json)
    if response.status_code >= 400:
        assert set(response.json) == ENVELOPE


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/reviews/due", "/api/progress", "/api/mastery",
                            "/api/export", f"/api/lessons/{LESSON_ID}", "/api/lessons"]),
       query=st.dictionaries(st.sampled_from(["lesson", "limit", "lang", "format", "x"]),
                             st.text(max_size=12), max_size=3))
def test_no_query_string_produces_a_500(browser, path, query):
    response = browser.get(path, query_string=query)
    assert response.status_code < 500, (path, query, response.json)


@pytest.mark.parametrize("url", ["/api/attempts/99999999999999999999999",
                                 "/api/sessions/" + "x" * 500 + "/next",
                                 "/api/self-assessments/" + "q" * 500])
def test_absurd_ids_are_404(browser, url):
    assert browser.get(url).status_code == 404


ZH = {"Accept-Language": "zh-Hans"}


def test_the_envelope_says_a_refusal_in_the_accepted_language_and_keeps_its_english(browser):
    response = browser.get("/api/sessions/no-such-session", headers=ZH)
    assert response.status_code == 404
    body = response.json
    assert (body["reason"], body["message"]) == ("unknown_session", "No such session.")
    assert body["said"] == {"message": "没有这一轮学习。", "errors": {}}


def test_a_field_refusal_is_said_under_its_field(browser):
    response = browser.post("/api/sessions", json={"lesson": "nope"}, headers=ZH)
    assert response.status_code == 422
    assert response.json["errors"] == {"json": {"lesson": ["unknown lesson"]}}
    assert response.json["said"]["errors"] == {"json": {"lesson": ["没有这一课"]}}
    assert response.json["said"]["message"] == "lesson: 没有这一课"


def test_marshmallows_own_messages_are_said_too(browser):
    response = browser.post("/api/sessions", json={}, headers=ZH)
    assert response.status_code == 422
    assert response.json["errors"]["json"]["lesson"] == ["Missing data for required field."]
    assert response.json["said"]["errors"]["json"]["lesson"] == ["缺少必填字段。"]


def test_without_an_accepted_language_the_envelope_is_english_only(browser):
    response = browser.get("/api/sessions/no-such-session")
    assert set(response.json) == ENVELOPE
    english = browser.get("/api/sessions/no-such-session", headers={"Accept-Language": "en"})
    assert english.json["said"]["message"] == "No such session."
