"""The card browser and the report form in Chromium: search by a GET form and suspend by a
button without scripts, a suspended question never served, an item's history without its
answer, a report sent from a question page, and no sideways scrolling at 320 CSS px."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from quizsvc.bank.kinds import GRADED
from quizsvc.study.bank_index import BankIndex
from tests.support import pages as steps
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser

NARROW = {"width": 320, "height": 640}
SIDEWAYS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"


@pytest.fixture(params=["zh", "en"])
def narrow_nojs(request: pytest.FixtureRequest, browser: Any,
                live_server: LiveServer) -> Iterator[tuple[Any, str]]:
    """A fresh learner's page 320 CSS px wide with JavaScript off, in zh and in en."""
    context = browser.new_context(base_url=live_server.url, viewport=NARROW,
                                  java_script_enabled=False)
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"/?lang={request.param}")
    yield page, request.param
    context.close()


def first_graded(live_server: LiveServer) -> str:
    """Return the graded question a new learner's quiz serves first (teaching order)."""
    index = BankIndex.of(live_server.app.config["BANK"])
    return next(q.id for q in index.by_lesson[live_server.lesson.id] if q.kind in GRADED)


def new_count(page: Any) -> int:
    """Read the start page's count of new questions ("N due, M new" / "N 道到期，M 道新题")."""
    numbers = re.findall(r"\d+", page.locator("#main > p").nth(1).inner_text())
    return int(numbers[1])


def test_search_and_suspend_work_without_scripts_and_fit_320_px(
        narrow_nojs: tuple[Any, str], live_server: LiveServer,
        shot: Callable[[Any, str], Path]) -> None:
    page, lang = narrow_nojs
    page.goto("/browse")
    assert page.evaluate(SIDEWAYS) <= 0, "the browser page scrolls sideways at 320 px"
    shot(page, f"browse-{lang}-320-list")
    page.locator("#browse-q").fill("is:new")
    page.locator("#browse-q").press("Enter")
    page.wait_for_url(re.compile(r".*[?&]q=is%3Anew"))
    first = page.locator("#browse-table tbody tr").first
    question_id = first.get_attribute("data-question")
    first.locator("button[value=suspend]").click()
    page.wait_for_url(re.compile(r".*done=suspend.*"))
    expect(page.locator("#hold-done")).to_be_visible()
    expect(page.locator(f"#item-{question_id}")).to_have_count(0)  # no longer new
    page.locator("#browse-q").fill("is:suspended")
    page.locator("#browse-q").press("Enter")
    page.wait_for_url(re.compile(r".*[?&]q=is%3Asuspended"))
    row = page.locator(f"#item-{question_id}")
    expect(row.locator("button[value=unsuspend]")).to_have_count(1)
    expect(row.locator(".status-suspended")).to_have_count(1)
    assert page.evaluate(SIDEWAYS) <= 0
    shot(page, f"browse-{lang}-320-suspended")
    row.locator("th a").click()
    page.wait_for_url(re.compile(rf".*/browse/{re.escape(question_id)}$"))
    expect(page.locator("button[value=unsuspend]")).to_have_count(1)
    assert page.evaluate(SIDEWAYS) <= 0
    shot(page, f"browse-{lang}-320-item")


def test_a_question_suspended_in_the_browser_is_never_served(
        nojs_page: Any, live_server: LiveServer, shot: Callable[[Any, str], Path]) -> None:
    page = nojs_page
    question_id = first_graded(live_server)
    page.goto("/quiz")
    before = new_count(page)
    page.goto(f"/lessons/{live_server.lesson.id}/browse?q={question_id}")
    page.locator(f"#item-{question_id} button[value=suspend]").click()
    page.wait_for_url(re.compile(r".*done=suspend.*"))
    page.goto("/quiz")
    assert new_count(page) == before - 1
    steps.start(page, "/quiz", size=1)
    served = live_server.variant(steps.variant_id(page)).question_id
    assert served != question_id
    shot(page, "browse-suspended-not-served")


def test_an_items_history_shows_the_attempt_but_not_the_unrevealed_answer(
        page: Any, live_server: LiveServer, shot: Callable[[Any, str], Path]) -> None:
    steps.start(page, "/quiz", size=1)
    variant = live_server.variant(steps.variant_id(page))
    steps.type_answer(page, live_server, right=False)
    steps.submit_by_keyboard(page)
    page.wait_for_url(re.compile(r".*/attempts/\d+$"))
    expect(page.locator("#explain-form")).to_be_visible()  # the answer is not revealed yet
    page.goto(f"/lessons/{live_server.lesson.id}/browse/{variant.question_id}?lang=en")
    rows = page.locator("#item-history tbody tr")
    expect(rows).to_have_count(1)
    expect(rows.first.locator(".mark-bad")).to_have_count(1)
    shown = page.locator("#main").inner_text()
    assert "Solution" not in shown and "#reveal" not in page.content()
    shot(page, "browse-item-history")
    rows.first.locator("th a").click()  # the attempt's own page: still at its gate
    page.wait_for_url(re.compile(r".*/attempts/\d+$"))
    expect(page.locator("#explain-form")).to_be_visible()


def test_a_problem_is_reported_from_a_question_without_scripts(
        nojs_page: Any, live_server: LiveServer, shot: Callable[[Any, str], Path]) -> None:
    page = nojs_page
    steps.start(page, "/quiz", size=1)
    question_url = page.url
    page.locator("#report summary").click()
    page.locator("#report-reason").select_option("typo")
    page.locator("#report-text").fill("第二句少了一个字")
    shot(page, "report-form-open")
    page.locator("#report-form button").click()
    page.wait_for_url(re.compile(r".*reported=1.*"))
    assert page.url.split("?")[0] == question_url.split("?")[0]
    expect(page.locator("#report-done")).to_be_visible()
    expect(page.locator("#answer-form")).to_be_visible()  # the question is still there
    shot(page, "report-sent-question")


def test_the_report_form_fits_320_px(narrow_nojs: tuple[Any, str],
                                     shot: Callable[[Any, str], Path]) -> None:
    page, lang = narrow_nojs
    steps.start(page, "/quiz", size=1)
    page.locator("#report summary").click()
    for part in ("#report summary", "#report-reason", "#report-text", "#report-form button"):
        box = page.locator(part).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 320, part
    shot(page, f"report-form-{lang}-320")
