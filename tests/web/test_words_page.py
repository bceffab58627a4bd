"""Words a learner reads: full-width punctuation in Chinese on every page of the walk, the
options of a choice question marked in place after the reveal, an order question's marks in
the items' own words, and the open-book warning only when a closed-book question is open."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.support import pages as steps
from tests.support.live import LiveServer
from tests.support.walk import step, walk

pytestmark = pytest.mark.browser

# The page's visible text, scripts and hidden parts left out, and the language switch (in
# the other language) and names that are data (translate="no") too.
VISIBLE_TEXT = """(other = "en") => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest(`script, style, [hidden], [translate=no], [lang=${other}]`)) {
      continue;
    }
    if (!parent.checkVisibility()) continue;
    found.push(node.textContent);
  }
  return found.join("");
}"""
CJK = r"[\u3400-\u9fff]"
# An ASCII colon and space after a Chinese character, or an ASCII parenthesis between two.
HALF_WIDTH = re.compile(rf"{CJK}: |{CJK} ?\( ?{CJK}")


def test_no_chinese_page_of_the_walk_writes_half_width_punctuation(
        page: Any, live_server: LiveServer) -> None:
    found: dict[str, list[str]] = {}

    def check(state: str) -> None:
        page.wait_for_load_state("load")
        text = page.evaluate(VISIBLE_TEXT)
        hits = [text[max(0, m.start() - 12):m.end() + 12] for m in HALF_WIDTH.finditer(text)]
        if hits:
            found[state] = hits[:5]

    walk(page, live_server, check)
    assert not found, "\n".join(f"{state}: {hits}" for state, hits in found.items())


def answer_wrong_and_explain(page: Any, live: LiveServer) -> None:
    """Answer the question on screen wrong, explain, and wait for the reveal."""
    steps.type_answer(page, live, right=False)
    step(page, lambda: page.locator("#submit-answer").click())
    page.locator("#explanation").fill("I mixed the order up")
    page.locator("input[name='rule']").first.check()
    step(page, lambda: page.locator("#explain-form button").click())
    page.locator("#reveal").wait_for()


def test_a_choice_reveal_marks_the_options_and_order_marks_name_the_items(
        page: Any, live_server: LiveServer, shot: Any) -> None:
    steps.start(page, "/quiz", size=40)
    seen: set[str] = set()
    while True:  # the questions between are answered right (steps.answer_until_one_of)
        kind = steps.answer_until_one_of(page, live_server, {"choice", "order"} - seen)
        variant = live_server.variant(steps.variant_id(page))
        texts = {o.id: o.text.zh for o in variant.input.options}
        answer_wrong_and_explain(page, live_server)
        seen.add(kind)
        if kind == "choice":
            wrong = page.locator("#marked-options li.option-wrong")
            right = page.locator("#marked-options li.option-right")
            expect(wrong).to_have_count(1)
            expect(wrong).to_contain_text("你的答案")
            expect(wrong).to_contain_text("✗")
            expect(right).to_contain_text(texts[variant.answer])
            expect(right).to_contain_text("正确答案")
            shot(page, "choice-marked-options")
        else:
            marks = page.locator("ul.element-marks").inner_text()
            assert all(texts[option] in marks for option in variant.answer), marks
            assert not re.search(r"= [a-z][a-z0-9-]*[:：]", marks), marks
            shot(page, "order-marks")
        if seen == {"choice", "order"}:
            return
        step(page, lambda: page.locator("#next-link").click())


def test_an_open_flashcard_does_not_close_the_book(page: Any, live_server: LiveServer) -> None:
    lesson = live_server.lesson.id
    steps.start(page, "/flashcards", size=1)
    page.goto(f"/lessons/{lesson}")
    expect(page.locator("h1")).not_to_have_text("先回答，还是翻开书？")
    assert page.locator("article.lesson").count() == 1
    steps.start(page, "/quiz", size=1)
    page.goto(f"/lessons/{lesson}")
    expect(page.locator(".warning")).to_be_visible()


def test_progress_says_it_in_the_learners_words_with_the_numbers_folded(
        page: Any, nojs_page: Any, shot: Any) -> None:
    page.goto("/progress?lang=en")
    visible = page.evaluate(VISIBLE_TEXT, "zh-Hans")
    for word in ("quizsvc fsrs optimize", "log loss", "Log loss", "Brier", "retrievability",
                 "UTC", "fsrs's"):
        assert word not in visible, word
    advanced = page.locator("details#advanced")
    assert "quizsvc fsrs optimize" in advanced.text_content()
    assert "Brier" in advanced.text_content()
    day = page.locator("#due-forecast-table time").first
    iso = day.get_attribute("datetime")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", iso) and day.text_content() != iso
    advanced.locator("summary").click()
    shot(page, "progress-advanced-open")
    nojs_page.goto("/progress?lang=en")
    assert nojs_page.locator("#due-forecast-table time").first.text_content() == iso
