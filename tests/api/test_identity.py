"""Cookie identity, the double-submit CSRF defence, and linking browsers with one-time codes."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from quizsvc.store.models import Browser, LinkCode


def cookie_header(response, name):
    return next(h for h in response.headers.getlist("Set-Cookie") if h.startswith(name + "="))


def test_first_request_sets_an_httponly_lax_browser_cookie_of_at_least_128_bits(client, db):
    response = client.get("/api/me")
    assert response.status_code == 200
    header = cookie_header(response, "quizsvc_browser")
    assert "HttpOnly" in header and "SameSite=Lax" in header and "Secure" not in header
    token = client.get_cookie("quizsvc_browser").value
    assert len(token.split(".")[0]) * 6 >= 128


def test_reading_stores_nothing_and_the_first_write_stores_only_the_cookie_s_hash(client, db):
    for url in ("/api/me", "/", "/api/progress", "/quiz", "/api/reviews/due", "/progress"):
        assert client.get(url).status_code == 200
    assert db.scalars(select(Browser.token_hash)).all() == []
    token = client.get_cookie("quizsvc_browser").value
    csrf = client.get_cookie("csrf_token").value
    assert client.post("/api/link-codes", headers={"X-CSRF-Token": csrf}).status_code == 201
    stored = db.scalars(select(Browser.token_hash)).all()
    assert token not in stored and len(stored) == 1
    assert client.get_cookie("quizsvc_browser").value == token  # the cookie it was given


def test_csrf_cookie_is_readable_by_scripts_and_matches_me(client):
    response = client.get("/api/me")
    header = cookie_header(response, "csrf_token")
    assert "HttpOnly" not in header and "SameSite=Lax" in header
    assert response.json["csrf_token"] == client.get_cookie("csrf_token").value


def test_cookies_are_secure_when_configured(app_config, connection):
    from quizsvc import create_app

    app = create_app({**app_config, "COOKIE_SECURE": True})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    response = app.test_client().get("/api/me")
    assert all("Secure" in h for h in response.headers.getlist("Set-Cookie"))


def test_a_browser_that_stored_nothing_has_no_learner_yet(client):
    assert client.get("/api/me").json["learner"] is None


def test_second_request_keeps_the_same_learner(client):
    first = client.get("/api/me").json["learner"]
    second = client.get("/api/me")
    assert second.json["learner"] == first
    assert not any(h.startswith("quizsvc_browser=") for h in second.headers.getlist("Set-Cookie"))


def test_unknown_browser_cookie_is_replaced_not_adopted(client, db):
    client.set_cookie("quizsvc_browser", "chosen-by-the-client")
    client.get("/api/me")
    assert client.get_cookie("quizsvc_browser").value != "chosen-by-the-client"


@pytest.mark.parametrize(("header", "expected"), [
    (None, 403), ("", 403), ("forged.0000", 403), ("echo", 201)])
def test_state_change_needs_the_csrf_cookie_echoed(browser, header, expected):
    headers = {} if header is None else {"X-CSRF-Token": browser.csrf if header == "echo"
                                         else header}
    response = browser.client.post("/api/link-codes", headers=headers)
    assert response.status_code == expected
    if expected == 403:
        assert response.json["reason"] == "csrf_failed"
        assert "X-CSRF-Token" in response.json["errors"]["headers"]


def test_csrf_token_of_another_browser_is_refused(new_browser):
    alice, mallory = new_browser(), new_browser()
    mallory.client.set_cookie("csrf_token", alice.csrf)
    response = mallory.client.post("/api/link-codes", headers={"X-CSRF-Token": alice.csrf})
    assert response.status_code == 403


def test_html_forms_may_carry_the_token_as_a_hidden_field(browser):
    response = browser.client.post("/api/link-codes", data={"csrf_token": browser.csrf})
    assert response.status_code == 201


def test_link_code_joins_a_second_browser_to_the_same_learner(new_browser, db):
    laptop, phone = new_browser(), new_browser()
    assert laptop.get("/api/me").json["learner"] != phone.get("/api/me").json["learner"]
    issued = laptop.post("/api/link-codes")
    assert issued.status_code == 201
    code = issued.json["code"]
    assert code not in {row.code_hash for row in db.scalars(select(LinkCode))}
    linked = phone.post("/api/link", json={"code": code.lower()})
    assert linked.status_code == 200
    assert linked.json["learner"] == laptop.get("/api/me").json["learner"]
    assert laptop.get("/api/me").json["linked"] is True


def test_link_code_works_once(new_browser):
    laptop, phone, tablet = new_browser(), new_browser(), new_browser()
    code = laptop.post("/api/link-codes").json["code"]
    assert phone.post("/api/link", json={"code": code}).status_code == 200
    again = tablet.post("/api/link", json={"code": code})
    assert again.status_code == 410
    assert (again.json["code"], again.json["reason"]) == (410, "link_code_used")


def test_link_code_expires(new_browser, clock):
    laptop, phone = new_browser(), new_browser()
    code = laptop.post("/api/link-codes").json["code"]
    clock.advance(seconds=601)
    assert phone.post("/api/link", json={"code": code}).status_code == 410


@pytest.mark.parametrize(("body", "field"), [
    ({}, "code"), ({"code": "ZZZZZZZZZZZZ"}, "code"), ({"code": "!!"}, "code"),
    ({"code": "ABC", "extra": 1}, "extra"), ({"code": 5}, "code")])
def test_bad_link_requests_are_422_naming_the_field(browser, body, field):
    response = browser.post("/api/link", json=body)
    assert response.status_code == 422
    assert field in response.json["errors"]["json"]


def test_linking_a_browser_with_progress_of_its_own_asks_first(new_browser, db, bank):
    from tests.support.browsers import Study

    laptop, phone = new_browser(), new_browser()
    study = Study(phone, db, bank)
    session = study.start("27-vllm-v1-ledger", mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    assert study.answer(vid, study.right_answer(vid)).status_code == 201
    before = phone.get("/api/export").json
    code = laptop.post("/api/link-codes").json["code"]

    refused = phone.post("/api/link", json={"code": code})
    assert refused.status_code == 409
    assert refused.json["reason"] == "would_leave_progress"
    assert phone.get("/api/export").json == {**before, "exported_at": before["exported_at"]}
    assert phone.get("/api/me").json["learner"] != laptop.get("/api/me").json["learner"]

    linked = phone.post("/api/link", json={"code": code, "leave_progress": True})
    assert linked.status_code == 200
    assert phone.get("/api/me").json["learner"] == laptop.get("/api/me").json["learner"]


def test_a_browser_without_progress_links_without_being_asked(new_browser):
    laptop, phone = new_browser(), new_browser()
    code = laptop.post("/api/link-codes").json["code"]
    assert phone.post("/api/link", json={"code": code}).status_code == 200


def test_guessing_link_codes_is_rate_limited_per_browser(app_config, connection):
    from quizsvc import create_app
    from tests.support.browsers import ApiBrowser

    app = create_app({**app_config, "LINK_RATE_LIMIT": "3/minute"})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    guesser = ApiBrowser(app)
    statuses = [guesser.post("/api/link", json={"code": "AAAA-BBBB-CCCC"}).status_code
                for _ in range(5)]
    assert statuses == [422, 422, 422, 429, 429]
    page = guesser.client.post("/link/redeem", data={"csrf_token": guesser.csrf,
                                                     "code": "AAAA-BBBB-CCCC"})
    assert page.status_code == 429  # the page's form counts against the same browser


def test_author_views_are_rate_limited(app_config, connection):
    from quizsvc import create_app

    app = create_app({**app_config, "AUTHOR_TOKEN": "sesame", "AUTHOR_RATE_LIMIT": "2/minute"})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    client = app.test_client()
    statuses = [client.get("/api/author/bank").status_code for _ in range(3)]
    assert statuses == [401, 401, 429]
