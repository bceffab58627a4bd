"""In Chromium: a wrong answer's diagnosis (a rule and a sentence) by keyboard, and the
lesson's table of contents at hand while reading, on a desktop (a sticky side column) and on
a phone (a fold), the phone one with JavaScript off. Screenshots go to
``test-output/screenshots/``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support import pages as steps
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}


def type_wrong_model(page: Any, live: LiveServer) -> Any:
    """Type the answer of the served numeric variant's first wrong model (one that differs
    from the right answer); return that wrong model."""
    variant = live.variant(steps.variant_id(page))
    model = next(m for m in variant.misconceptions if m.answer != variant.answer)
    values = model.answer if isinstance(model.answer, list) else [model.answer]
    boxes = page.locator("#answer-fields input[type=text]")
    assert boxes.count() == len(values)
    for index, value in enumerate(values):
        boxes.nth(index).focus()
        page.keyboard.type(str(value))
    return model


def rule_position(page: Any, rule_id: str) -> int:
    """Return where ``rule_id`` stands in the offered rule group."""
    values = [radio.get_attribute("value") for radio in
              page.locator("#rule-choices input[name='rule']").all()]
    return values.index(rule_id)


def test_a_diagnosis_is_refused_short_then_graded_against_the_broken_rule(
        page: Any, live_server: LiveServer, shot: Any) -> None:
    steps.start(page, "/quiz", size=40)
    for _ in range(40):  # the first numeric question with a wrong model that differs
        if steps.question_kind(page) in ("integer", "vector"):
            variant = live_server.variant(steps.variant_id(page))
            if any(m.answer != variant.answer for m in variant.misconceptions):
                break
        steps.type_answer(page, live_server, right=True)
        steps.submit_by_keyboard(page)
        page.locator("#next-link").wait_for()
        steps.next_question(page)
    model = type_wrong_model(page, live_server)
    steps.submit_by_keyboard(page)
    page.wait_for_url(re.compile(r".*/attempts/\d+$"))
    breaks = live_server.app.config["BANK"].misconception_info(live_server.lesson.id,
                                                               model.id).breaks
    legend = page.locator("#rule-choices legend")
    expect(legend).to_have_text("你认为自己违反了课程中的哪条规则？")
    assert rule_position(page, breaks) >= 0, "the broken rule is among the offered ones"
    shot(page, "diagnosis-gate")

    steps.diagnose(page, "?", rule_position(page, breaks))
    page.locator("#explain-form button").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#explain-error")).to_contain_text("至少 3 个词")
    assert page.locator("#reveal").count() == 0
    expect(page.locator(f"#rule-choices input[value='{breaks}']")).to_be_checked()
    shot(page, "diagnosis-refused")

    page.locator("#explanation").fill("")
    steps.explain(page, "我把预算先给了等待队列", rule_position(page, breaks))
    verdict = page.locator("#diagnosis-verdict")
    expect(verdict).to_have_class("result-good")
    lesson = live_server.lesson.id
    assert page.locator(f"#diagnosis a[href='/lessons/{lesson}#rule-{breaks}']").count() >= 1
    assert page.locator(f"#wrong-model a[href='/lessons/{lesson}#rule-{breaks}']").count() == 1
    shot(page, "diagnosis-reveal")


@pytest.fixture
def desktop_page(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    """A fresh learner on a 1280x800 screen, JavaScript on."""
    context = browser.new_context(base_url=live_server.url, viewport=DESKTOP, locale="zh-CN")
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


def in_view(page: Any, selector: str, height: int) -> bool:
    """Tell whether the element's box is inside the viewport (to within a pixel: a sticky
    column rests at a fraction of a pixel above the top once the page scrolls)."""
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= -1 and box["y"] + 10 <= height


def test_on_a_desktop_the_contents_stay_beside_the_text_while_reading(
        desktop_page: Any, live_server: LiveServer, screenshot_dir: Path) -> None:
    page = desktop_page
    lesson = live_server.lesson
    page.goto(f"/lessons/{lesson.id}")
    expect(page.locator(".toc-side")).to_be_visible()
    expect(page.locator(".toc-fold")).to_be_hidden()
    last = lesson.rules[-1].id
    link = page.locator(f".toc-side a[href='#rule-{last}']")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**#rule-{last}")
    assert page.evaluate("window.scrollY") > 10_000, "the last rule is far down the page"
    assert in_view(page, f"#rule-{last}", DESKTOP["height"])
    # The column sticks to the top of the screen; its list scrolls on its own, so the link
    # just followed is still in sight.
    assert in_view(page, ".toc-column", DESKTOP["height"]), "the contents stay at hand"
    assert in_view(page, f".toc-side a[href='#rule-{last}']", DESKTOP["height"])
    shot_viewport(page, screenshot_dir, "lesson-contents-desktop")
    back = page.locator(".to-contents a").last
    back.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**#contents")
    assert in_view(page, ".toc-column", DESKTOP["height"])


def shot_viewport(page: Any, screenshot_dir: Path, name: str) -> None:
    """Keep what the screen shows (the contents beside the text), not the whole lesson."""
    page.screenshot(path=str(screenshot_dir / f"{name}-viewport.png"))


def test_on_a_phone_the_contents_fold_opens_by_keyboard_without_javascript(
        nojs_page: Any, live_server: LiveServer, screenshot_dir: Path) -> None:
    page = nojs_page
    lesson = live_server.lesson
    page.goto(f"/lessons/{lesson.id}")
    expect(page.locator(".toc-side")).to_be_hidden()
    fold = page.locator(".toc-fold")
    expect(fold).to_be_visible()
    assert fold.get_attribute("open") is None, "folded until asked for"
    page.locator(".toc-fold summary").focus()
    page.keyboard.press("Enter")
    assert fold.get_attribute("open") is not None
    rule = lesson.rules[len(lesson.rules) // 2].id
    link = page.locator(f".toc-fold a[href='#rule-{rule}']")
    expect(link).to_be_visible()
    shot_viewport(page, screenshot_dir, "lesson-contents-phone")
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url(f"**#rule-{rule}")
    assert in_view(page, f"#rule-{rule}", 844)
    back = page.locator(".to-contents a").nth(3)
    expect(back).to_have_text("回到目录")
    back.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**#contents")
    assert in_view(page, ".toc-fold summary", 844)
