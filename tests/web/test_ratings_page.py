"""Ratings that say what happened: the rating in force is the pressed button and the page says
it can still change; Undo says what it takes back; flashcards flip with Space and Enter, Ctrl+Z
undoes the last rating, and key hints show only where there are keys."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support import pages as steps
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser


def pressed(page: Any) -> dict[str, str | None]:
    """Return each rating button's aria-pressed."""
    return {button.get_attribute("data-rating"): button.get_attribute("aria-pressed")
            for button in page.locator("button[data-rating]").all()}


def test_a_right_answers_rating_is_the_pressed_button_and_undo_says_what_it_takes_back(
        page: Any, live_server: LiveServer, shot: Any) -> None:
    steps.start(page, "/quiz", size=1)
    title = page.locator("#q-title").inner_text()
    steps.type_answer(page, live_server, right=True)
    steps.submit_by_keyboard(page)
    page.wait_for_url("**/attempts/*")
    assert pressed(page) == {"hard": "false", "good": "true", "easy": "false"}
    status = page.locator("#rating-status")
    expect(status).to_contain_text("良好")
    expect(status).to_contain_text("可以改")
    assert "评分：" not in page.locator("main").inner_text()  # no "Rated: Good" before rating
    mark = page.locator("button[data-rating='good']").evaluate(
        "(button) => getComputedStyle(button, '::before').content")
    assert "✓" in mark  # pressed: a sign as well as the fill
    shot(page, "rating-provisional")

    page.locator("body").focus()
    page.keyboard.press("2")  # Hard
    page.wait_for_selector("#undo-rating")
    page.wait_for_load_state("load")  # Ctrl+Z works once the page's script has run
    undo = page.locator("#undo-what").inner_text()
    assert "困难" in undo and title in undo and "良好" in undo
    shot(page, "rating-undo-offer")
    page.keyboard.press("Control+z")
    page.wait_for_url("**/attempts/*")
    assert pressed(page) == {"hard": "false", "good": "true", "easy": "false"}


def test_a_wrong_answer_says_it_is_reviewed_again_without_a_rated_line(
        page: Any, live_server: LiveServer) -> None:
    steps.start(page, "/quiz", size=1)
    steps.type_answer(page, live_server, right=False)
    steps.submit_by_keyboard(page)
    page.wait_for_url("**/attempts/*")
    page.locator("#explanation").fill("I mixed the budgets up")
    page.locator("input[name='rule']").first.check()
    page.locator("#explain-form button").click()
    page.locator("#reveal").wait_for()
    expect(page.locator("#rating-status")).to_have_text("答错的题按“重来”安排复习。")
    assert "评分：" not in page.locator("main").inner_text()


def test_flashcards_flip_with_space_and_enter_and_ctrl_z_undoes_the_last_rating(
        page: Any, live_server: LiveServer, shot: Any) -> None:
    steps.start(page, "/flashcards", size=2)
    page.wait_for_load_state("load")
    shot(page, "flashcard-front-keys")
    first = steps.variant_id(page)
    page.keyboard.press("Space")
    page.locator("#reveal").wait_for()
    page.wait_for_load_state("load")  # the rating keys work once the page's script has run
    attempt = page.locator("#attempt").get_attribute("data-attempt-id")
    steps.press_and_wait_for_next(page, lambda: page.keyboard.press("3"))
    assert steps.variant_id(page) != first
    assert page.request.get(f"/api/attempts/{attempt}").json()["rating"] == "good"
    page.locator("main").focus()  # focus left the button: Enter still flips
    page.keyboard.press("Control+z")
    page.wait_for_url(re.compile(rf".*/attempts/{attempt}$"))
    assert page.request.get(f"/api/attempts/{attempt}").json()["rating"] is None
    assert set(pressed(page).values()) == {"false"}
    steps.press_and_wait_for_next(page, lambda: page.keyboard.press("4"))
    page.wait_for_load_state("load")  # the keys work once the page's script has run
    page.locator("main").focus()
    page.keyboard.press("Enter")
    page.locator("#reveal").wait_for()
    assert page.request.get(f"/api/attempts/{attempt}").json()["rating"] == "easy"


def test_key_hints_show_where_keys_work_and_not_on_a_touch_phone(
        browser: Any, live_server: LiveServer, page: Any, shot: Any) -> None:
    steps.start(page, "/flashcards", size=1)
    expect(page.locator(".shortcuts")).to_be_visible()
    touch = browser.new_context(base_url=live_server.url, viewport={"width": 390, "height": 844},
                                has_touch=True, is_mobile=True, locale="zh-CN")
    try:
        phone = touch.new_page()
        steps.start(phone, "/flashcards", size=1)
        expect(phone.locator(".shortcuts")).to_be_hidden()
        phone.locator("#submit-answer").tap()
        phone.locator("#reveal").wait_for()
        assert phone.locator("kbd").evaluate_all(
            "(keys) => keys.filter((key) => key.offsetParent !== null).length") == 0
        shot(phone, "flashcard-back-touch")
    finally:
        touch.close()
