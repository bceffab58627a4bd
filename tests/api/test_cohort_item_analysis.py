"""A cohort's item analysis for its instructor: only its members, only with its token."""

from __future__ import annotations

import csv
import io

import pytest

from tests.support.browsers import ApiBrowser, FormBrowser, Study
from tests.support.cohorts import AUTHOR_TOKEN, answer_quiz, bearer, join, make_cohort


@pytest.fixture
def classes(author_app, db, bank):
    """Two cohorts: A with one learner who answers right, B with one who answers wrong; and
    a learner in no cohort who answers wrong."""
    client = author_app.test_client()
    a, b = make_cohort(client, "Class A"), make_cohort(client, "Class B")
    for cohort, right in ((a, True), (b, False), (None, False)):
        browser = ApiBrowser(author_app)
        if cohort is not None:
            assert join(browser, cohort, f"Learner {cohort['name']}").status_code == 201
        answer_quiz(Study(browser, db, bank), right=right)
    return client, a, b


def url(cohort, suffix=""):
    return f"/api/cohorts/{cohort['id']}/item-analysis{suffix}"


def test_an_instructor_sees_only_the_members_of_their_cohort(classes):
    client, a, b = classes
    mine = client.get(url(a), headers=bearer(a["instructor_token"]))
    assert mine.status_code == 200, mine.json
    assert (mine.json["scope"], mine.json["learners"]) == ("group", 1)
    assert {item["facility"] for item in mine.json["items"]} == {1.0}
    theirs = client.get(url(b), headers=bearer(b["instructor_token"])).json
    assert theirs["learners"] == 1
    assert {item["facility"] for item in theirs["items"]} == {0.0}
    everyone = client.get("/api/author/item-analysis", headers=bearer(AUTHOR_TOKEN)).json
    assert everyone["learners"] == 3


@pytest.mark.parametrize("headers", [{}, bearer("wrong")])
def test_without_the_instructor_token_it_is_refused(classes, headers):
    client, a, _ = classes
    assert client.get(url(a), headers=headers).status_code in (401, 404)


def test_one_cohorts_token_does_not_open_another(classes):
    client, a, b = classes
    assert client.get(url(b), headers=bearer(a["instructor_token"])).status_code == 404


def test_a_learner_cannot_read_it(classes, author_app):
    _, a, _ = classes
    assert ApiBrowser(author_app).get(url(a)).status_code == 401


def test_the_cohort_item_analysis_downloads_as_csv(classes):
    client, a, _ = classes
    response = client.get(url(a, "?format=rules-csv"), headers=bearer(a["instructor_token"]))
    assert response.status_code == 200 and response.mimetype == "text/csv"
    assert list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))


def test_a_member_who_leaves_drops_out(classes, author_app, db, bank):
    client, a, _ = classes
    browser = ApiBrowser(author_app)
    join(browser, a, "Leaver")
    answer_quiz(Study(browser, db, bank), right=False)
    assert client.get(url(a), headers=bearer(a["instructor_token"])).json["learners"] == 2
    assert browser.delete(f"/api/memberships/{a['id']}").status_code == 204
    assert client.get(url(a), headers=bearer(a["instructor_token"])).json["learners"] == 1


def test_the_instructor_page_links_to_the_cohorts_item_analysis(classes, author_app):
    _, a, _ = classes
    page = FormBrowser(author_app)
    base = f"/cohorts/{a['id']}/{a['instructor_token']}"
    assert 'id="item-analysis-link"' in page.get(base + "?lang=en").get_data(as_text=True)
    response = page.get(base + "/item-analysis?lang=en")
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    html = response.get_data(as_text=True)
    assert "The learners of this cohort now" in html and 'id="facility-chart"' in html
    assert "Sign out" not in html
    assert page.get(base + "/item-analysis.csv?format=csv").status_code == 200
    assert page.get(f"/cohorts/{a['id']}/wrong-token/item-analysis").status_code == 404
