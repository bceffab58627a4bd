"""Keyboard steps a learner takes in the browser tests (no mouse: focus, type, press keys)."""

from __future__ import annotations

import json
import re
from typing import Any

from playwright.sync_api import expect

from tests.support.live import LiveServer


def start(page: Any, path: str, size: int) -> None:
    """Open a start page, type the session size and press Enter."""
    page.goto(path)
    size_field = page.locator("#start-size")
    size_field.focus()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(size))
    page.keyboard.press("Enter")
    page.wait_for_url("**/study/*")


def question_kind(page: Any) -> str:
    """Return the answer shape of the question on screen."""
    return page.locator("#answer-form").get_attribute("data-input-type")


def variant_id(page: Any) -> str:
    """Return the served variant's opaque id (as the form carries it)."""
    return page.locator("#answer-form").get_attribute("data-variant-id")


def wrong_version(kind: str, right: Any, options: list[str]) -> Any:
    """Return an answer of the same shape that is surely wrong."""
    if kind == "vector":
        return [value + 1 for value in right]
    if kind == "integer":
        return right + 1
    if kind == "choice":
        return next(option for option in options if option != right)
    if kind == "order":
        return list(reversed(right))
    if kind == "multi":
        return [option for option in options if option not in right][:1] or options[:1]
    raise AssertionError(f"no wrong answer for a {kind} question")


def type_answer(page: Any, live: LiveServer, right: bool) -> Any:
    """Type the right (or a wrong) answer with the keyboard; leave focus on the last field.

    Returns the correct answer, looked up on the server for the assertions.
    """
    kind = question_kind(page)
    correct = live.right_answer(variant_id(page))
    options = json.loads(page.locator("#answer-form").get_attribute("data-options"))
    value = correct if right else wrong_version(kind, correct, options)
    if kind == "vector":
        for index, element in enumerate(value):
            page.locator(f"#answer-{index}").focus()
            page.keyboard.type(str(element))
    elif kind == "integer":
        page.locator("#answer").focus()
        page.keyboard.type(str(value))
    elif kind in ("choice", "multi"):
        chosen = [value] if kind == "choice" else value
        for option in chosen:
            page.locator(f"input[name='answer'][value='{option}']").focus()
            page.keyboard.press("Space")
    elif kind == "order":
        for position, option in enumerate(value, start=1):
            select = page.locator(f"select[name='position.{option}']")
            select.focus()
            page.keyboard.press("Home")  # "choose a position", then 1, 2, ...
            for _ in range(position):
                page.keyboard.press("ArrowDown")
    elif kind == "text":
        page.locator("#answer").focus()
        page.keyboard.type("the drafts that were rejected")
    return correct


def submit_by_keyboard(page: Any) -> None:
    """Move focus to the submit button with the keyboard and press Enter."""
    page.locator("#submit-answer").focus()
    page.keyboard.press("Enter")


def submit_with_enter(page: Any) -> None:
    """Press Enter where the learner is: in a text field that submits the form, elsewhere on
    the submit button (Enter on a radio or a select does not submit everywhere)."""
    typing = page.evaluate("document.activeElement.tagName === 'INPUT' && "
                           "document.activeElement.type === 'text'")
    if not typing:
        page.locator("#submit-answer").focus()
    page.keyboard.press("Enter")


def focus_is_visible(page: Any) -> bool:
    """Tell whether the focused element draws a visible outline."""
    return page.evaluate("""() => {
        const style = getComputedStyle(document.activeElement);
        return style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    }""")


def next_question(page: Any) -> None:
    """Follow the "next question" link by keyboard and wait until another variant is shown."""
    press_and_wait_for_next(page, lambda: (page.locator("#next-link").focus(),
                                           page.keyboard.press("Enter")))


def press_and_wait_for_next(page: Any, action: Any) -> None:
    """Do ``action`` (a key press that leads on) and wait until the next question is shown.

    The scripted page keeps its URL, so the wait compares the served variant's id.
    """
    previous = variant_id(page) if page.locator("#answer-form").count() else ""
    action()
    # No page-side predicate: the pages' Content-Security-Policy forbids evaluating strings.
    expect(page.locator("#next-link")).to_have_count(0)
    form = page.locator("#answer-form")
    if previous:
        expect(form.and_(page.locator(f"[data-variant-id='{previous}']"))).to_have_count(0)
    # Keys pressed next must meet the page's script, not race it (it runs once, on load).
    page.wait_for_load_state("load")


def answer_until(page: Any, live: LiveServer, kind: str) -> None:
    """Answer questions right until one of ``kind`` is on screen (``answer_until_one_of``)."""
    answer_until_one_of(page, live, {kind})


def answer_until_one_of(page: Any, live: LiveServer, kinds: set[str]) -> str:
    """Answer questions right until one of ``kinds`` is on screen; return its kind.

    The questions before it are answered through the API with the page's own cookies (its
    learner, its session): the tests that call this are about the question of that kind, and
    the keyboard path through a question is theirs and other tests' to drive. Clicking
    through up to 40 questions to reach a rare kind took most of such a test's time.
    """
    if (shown := question_kind(page)) in kinds:
        return shown
    session_id = re.search(r"/study/([^/?#]+)", page.url).group(1)  # type: ignore[union-attr]
    session_url = f"/study/{session_id}"
    csrf = {cookie["name"]: cookie["value"] for cookie in page.context.cookies()}["csrf_token"]
    for _ in range(40):
        reply = page.request.get(f"/api/sessions/{session_id}/next")
        assert reply.ok, reply.text()
        question = reply.json()["question"]
        assert question is not None, f"the session ended before a {kinds} question came up"
        if question["input"]["type"] in kinds:
            page.goto(session_url)
            expect(page.locator("#answer-form")).to_have_attribute(
                "data-variant-id", question["variant_id"])
            page.wait_for_load_state("load")  # keys pressed next meet the page's script
            return str(question["input"]["type"])
        answered = page.request.post("/api/attempts", headers={
            "X-CSRF-Token": csrf, "Idempotency-Key": f"before-{question['variant_id']}"}, data={
            "variant_id": question["variant_id"],
            "answer": live.right_answer(question["variant_id"])})
        assert answered.status == 201, answered.text()
    raise AssertionError(f"no {kinds} question came up")


def diagnose(page: Any, sentence: str, rule: int = 0) -> None:
    """Write the explanation and pick the ``rule``-th offered rule with the keyboard (Space
    on a radio checks it), without submitting; focus stays on that radio."""
    page.locator("#explanation").focus()
    page.keyboard.type(sentence)
    page.keyboard.press("Tab")  # into the rule group
    page.locator("#rule-choices input[name='rule']").nth(rule).focus()
    page.keyboard.press("Space")


def explain(page: Any, sentence: str, rule: int = 0) -> None:
    """Diagnose (``diagnose``), then submit the explanation with Enter on its button and
    wait for the reveal."""
    diagnose(page, sentence, rule)
    page.locator("#explain-form button").focus()
    page.keyboard.press("Enter")
    page.locator("#reveal").wait_for()
    page.wait_for_load_state("load")  # keys pressed next meet the page's script
