"""The cohort and erasure pages through the test client, without JavaScript: forms post and
redirect, zh by default and en on request, the instructor's page only with its token."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc.store.models import Attempt, Browser
from tests.support.browsers import ApiBrowser, FormBrowser, Study
from tests.support.cohorts import answer_quiz, make_cohort
from tests.web.test_pages import shape


@pytest.fixture
def cohort(author_app):
    return make_cohort(author_app.test_client(), "Systems 101")


def join_path(cohort: dict[str, Any]) -> str:
    return f"/join/{cohort['join_code']}"


def instructor_path(cohort: dict[str, Any]) -> str:
    return f"/cohorts/{cohort['id']}/{cohort['instructor_token']}"


def assert_form_page(html: str) -> None:
    page = shape(html)
    assert page.h1 == 1 and len(page.ids) == len(set(page.ids))
    for control in page.controls:
        assert control.get("wrapped") or control.get("id") in page.label_for or control.get(
            "aria-label"), f"unlabelled control {control}"
    assert all(form["csrf"] for form in page.forms if form["method"] == "post")


def test_the_join_page_joins_without_javascript_and_the_learner_can_leave(author_app, cohort):
    learner = FormBrowser(author_app)
    page = learner.get(join_path(cohort))
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Systems 101" in html and "加入班级" in html
    assert 'name="share_explanations"' in html and "checked" not in html  # off by default
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert_form_page(html)
    joined = learner.post(join_path(cohort), display_name="Ming")
    assert joined.status_code == 303 and "/cohorts/mine" in joined.headers["Location"]
    mine = learner.get(joined.headers["Location"]).get_data(as_text=True)
    assert "Systems 101" in mine and "Ming" in mine and "已加入" in mine
    assert "未分享解释" in mine
    assert_form_page(mine)
    left = learner.post(f"/cohorts/mine/{cohort['id']}/leave")
    assert left.status_code == 303
    after = learner.get(left.headers["Location"]).get_data(as_text=True)
    assert "Systems 101" not in after and "已退出" in after


def test_the_join_page_says_it_in_english_on_request(author_app, cohort):
    html = FormBrowser(author_app).get(join_path(cohort) + "?lang=en").get_data(as_text=True)
    assert "Join a cohort" in html
    assert "Let the instructor read my explanations verbatim" in html


def test_a_bad_display_name_reshows_the_form_with_the_reason(author_app, cohort):
    learner = FormBrowser(author_app)
    response = learner.post(join_path(cohort) + "?lang=en", display_name="me@example.com")
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "not an email address" in html and 'value="me@example.com"' in html
    assert "You are in no cohort" in learner.get("/cohorts/mine?lang=en").get_data(as_text=True)


def test_an_unknown_join_code_is_a_404_page(author_app):
    response = FormBrowser(author_app).get("/join/no-such-code")
    assert response.status_code == 404 and response.mimetype == "text/html"


def test_the_instructor_page_shows_the_cohort_and_only_shared_explanations(
        author_app, cohort, db, bank):
    for name, share, words in (("Ada", True, "Shared words of Ada"),
                               ("Bo", False, "Hidden words of Bo")):
        browser = ApiBrowser(author_app)
        answer_quiz(Study(browser, db, bank), right=False, explanation=words)
        browser.post("/api/memberships", json={"code": cohort["join_code"],
                                               "display_name": name,
                                               "share_explanations": share})
    response = FormBrowser(author_app).get(instructor_path(cohort) + "?lang=en")
    assert response.status_code == 200
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["Cache-Control"] == "no-store"
    html = response.get_data(as_text=True)
    assert "Ada" in html and "Bo" in html and "Budgets" in html
    assert "Shared words" in html and "Hidden words" not in html
    assert "Self-reported, pooled over the cohort" in html
    assert "withheld (too few learners)" in html
    assert_form_page(html)
    zh = FormBrowser(author_app).get(instructor_path(cohort)).get_data(as_text=True)
    assert "自我报告，全班汇总" in zh
    csv = FormBrowser(author_app).get(instructor_path(cohort) + "/gradebook.csv")
    assert csv.status_code == 200 and csv.mimetype == "text/csv"
    assert csv.get_data(as_text=True).splitlines()[0].startswith("display_name,")


@pytest.mark.parametrize("path", [
    "/cohorts/{id}/wrong-token", "/cohorts/999999/{token}", "/cohorts/{id}/{join}",
    "/cohorts/{id}/wrong-token/gradebook.csv"])
def test_the_instructor_page_is_a_404_without_its_token(author_app, cohort, path):
    url = path.format(id=cohort["id"], token=cohort["instructor_token"],
                      join=cohort["join_code"])
    assert FormBrowser(author_app).get(url).status_code == 404


def test_erasing_from_the_page_asks_first_offers_the_export_and_clears_the_cookies(
        author_app, cohort, db, bank, connection):
    learner = FormBrowser(author_app)
    api = ApiBrowser(author_app, stored=False)
    api.client = learner.client  # one browser: the API study and the pages share cookies
    answer_quiz(Study(api, db, bank), right=True)
    progress = learner.get("/progress").get_data(as_text=True)
    assert 'href="/erase"' in progress
    page = learner.get("/erase")
    html = page.get_data(as_text=True)
    assert 'href="/api/export"' in html and "删除我的数据" in html
    assert_form_page(html)
    refused = learner.post("/erase")
    assert refused.status_code == 422 and "field-error" in refused.get_data(as_text=True)
    attempts = connection.scalar(select(func.count()).select_from(Attempt))
    assert attempts == 2
    done = learner.post("/erase", confirm="erase")
    assert done.status_code == 303 and done.headers["Location"].endswith("/erase/done")
    cleared = [c for c in done.headers.getlist("Set-Cookie") if c.startswith(
        ("quizsvc_browser=;", "quizsvc_identity=;", "csrf_token=;"))]
    assert len(cleared) == 3
    assert connection.scalar(select(func.count()).select_from(Attempt)) == 0
    assert connection.scalar(select(func.count()).select_from(Browser)) == 0
    assert "已删除" in learner.get("/erase/done").get_data(as_text=True)
