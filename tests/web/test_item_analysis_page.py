"""The author's item-analysis page without JavaScript: a posted token signs the browser in
(never a token in a URL), then tables, CSV downloads, zh and en."""

from __future__ import annotations

import csv
import io
import logging

import pytest
from sqlalchemy import func, select

from quizsvc.http.logs import log_handler
from quizsvc.store.models import Browser, Learner
from tests.api.test_item_analysis import take_quiz
from tests.http.test_logs import written
from tests.support.browsers import FormBrowser
from tests.support.clock import FakeClock
from tests.support.cohorts import AUTHOR_TOKEN

TOKEN = AUTHOR_TOKEN
PAGE = "/author/item-analysis"


@pytest.fixture
def signed_in(author_app):
    browser = FormBrowser(author_app)
    response = browser.post("/author/sign-in", token=TOKEN)
    assert response.status_code == 303 and response.headers["Location"].endswith(PAGE)
    return browser


def test_without_a_session_the_page_asks_for_the_token(author_app):
    response = FormBrowser(author_app).get(PAGE)
    assert response.status_code == 401
    html = response.get_data(as_text=True)
    assert 'id="author-sign-in"' in html and 'type="password"' in html
    assert 'id="questions-table"' not in html


def test_a_wrong_token_is_refused_with_the_form_again(author_app):
    browser = FormBrowser(author_app)
    response = browser.post("/author/sign-in", token="wrong")
    assert response.status_code == 401
    assert 'aria-invalid="true"' in response.get_data(as_text=True)
    assert browser.get(PAGE).status_code == 401


def test_signing_in_needs_the_csrf_echo(author_app):
    browser = FormBrowser(author_app)
    assert browser.client.post("/author/sign-in", data={"token": TOKEN}).status_code == 403
    assert browser.get(PAGE).status_code == 401


def test_signing_in_stores_no_learner(author_app, db):
    before = db.scalar(select(func.count()).select_from(Learner))
    browser = FormBrowser(author_app)
    browser.post("/author/sign-in", token=TOKEN)
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(Learner)) == before
    assert db.scalar(select(func.count()).select_from(Browser)) == 0


def test_the_session_cookie_holds_no_token_and_works_only_in_its_browser(author_app, signed_in):
    cookie = signed_in.client.get_cookie("quizsvc_author", path="/author")
    assert cookie is not None and TOKEN not in cookie.value
    assert cookie.http_only and cookie.same_site == "Strict"
    other = FormBrowser(author_app)
    other.client.set_cookie("quizsvc_author", cookie.value, path="/author")
    assert other.get(PAGE).status_code == 401


def test_the_session_ends_after_twelve_hours(author_app, signed_in, clock: FakeClock):
    assert signed_in.get(PAGE).status_code == 200
    clock.advance(hours=13)
    assert signed_in.get(PAGE).status_code == 401


def test_a_signed_in_author_sees_questions_rules_and_misconceptions(author_app, signed_in, db,
                                                                    bank):
    take_quiz(author_app, db, bank, right=True)
    take_quiz(author_app, db, bank, right=False)
    html = signed_in.get(PAGE + "?lang=en").get_data(as_text=True)
    assert "<script" not in html.split("</head>")[1]  # nothing on the page needs a script
    assert 'id="questions-table"' in html and 'id="rules-table"' in html
    assert "2 learners" in html and "50%" in html
    assert "— (2 learners)" in html  # no discrimination under the minimum count
    assert "Split evenly" in html and "#rule-running-first" in html
    # the charts, each drawn as SVG with its table a fold away
    assert 'id="facility-chart"' in html and 'id="discrimination-chart"' in html
    assert 'id="facility-chart-table"' in html and "<svg" in html
    assert "No figure yet: each needs at least 20 learners" in html
    zh = signed_in.get(PAGE + "?lang=zh").get_data(as_text=True)
    assert "题目分析" in zh


def test_the_csv_downloads_need_the_session(author_app, signed_in, db, bank):
    take_quiz(author_app, db, bank, right=True)
    response = signed_in.get("/author/item-analysis.csv?format=csv")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert {row["question_id"] for row in rows} == {"budget-split", "running-first"}
    assert signed_in.get("/author/item-analysis.csv?format=rules-csv").status_code == 200
    assert signed_in.get("/author/item-analysis.csv?format=xml").status_code == 422
    assert FormBrowser(author_app).get("/author/item-analysis.csv").status_code == 401


def test_signing_out_ends_the_session(signed_in):
    assert signed_in.post("/author/sign-out").status_code == 303
    assert signed_in.get(PAGE).status_code == 401


def test_without_a_configured_token_the_pages_do_not_exist(client):
    assert client.get(PAGE).status_code == 404
    assert client.get("/author/item-analysis.csv").status_code == 404


def test_the_token_reaches_no_log_line(author_app):
    stream = io.StringIO()
    handler = log_handler("json", stream)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        browser = FormBrowser(author_app)
        browser.post("/author/sign-in", token="wrong-" + TOKEN)
        browser.post("/author/sign-in", token=TOKEN)
        browser.get(PAGE)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    lines = written(stream)
    assert any(line["route"] == "/author/sign-in" for line in lines)
    assert TOKEN not in stream.getvalue()


def test_author_pages_are_not_stored(author_app, signed_in):
    assert signed_in.get(PAGE).headers["Cache-Control"] == "no-store"
    assert FormBrowser(author_app).get(PAGE).headers["Cache-Control"] == "no-store"
