"""Every question and every reveal has its own URL: reload and Back never lose a reveal.

Walked with JavaScript on and off (the script only adds keys; the forms post either way),
reloading at each step of the closed-book flow and going Back from the reveal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support import pages as steps
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser


@pytest.fixture(params=["js", "nojs"])
def learner_page(request: pytest.FixtureRequest) -> Any:
    """A fresh learner's page with JavaScript on, then off."""
    return request.getfixturevalue("page" if request.param == "js" else "nojs_page")


VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
POSITION = {"zh": "第 2 题，共 2 题", "en": "Question 2 of 2"}


@pytest.fixture(params=[("zh", "phone", True), ("zh", "phone", False),
                        ("en", "desktop", True), ("en", "desktop", False)],
                ids=lambda p: f"{p[0]}-{p[1]}-{'js' if p[2] else 'nojs'}")
def walker(request: pytest.FixtureRequest, browser: Any,
           live_server: LiveServer) -> Iterator[tuple[Any, str]]:
    """A fresh learner's page in one language and size, with JavaScript on or off."""
    lang, viewport, javascript = request.param
    context = browser.new_context(base_url=live_server.url, viewport=VIEWPORTS[viewport],
                                  java_script_enabled=javascript,
                                  locale="zh-CN" if lang == "zh" else "en-US")
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"/?lang={lang}")  # kept in a cookie from here on
    yield page, lang
    context.close()


def test_reload_and_back_keep_the_question_the_gate_and_the_reveal(
        walker: tuple[Any, str], live_server: LiveServer) -> None:
    page, lang = walker
    steps.start(page, "/quiz", size=2)
    question_url, shown = page.url, steps.variant_id(page)
    page.reload()
    assert steps.variant_id(page) == shown, "a reload serves the same variant"

    steps.type_answer(page, live_server, right=False)
    steps.submit_by_keyboard(page)
    page.wait_for_url(re.compile(r".*/attempts/\d+$"))
    attempt_url = page.url
    page.reload()
    expect(page.locator("#explanation")).to_be_visible()
    assert page.locator("#reveal").count() == 0, "reloading the gate reveals nothing"

    page.locator("#explanation").fill("I gave the waiting request its budget first")
    page.locator("input[name='rule']").first.check()
    page.locator("#explain-form button").click()
    page.wait_for_url(re.compile(r".*/attempts/\d+#reveal$"))
    expect(page.locator("#reveal")).to_be_visible()
    page.reload()
    expect(page.locator("#reveal")).to_be_visible()
    assert "I gave the waiting request its budget first" in page.locator("#reveal").inner_text()

    page.go_back()  # to the attempt's URL before the explanation: the reveal stays earned
    assert page.url.split("#")[0] == attempt_url
    page.reload()
    expect(page.locator("#reveal")).to_be_visible()
    assert page.locator("#explanation").count() == 0

    steps.next_question(page)
    assert page.url == question_url and steps.variant_id(page) != shown
    expect(page.locator("#q-position")).to_have_text(POSITION[lang])
    assert page.locator("html").get_attribute("lang") == ("zh-Hans" if lang == "zh" else "en")


def test_a_stale_tab_posting_an_answered_question_is_told_and_shown_the_next(
        learner_page: Any, live_server: LiveServer) -> None:
    """Two tabs on one session: the second posts the question the first already answered;
    it is told so and shown the session's next question, and nothing is graded twice."""
    page = learner_page
    steps.start(page, "/quiz", size=2)
    first = steps.variant_id(page)
    stale = page.context.new_page()
    stale.goto(page.url)
    steps.type_answer(page, live_server, right=True)
    steps.submit_by_keyboard(page)
    page.wait_for_url(re.compile(r".*/attempts/\d+$"))
    steps.type_answer(stale, live_server, right=False)
    steps.submit_by_keyboard(stale)
    expect(stale.locator("#notice")).to_have_text("这道题已在另一个标签页作答；这是下一题。")
    assert steps.variant_id(stale) != first
    attempt_id = page.locator("#attempt").get_attribute("data-attempt-id")
    assert page.request.get(f"/api/attempts/{attempt_id}").json()["correct"] is True, \
        "the first tab's answer stands"
    stale.close()


def test_digits_pick_options_and_ctrl_enter_sends_the_explanation(
        page: Any, live_server: LiveServer) -> None:
    """Keyboard parity with the script on: the first option has focus on load, 1..n picks
    the n-th option, and Ctrl+Enter in the explanation submits it."""
    steps.start(page, "/quiz", size=40)
    steps.answer_until(page, live_server, "choice")
    # autofocus lands at the browser's next rendering step, after load: wait for it
    expect(page.locator("#answer-fields input[name='answer']").first).to_be_focused()
    options = page.locator("#answer-fields input[name='answer']")
    right = live_server.right_answer(steps.variant_id(page))
    values = [options.nth(i).get_attribute("value") for i in range(options.count())]
    wrong = next(i for i, value in enumerate(values) if value != right)
    page.keyboard.press(str(wrong + 1))
    assert page.locator("#answer-fields input[name='answer']:checked").get_attribute(
        "value") == values[wrong]
    steps.submit_by_keyboard(page)
    page.wait_for_url(re.compile(r".*/attempts/\d+$"))
    expect(page.locator("#explanation")).to_be_focused()
    steps.diagnose(page, "I picked the queue that arrived first")
    page.locator("#explanation").focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_url(re.compile(r".*#reveal$"))
    expect(page.locator("#reveal")).to_be_visible()


def test_a_list_pasted_into_the_first_box_spreads_over_the_boxes(
        page: Any, live_server: LiveServer) -> None:
    """With the script on, pasting "1，6" (any separator, full-width too) into a vector's
    first box fills every box, as the server does with such a post."""
    steps.start(page, "/quiz", size=40)
    steps.answer_until(page, live_server, "vector")
    length = int(page.locator("#answer-form").get_attribute("data-length"))
    right = live_server.right_answer(steps.variant_id(page))
    pasted = "，".join(str(value) for value in right)
    page.locator("#answer-0").focus()
    page.evaluate("""(text) => {
        const data = new DataTransfer();
        data.setData("text", text);
        document.activeElement.dispatchEvent(new ClipboardEvent("paste", {
            clipboardData: data, bubbles: true, cancelable: true}));
    }""", pasted)
    assert [page.locator(f"#answer-{i}").input_value() for i in range(length)] == [
        str(value) for value in right]
    assert page.evaluate("document.activeElement.id") == f"answer-{length - 1}"
    steps.submit_by_keyboard(page)
    page.wait_for_url(re.compile(r".*/attempts/\d+$"))
    expect(page.locator("#result-h")).to_have_text(re.compile(r"答对了$"))


# Every answer shape the real bank serves in a quiz (it has no single-integer question).
@pytest.mark.parametrize("kind", ["vector", "choice", "multi", "order"])
def test_every_question_kind_by_keyboard_alone(page: Any, live_server: LiveServer,
                                               kind: str) -> None:
    """Each answer shape has its first input focused on load and is answered, submitted and
    shown with no mouse at all."""
    steps.start(page, "/quiz", size=50)
    steps.answer_until(page, live_server, kind)
    # the first input has focus (autofocus lands after load: wait for it)
    expect(page.locator("#answer-fields :focus")).to_have_count(1)
    steps.type_answer(page, live_server, right=True)
    steps.submit_by_keyboard(page)
    page.wait_for_url(re.compile(r".*/attempts/\d+$"))
    expect(page.locator("#result-h")).to_have_text(re.compile(r"答对了$"))
