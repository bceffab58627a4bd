"""A learner in a real browser (Debian's Chromium through Playwright), by keyboard only.

Each test takes a fresh browser context, so each is a new learner. Screenshots of every page
go to test-output/screenshots/.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support import pages as steps
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser


def test_a_closed_book_quiz_wrong_then_explained_then_right_and_rated(
        page: Any, live_server: LiveServer, shot: Any) -> None:
    page.goto("/")
    shot(page, "home")
    steps.start(page, "/quiz", size=2)
    shot(page, "quiz-question")
    assert page.locator("#q-position").inner_text() == "第 1 题，共 2 题"

    variant = live_server.variant(steps.variant_id(page))
    html = page.content()
    assert variant.solution.zh not in html and variant.solution.en not in html
    assert not any(m.name.zh in html for m in variant.misconceptions)
    steps.type_answer(page, live_server, right=False)
    steps.submit_with_enter(page)
    page.wait_for_url("**/attempts/*")  # the attempt has its own URL: reload and Back are safe
    expect(page.locator("#result-h")).to_have_text(re.compile(r"答错了$"))
    assert page.title().startswith("答错了")
    assert page.locator("#result-banner.result-bad").count() == 1
    assert page.locator("#your-answer").count() == 1
    assert page.locator("#reveal").count() == 0 and page.locator("#next-link").count() == 0
    # autofocus lands at the browser's next rendering step, after load: wait for it
    expect(page.locator("#explanation")).to_be_focused()
    shot(page, "quiz-wrong-explain")

    steps.diagnose(page, "I gave the waiting request budget first")
    assert steps.focus_is_visible(page)
    page.keyboard.press("Tab")  # out of the rule group, to the button
    assert steps.focus_is_visible(page)
    page.keyboard.press("Enter")
    page.locator("#reveal").wait_for()
    assert "I gave the waiting request budget first" in page.locator("#reveal").inner_text()
    assert page.locator("#reveal a", has_text="重新打开这一课").count() == 1
    shot(page, "quiz-reveal")

    steps.next_question(page)
    assert page.locator("#q-position").inner_text() == "第 2 题，共 2 题"
    steps.type_answer(page, live_server, right=True)
    steps.submit_by_keyboard(page)
    page.wait_for_url("**/attempts/*")
    expect(page.locator("#result-h")).to_have_text(re.compile(r"答对了$"))
    ratings = page.locator("button[data-rating]")
    assert [text.split("\n")[0] for text in ratings.all_inner_texts()] == [
        "2 困难", "3 良好", "4 简单"]
    # Each button says when the question would come back, as fsrs schedules it (Anki's way).
    assert page.locator("button[data-rating] .interval").all_inner_texts() == [
        "6分钟", "10分钟", "1周"]
    shot(page, "quiz-right-rate")
    attempt_id = page.locator("#attempt").get_attribute("data-attempt-id")
    page.locator("body").focus()
    page.keyboard.press("2")
    page.wait_for_selector("text=本轮完成")
    rated = page.request.get(f"/api/attempts/{attempt_id}").json()
    assert rated["correct"] is True and rated["rating"] == "hard"

    page.goto("/progress")
    due_today = int(page.locator("#stat-due-today").inner_text())
    assert due_today >= 1  # the wrong answer comes back within minutes (Again)
    assert page.locator("#due-forecast-table td").first.text_content() == str(due_today)
    assert page.locator("svg.chart rect.bar").count() >= 1
    shot(page, "progress")


def test_flashcards_front_reveal_and_four_self_ratings(page: Any, live_server: LiveServer,
                                                       shot: Any) -> None:
    steps.start(page, "/flashcards", size=10)
    assert steps.question_kind(page) == "flashcard"  # a flashcards session: cards only
    front = page.locator("#q-prompt").inner_text()
    assert front and page.locator("#reveal").count() == 0
    shot(page, "flashcard-front")
    steps.submit_by_keyboard(page)
    page.locator("#reveal").wait_for()
    page.wait_for_load_state("load")  # the rating keys work once the page's script has run
    assert [text.split("\n")[0] for text in
            page.locator("button[data-rating]").all_inner_texts()] == [
        "1 重来", "2 困难", "3 良好", "4 简单"]
    assert len(page.locator("button[data-rating] .interval").all_inner_texts()) == 4
    shot(page, "flashcard-back")
    attempt_id = page.locator("#attempt").get_attribute("data-attempt-id")
    page.locator("body").focus()
    steps.press_and_wait_for_next(page, lambda: page.keyboard.press("4"))
    assert page.request.get(f"/api/attempts/{attempt_id}").json()["rating"] == "easy"
    assert steps.question_kind(page) == "flashcard"


def test_a_self_assessment_is_saved_and_mastery_does_not_move(page: Any, live_server: LiveServer,
                                                              shot: Any) -> None:
    lesson = live_server.lesson
    section = lesson.sections[0].id
    page.goto(f"/lessons/{lesson.id}")
    mastery_before = page.request.get("/api/mastery").json()
    mastered_before = page.request.get("/api/progress").json()["mastered"]
    button = page.locator(f"#sa-{section} button[value='3']")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.locator(f"#sa-{section} .sa-status")).to_contain_text("已保存自评")
    assert button.get_attribute("aria-pressed") == "true"
    assert page.locator(f"#sa-{section} .sa-current strong").inner_text() == "3 大致会"
    box = page.locator(f"#sa-{section}")
    assert box.locator(".badge").inner_text() == "自评"
    assert "不是掌握记录" in page.locator(f"#{box.get_attribute('aria-describedby')}").inner_text()
    saved = page.request.get("/api/self-assessments").json()
    assert [(s["ref"], s["rating"]) for s in saved] == [(section, 3)]
    assert page.request.get("/api/mastery").json() == mastery_before
    assert page.request.get("/api/progress").json()["mastered"] == mastered_before
    shot(page, "lesson")
    page.goto(f"/lessons/{lesson.id}?lang=en")
    assert page.locator("html").get_attribute("lang") == "en"
    shot(page, "lesson-en")


def test_moving_a_simulator_slider_changes_the_allocation(page: Any, browser: Any,
                                                          live_server: LiveServer,
                                                          shot: Any) -> None:
    page.goto("/simulator")
    allocation = page.locator("section.step-target .alloc-list")
    assert allocation.inner_text() == "A 1 · B 6 · C 1"
    slider = page.locator("#f-B-num_computed_tokens-range")
    slider.focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("section.step-target .alloc-list")).to_have_text("A 1 · B 5 · C 2")
    assert page.locator("#f-B-num_computed_tokens").input_value() == "5"
    assert steps.focus_is_visible(page)
    assert "B.num_computed_tokens=5" in page.url
    # On a phone the result is far below: one line beside the controls says the allocation.
    summary = page.locator("#sim-summary")
    expect(summary).to_contain_text("A 1 · B 5 · C 2——合计 8")
    box, height = summary.bounding_box(), page.viewport_size["height"]
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height
    shot(page, "simulator")
    scripted = page.locator("section.step-target table").inner_text()

    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        plain = context.new_page()
        plain.goto(page.url.replace(live_server.url, ""))
        assert plain.locator("section.step-target table").inner_text() == scripted
    finally:
        context.close()

    page.locator("a.preset[data-preset='spec-11-10-3']").focus()
    page.keyboard.press("Enter")
    expect(page.locator("section.step-target .alloc-list")).to_have_text("A 4")
    row = page.locator("section.step-target tr[data-request='A']").inner_text()
    assert "10 → 14 → 12" in row
    shot(page, "simulator-spec")


def test_linking_another_browser_with_a_one_time_code(page: Any, browser: Any,
                                                      live_server: LiveServer,
                                                      shot: Any) -> None:
    page.goto("/link")
    page.locator("#code-form button").focus()
    page.keyboard.press("Enter")
    code = page.locator("#link-code")
    code.wait_for()
    shot(page, "link")
    other_context = browser.new_context(base_url=live_server.url)
    try:
        other = other_context.new_page()
        other.goto("/link")
        assert other.request.get("/api/me").json()["learner"] != page.request.get(
            "/api/me").json()["learner"]
        other.locator("#link-code-input").focus()
        other.keyboard.type(code.inner_text())
        other.keyboard.press("Enter")
        other.wait_for_selector("text=已关联")
        assert other.request.get("/api/me").json()["learner"] == page.request.get(
            "/api/me").json()["learner"]
    finally:
        other_context.close()


def test_a_refused_code_is_named_in_the_page_language_under_its_box(page: Any) -> None:
    page.goto("/link")
    page.locator("#link-code-input").focus()
    page.keyboard.type("!!")
    page.keyboard.press("Enter")
    expect(page.locator("#link-error")).to_be_visible()
    assert page.locator("#link-error").inner_text() == "这不是关联代码"
    page.goto("/link?lang=en")
    page.locator("#link-code-input").focus()
    page.keyboard.type("!!")
    page.keyboard.press("Enter")
    expect(page.locator("#link-error")).to_be_visible()
    assert page.locator("#link-error").inner_text() == "not a link code"


def test_everything_works_with_javascript_off(nojs_page: Any, live_server: LiveServer,
                                              shot: Any) -> None:
    page = nojs_page
    steps.start(page, "/quiz", size=2)
    steps.type_answer(page, live_server, right=False)
    steps.submit_with_enter(page)
    page.wait_for_url("**/attempts/*")
    assert page.locator("h1").inner_text() == "✗ 答错了"  # the icon, then the words
    assert page.locator("#reveal").count() == 0
    shot(page, "nojs-quiz-wrong")
    steps.explain(page, "I forgot that running goes first")
    shot(page, "nojs-quiz-reveal")
    steps.next_question(page)
    steps.type_answer(page, live_server, right=True)
    steps.submit_by_keyboard(page)
    page.wait_for_url("**/attempts/*")
    assert page.locator("h1").inner_text() == "✓ 答对了"
    page.locator("button[value='easy']").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("text=本轮完成")

    lesson = live_server.lesson
    section = lesson.sections[0].id
    page.goto(f"/lessons/{lesson.id}")
    page.locator(f"#sa-{section} button[value='2']").focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**saved={section}*")
    pressed = page.locator(f"#sa-{section} button[value='2']").get_attribute("aria-pressed")
    assert pressed == "true"
    shot(page, "nojs-lesson")

    page.goto("/simulator")
    page.locator("#f-B-num_computed_tokens").focus()
    page.keyboard.press("Control+A")
    page.keyboard.type("5")
    page.keyboard.press("Enter")
    page.wait_for_url("**B.num_computed_tokens=5*")
    assert page.locator("section.step-target .alloc-list").inner_text() == "A 1 · B 5 · C 2"
    shot(page, "nojs-simulator")

    page.goto("/link")
    page.locator("#code-form button").focus()
    page.keyboard.press("Enter")
    page.locator("#link-code").wait_for()
    page.goto("/progress")
    assert page.locator("svg.chart").count() == 3
    shot(page, "nojs-progress")
