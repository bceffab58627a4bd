"""The Anki download page and the desired-retention form, without JavaScript."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.browsers import FormBrowser
from tests.support.fake_bank import LESSON_ID

ANKI_PAGE = f"/lessons/{LESSON_ID}/anki"


@pytest.fixture
def learner(app: Any) -> FormBrowser:
    return FormBrowser(app)


@pytest.mark.parametrize(("lang", "statement"), [
    ("zh", "在 Anki 里学习的内容不会回传到这里，也不会成为掌握记录"),
    ("en", "Nothing you study in Anki comes back here or becomes mastery"),
])
def test_the_download_page_says_anki_study_never_becomes_mastery(learner: FormBrowser,
                                                                 lang: str,
                                                                 statement: str) -> None:
    response = learner.get(f"{ANKI_PAGE}?lang={lang}")
    assert response.status_code == 200 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert statement in page
    for mode in ("zh", "en", "both"):
        assert f'href="/api/lessons/{LESSON_ID}/anki.apkg?lang={mode}"' in page
    assert 'id="anki-count-worked-example">3<' in page
    assert 'id="anki-count-flashcard">1<' in page
    assert "quizsvc::worked-example" in page


def test_the_download_links_work_without_javascript(learner: FormBrowser) -> None:
    page = learner.get(ANKI_PAGE).get_data(as_text=True)
    link = re.search(r'href="(/api/lessons/[^"]+lang=both)"', page).group(1)
    response = learner.get(link)
    assert response.status_code == 200 and response.mimetype == "application/apkg"


def test_an_unknown_lessons_download_page_is_a_404_page(learner: FormBrowser) -> None:
    response = learner.get("/lessons/no-such-lesson/anki")
    assert response.status_code == 404 and response.mimetype == "text/html"


@pytest.mark.parametrize("url", [f"/lessons/{LESSON_ID}", "/progress"])
def test_the_lesson_and_progress_pages_link_to_the_download_page(learner: FormBrowser,
                                                                 url: str) -> None:
    assert f'href="{ANKI_PAGE}"' in learner.get(url).get_data(as_text=True)


def test_the_retention_form_saves_without_javascript(learner: FormBrowser) -> None:
    page = learner.get("/progress").get_data(as_text=True)
    assert 'name="desired_retention"' in page and 'value="0.90"' in page
    saved = learner.post("/progress/retention", desired_retention="0.85")
    assert saved.status_code == 303
    assert saved.headers["Location"].endswith("/progress?moved=0#retention")
    page = learner.get(saved.headers["Location"]).get_data(as_text=True)
    assert 'value="0.85"' in page and "已保存" in page
    assert learner.get("/api/scheduling").json["desired_retention"] == 0.85


@pytest.mark.parametrize(("value", "reason"), [
    ("0.99", "目标保持率必须在 0.70 到 0.97 之间，收到的是 0.99"),
    ("lots", "目标保持率必须是数字，收到的是 &#39;lots&#39;"),
])
def test_a_bad_retention_reshows_the_form_with_the_reason(learner: FormBrowser, value: str,
                                                          reason: str) -> None:
    response = learner.post("/progress/retention", desired_retention=value)
    assert response.status_code == 422 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert reason in page and f'value="{value}"' in page and 'aria-invalid="true"' in page
    assert learner.get("/api/scheduling").json["desired_retention"] == 0.9


def test_a_retention_post_without_the_csrf_field_is_refused(learner: FormBrowser) -> None:
    response = learner.client.post("/progress/retention", data={"desired_retention": "0.8"})
    assert response.status_code == 403
    assert learner.get("/api/scheduling").json["desired_retention"] == 0.9


def test_the_progress_page_names_the_parameters_in_force(learner: FormBrowser) -> None:
    page = learner.get("/progress?lang=en").get_data(as_text=True)
    assert "fsrs&#39;s default parameters" in page or "fsrs's default parameters" in page
