"""The home page a learner lands on, unknown URLs, and the link code as it is read aloud."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.browsers import FormBrowser
from tests.support.fake_bank import LESSON_ID


def counts_row(page: str, mode_label: str) -> list[int]:
    """Return the due / new / all counts of one activity in the home table."""
    row = re.search(rf">{mode_label}</a></th>(.*?)</tr>", page, re.S)
    assert row is not None, mode_label
    return [int(cell) for cell in re.findall(r"<td>(\d+)</td>", row.group(1))]


def test_a_new_learner_is_shown_where_to_start(app: Any) -> None:
    page = FormBrowser(app).get("/").get_data(as_text=True)
    assert 'id="start-here"' in page and 'id="main-action"' not in page
    steps = re.findall(r'<li><a[^>]*href="([^"]+)"', page.split('id="start-here"')[1]
                       .split("</section>")[0])
    assert steps == [f"/lessons/{LESSON_ID}", "/flashcards", "/quiz"]


def test_home_counts_agree_with_the_start_pages(app: Any) -> None:
    """FakeBank: two graded questions, one flashcard, one explanation; the rows add up."""
    learner = FormBrowser(app)
    page = learner.get("/").get_data(as_text=True)
    assert counts_row(page, "评分题（闭卷测验）") == [0, 2, 2]
    assert counts_row(page, "闪卡") == [0, 1, 1]
    assert counts_row(page, "书面解释（在复习中）") == [0, 1, 1]
    assert counts_row(page, "全部（复习会出的题）") == [0, 4, 4]
    for path, new in (("/quiz", 2), ("/flashcards", 1), ("/review", 4)):
        assert f"到期 0 题，新题 {new} 题" in learner.get(path).get_data(as_text=True)


def test_the_main_button_follows_the_learners_state(app: Any, clock: Any) -> None:
    learner = FormBrowser(app)
    started = learner.post("/study", lesson=LESSON_ID, mode="flashcards", size="1")
    page = learner.get(started.headers["Location"]).get_data(as_text=True)
    fields = {name: re.search(rf'name="{name}" value="([^"]+)"', page).group(1)
              for name in ("variant_id", "idempotency_key")}
    attempt = learner.post(f"{started.headers['Location']}/answer", **fields)
    learner.post(f"{attempt.headers['Location']}/rating", rating="again")
    home = learner.get("/").get_data(as_text=True)
    assert 'id="start-here"' not in home
    assert re.search(r'id="main-action" href="/quiz"', home), "nothing due yet: a quiz"
    clock.advance(minutes=5)
    home = learner.get("/").get_data(as_text=True)
    assert re.search(r'id="main-action" href="/review">复习到期的 1 题<', home)


@pytest.mark.parametrize(("lang", "title"), [("zh", "找不到这一页"), ("en", "Page not found")])
def test_an_unknown_page_is_a_page(app: Any, lang: str, title: str) -> None:
    response = FormBrowser(app).get(f"/no/such/page?lang={lang}")
    assert response.status_code == 404 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert f"<title>{title}" in page
    assert ('lang="en"' if lang == "en" else 'lang="zh-Hans"') in page
    assert 'aria-label="主导航"' in page or 'aria-label="Main navigation"' in page


def test_an_unknown_api_url_keeps_the_envelope(app: Any) -> None:
    response = app.test_client().get("/api/no-such-thing")
    assert response.status_code == 404 and response.json["reason"] == "not_found"


def test_a_link_code_is_shown_in_groups_and_entered_with_or_without_them(app: Any) -> None:
    learner = FormBrowser(app)
    shown = learner.post("/link/code").get_data(as_text=True)
    code = re.search(r'id="link-code">([^<]+)<', shown).group(1)
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}", code)
    assert re.search(r'<time id="link-expires" datetime="[^"]+">', shown)
    other = FormBrowser(app)
    assert other.post("/link/redeem", code=code.replace("-", " ").lower()).status_code == 200
