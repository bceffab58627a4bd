"""The walk through every page and state a learner meets, for the browser checks that look at
each state (axe in ``tests/web/test_accessibility.py``, reflow at 320 px, the zh page's
punctuation): one learner's first session, written once.

Home, the lesson and its reference pages, a quiz (a refused answer, a wrong answer at the
explanation gate, the reveal, a right answer with its ratings, the summary), the lesson while
a question is open (the open-book gate), a wrong model's step beside vLLM's, flashcards (front,
back, the next card with Undo, the summary), the simulator (and its error state), progress,
linking, the Anki page and an unknown URL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support import pages as steps
from tests.support.live import LiveServer

Check = Callable[[str], None]


def step(page: Any, action: Callable[[], Any]) -> None:
    """Do one action that loads another page and wait for it."""
    with page.expect_navigation():
        action()


def wrong_model_answer(page: Any, live: LiveServer) -> Any:
    """Return a known wrong model's answer to the numeric question on screen, when the ledger
    replays that model (its step can be shown beside vLLM's); ``None`` otherwise."""
    if steps.question_kind(page) not in ("integer", "vector"):
        return None
    variant = live.variant(steps.variant_id(page))
    bank = live.app.config["BANK"]
    for model in variant.misconceptions:
        if bank.model_step(variant.question_id, variant.seed, model.id, "en", variant.answer):
            return model.answer
    return None


def type_numbers(page: Any, value: Any) -> None:
    """Type a numeric answer (one number, or one per box) with the keyboard."""
    if isinstance(value, list):
        for index, element in enumerate(value):
            page.locator(f"#answer-{index}").focus()
            page.keyboard.type(str(element))
    else:
        page.locator("#answer").focus()
        page.keyboard.type(str(value))


def reach_wrong_model_step(page: Any, live: LiveServer) -> None:
    """Answer a quiz's questions right until one can be answered as a replayed wrong model
    does; answer it so, explain, and stop at its reveal (the two step tables)."""
    steps.start(page, "/quiz", size=40)
    for _ in range(40):
        answer = wrong_model_answer(page, live)
        if answer is not None:
            type_numbers(page, answer)
            step(page, lambda: page.locator("#submit-answer").click())
            page.locator("#explanation").fill("I followed the wrong rule")
            page.locator("#rule-choices input[name='rule']").first.check()
            step(page, lambda: page.locator("#explain-form button").click())
            page.locator("#model-diff").wait_for()
            return
        steps.type_answer(page, live, right=True)
        step(page, lambda: page.locator("#submit-answer").click())
        step(page, lambda: page.locator("#next-link").click())
    raise AssertionError("no question answerable as a replayed wrong model came up")


def walk(page: Any, live: LiveServer, check: Check) -> None:
    """Walk a fresh learner (the page's context, its language cookie set) through every state,
    calling ``check(state)`` on each."""
    lesson = live.lesson.id
    page.goto("/")
    check("home")
    for path, state in (("/lessons", "lessons"), (f"/lessons/{lesson}", "lesson"),
                        (f"/lessons/{lesson}/reference", "reference"),
                        (f"/lessons/{lesson}/glossary", "glossary"), ("/quiz", "quiz-start")):
        page.goto(path)
        check(state)

    steps.start(page, "/quiz", size=2)
    session_url = page.url
    check("question")
    if steps.question_kind(page) in ("integer", "vector"):
        for box in page.locator("#answer-fields input[type=text]").all():
            box.fill("x")
        step(page, lambda: page.locator("#submit-answer").click())
        check("question-refused")
    page.goto(f"/lessons/{lesson}")
    check("open-book-gate")
    page.goto(session_url)
    steps.type_answer(page, live, right=False)
    step(page, lambda: page.locator("#submit-answer").click())
    check("explain-gate")
    page.locator("#explanation").fill("I gave the waiting request its budget first")
    page.locator("#rule-choices input[name='rule']").first.check()
    step(page, lambda: page.locator("#explain-form button").click())
    check("reveal")
    step(page, lambda: page.locator("#next-link").click())
    steps.type_answer(page, live, right=True)
    step(page, lambda: page.locator("#submit-answer").click())
    check("right-ratings")
    step(page, lambda: page.locator("button[data-rating='good']").click())
    check("summary")

    reach_wrong_model_step(page, live)
    check("wrong-model-step")

    steps.start(page, "/flashcards", size=2)
    check("flashcard-front")
    step(page, lambda: page.locator("#submit-answer").click())
    check("flashcard-back")
    step(page, lambda: page.locator("button[data-rating='good']").click())
    check("flashcard-undo")
    step(page, lambda: page.locator("#submit-answer").click())
    step(page, lambda: page.locator("button[data-rating='easy']").click())
    check("flashcard-summary")

    for path, state in (("/simulator", "simulator"), ("/simulator?token_budget=0",
                                                      "simulator-error"),
                        ("/progress", "progress"), ("/link", "link"),
                        (f"/lessons/{lesson}/anki", "anki"), ("/no/such/page", "not-found")):
        page.goto(path)
        check(state)
    page.goto("/link")
    step(page, lambda: page.locator("#code-form button").click())
    check("link-code")
