"""The card browser's pages and the report form, as a browser without JavaScript uses them:
GET search forms, buttons that post and redirect back with a confirmation."""

from __future__ import annotations

import re
from typing import Any

import pytest

from quizsvc.store.models import QuestionReport
from tests.support.browsers import FormBrowser
from tests.support.fake_bank import LESSON_ID

BROWSE = f"/lessons/{LESSON_ID}/browse"


@pytest.fixture
def pages(app: Any) -> FormBrowser:
    return FormBrowser(app)


def text(response: Any) -> str:
    return response.get_data(as_text=True)


def rows(html: str) -> list[str]:
    return re.findall(r'<tr id="item-([^"]+)"', html)


def test_the_nav_and_browse_lead_to_the_lessons_browser(pages: FormBrowser) -> None:
    home = text(pages.get("/?lang=en"))
    assert 'href="/browse"' in home and ">Browse<" in home
    response = pages.get("/browse")
    assert response.status_code == 303 and response.location.endswith(BROWSE)


def test_the_nav_marks_browse_as_the_current_place(pages: FormBrowser) -> None:
    for path in (BROWSE, f"{BROWSE}/budget-split"):
        assert '<a href="/browse" aria-current="page">' in text(pages.get(path))


def test_the_browser_lists_every_item_and_searches_by_get(pages: FormBrowser) -> None:
    response = pages.get(BROWSE + "?lang=en")
    page = text(response)
    assert response.status_code == 200, page[:3000]
    assert rows(page) == ["budget-split", "running-first", "computed-card", "why-rollback"]
    assert 'method="get"' in page and "4 items" in page
    assert rows(text(pages.get(BROWSE + "?q=预算"))) == ["budget-split", "running-first"]
    assert "No item matches" in text(pages.get(BROWSE + "?q=zzz&lang=en"))


def test_a_bad_page_number_is_a_422_page(pages: FormBrowser) -> None:
    assert pages.get(BROWSE + "?page=zero").status_code == 422


def test_suspend_from_the_list_comes_back_with_the_search_and_a_confirmation(
        pages: FormBrowser) -> None:
    response = pages.post(f"{BROWSE}/budget-split/hold", action="suspend", q="budget", page="1")
    assert response.status_code == 303
    assert "q=budget" in response.location and "done=suspend" in response.location
    page = text(pages.get(response.location.split("#")[0] + "&lang=en"))
    assert 'id="hold-done"' in page and "Unsuspend" in page
    assert rows(text(pages.get(BROWSE + "?q=is:suspended"))) == ["budget-split"]
    assert "0 due, 1 new" in text(pages.get("/quiz?lang=en"))  # of two graded questions


def test_bury_from_the_item_page_and_its_history(pages: FormBrowser) -> None:
    response = pages.post(f"{BROWSE}/running-first/hold", action="bury", back="item")
    assert response.status_code == 303 and "/browse/running-first" in response.location
    page = text(pages.get(response.location + "&lang=en"))
    assert "Buried until tomorrow" in page and "Unbury" in page
    assert "You have not answered this one yet." in page


def test_a_hold_form_without_the_csrf_field_is_refused(app: Any) -> None:
    client = app.test_client()
    client.get("/")
    assert client.post(f"{BROWSE}/budget-split/hold",
                       data={"action": "suspend"}).status_code == 403


def test_an_unknown_item_is_404(pages: FormBrowser) -> None:
    assert pages.get(f"{BROWSE}/no-such").status_code == 404
    assert pages.post(f"{BROWSE}/no-such/hold", action="suspend").status_code == 404


def start_quiz(pages: FormBrowser) -> str:
    response = pages.post("/study", lesson=LESSON_ID, mode="quiz", size="1")
    assert response.status_code == 303
    return response.location


def test_before_a_suspension_the_quiz_counts_both_graded_questions(pages: FormBrowser) -> None:
    assert "0 due, 2 new" in text(pages.get("/quiz?lang=en"))


def test_the_question_page_reports_a_problem_and_confirms(pages: FormBrowser, db: Any) -> None:
    session_url = start_quiz(pages)
    page = text(pages.get(session_url + "?lang=en"))
    assert "Report a problem with this question" in page
    variant = re.search(r'name="variant_id" value="([^"]+)"', page).group(1)
    session_id = session_url.rstrip("/").rsplit("/", 1)[-1]
    response = pages.post(f"/study/{session_id}/report", variant_id=variant, reason="unclear",
                          text="which request is first?")
    assert response.status_code == 303 and "reported=1" in response.location
    assert 'id="report-done"' in text(pages.get(response.location))
    stored = db.query(QuestionReport).one()
    assert (stored.reason, stored.text) == ("unclear", "which request is first?")


def test_a_report_with_a_bad_reason_is_a_422_page(pages: FormBrowser) -> None:
    session_url = start_quiz(pages)
    page = text(pages.get(session_url))
    variant = re.search(r'name="variant_id" value="([^"]+)"', page).group(1)
    session_id = session_url.rstrip("/").rsplit("/", 1)[-1]
    assert pages.post(f"/study/{session_id}/report", variant_id=variant,
                      reason="spam").status_code == 422


def test_reports_from_the_pages_are_rate_limited(app_config: dict, connection: Any) -> None:
    """The page's form and ``POST /api/reports`` count against one limit per browser."""
    from quizsvc import create_app
    app = create_app({**app_config, "REPORT_RATE_LIMIT": "1/minute"})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    pages = FormBrowser(app)
    session_url = start_quiz(pages)
    page = text(pages.get(session_url))
    variant = re.search(r'name="variant_id" value="([^"]+)"', page).group(1)
    session_id = session_url.rstrip("/").rsplit("/", 1)[-1]
    first = pages.post(f"/study/{session_id}/report", variant_id=variant, reason="other")
    second = pages.post(f"/study/{session_id}/report", variant_id=variant, reason="other")
    assert (first.status_code, second.status_code) == (303, 429)
    api = pages.client.post("/api/reports", json={"variant_id": variant, "reason": "other"},
                            headers={"X-CSRF-Token": pages.csrf})
    assert api.status_code == 429
