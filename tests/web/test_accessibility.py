"""axe-core on every page and state a learner meets, in both languages, on a desktop and a
phone: zero WCAG 2.1 AA violations, and no interface text in the other language. Each state
is also kept as a screenshot (``test-output/screenshots/a11y-<lang>-<viewport>-<state>.png``;
a page taller than ``PICTURE_HEIGHT``, such as the lesson, as its first screen).

The walk is one learner's first session: home, the lesson (on a phone also with its contents
unfolded) and its reference pages, a quiz (a refused answer, a wrong answer at the explanation
gate, a refused diagnosis, the reveal with its graded diagnosis, a new variant tried after it
and its result, a right answer with its ratings, the summary), the lesson while a question is
open (the open-book gate), flashcards, the simulator (and its error state), progress (and its
charts' tables), linking, the Anki page and an unknown URL; a report of a problem sent from
the reveal, and the card browser (the list, a suspension, a search, an item's history, a
search that finds nothing); the author's sign-in and item analysis (its variants unfolded);
then joining a cohort (refused, joined), the cohort's instructor page and its item analysis,
and erasing (asked, erased). A second walk takes representative pages in the dark colour scheme.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from babel.messages.pofile import read_po

from quizsvc.http.language import TRANSLATIONS
from tests.support import pages as steps
from tests.support.chromium import keep_picture
from tests.support.cohorts import live_cohort
from tests.support.live import LIVE_AUTHOR_TOKEN, LiveServer

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
WCAG_AA = {"runOnly": {"type": "tag",
                       "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
           "resultTypes": ["violations"]}
AXE = Axe()
# The page's own text: every text node outside scripts, hidden parts, names that are data
# (translate="no", such as the Anki deck's bilingual name) and elements marked in another
# language (the language switch is one).
PAGE_TEXT = """(pageLang) => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("script, style, [hidden], [translate=no]")) continue;
    const marked = parent.closest("[lang]");
    if (marked && !marked.lang.startsWith(pageLang)) continue;
    if (node.textContent.trim()) found.push(node.textContent.trim());
  }
  return found;
}"""
CHINESE = re.compile(r"[\u3400-\u9fff]")


def english_interface() -> list[str]:
    """The catalog's English sentences (three words or more, without placeholders) that
    Chinese says otherwise: none may show on a Chinese page."""
    with (TRANSLATIONS / "zh" / "LC_MESSAGES" / "messages.po").open("rb") as po:
        catalog = read_po(po)
    return sorted({m.id for m in catalog if isinstance(m.id, str) and m.id != m.string
                   and len(m.id.split()) >= 3 and "%" not in m.id})


ENGLISH_UI = english_interface()


class Walk:
    """Check each state of the walk with axe, screenshot it, and collect what axe finds."""

    def __init__(self, page: Any, name: str, lang: str, screenshots: Path) -> None:
        self.page = page
        self.lang = lang
        self.name = name
        self.screenshots = screenshots
        self.found: dict[str, str] = {}
        self.states: list[str] = []

    def check(self, state: str, within: str | None = None) -> None:
        """Run axe on the page as it is now (on the part ``within`` selects, when only that
        part changed since the page was last checked whole)."""
        self.page.wait_for_load_state("load")
        results = AXE.run(self.page, context=within, options=WCAG_AA)
        if results.violations_count:
            self.found[state] = results.generate_report()
        texts = self.page.evaluate(PAGE_TEXT, self.lang)
        if self.lang == "en":
            wrong = [text[:60] for text in texts if CHINESE.search(text)]
        else:
            joined = "\n".join(texts)
            wrong = [sentence for sentence in ENGLISH_UI if sentence in joined]
        if wrong:
            self.found[f"{state} (text in the other language)"] = "\n".join(wrong)
        self.keep_picture(state)
        self.states.append(state)

    def keep_picture(self, state: str) -> None:
        """Save the state's picture (``keep_picture``: a long page keeps its first screen)."""
        keep_picture(self.page, self.screenshots / f"a11y-{self.name}-{state}.png")


@pytest.fixture(params=[(lang, viewport) for lang in ("zh", "en") for viewport in VIEWPORTS],
                ids=lambda p: f"{p[0]}-{p[1]}")
def walk(request: pytest.FixtureRequest, browser: Any, live_server: LiveServer,
         screenshot_dir: Path) -> Iterator[Walk]:
    """A fresh learner's page in one language and viewport, JavaScript on."""
    lang, viewport = request.param
    context = browser.new_context(base_url=live_server.url, viewport=VIEWPORTS[viewport],
                                  locale="zh-CN" if lang == "zh" else "en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"/?lang={lang}")  # the choice is kept in a cookie from here on
    yield Walk(page, f"{lang}-{viewport}", lang, screenshot_dir)
    context.close()


def step(page: Any, action: Callable[[], Any]) -> None:
    """Do one action that loads another page and wait for it."""
    with page.expect_navigation():
        action()


def open_chart_tables(page: Any) -> None:
    """Open every chart's table fold (the data behind the picture)."""
    for summary in page.locator("details.chart-data > summary").all():
        summary.click()


def test_every_page_and_state_passes_axe(walk: Walk, live_server: LiveServer) -> None:
    checker = walk
    page = checker.page
    lesson = live_server.lesson.id
    checker.check("home")
    for path, state in (("/lessons", "lessons"), (f"/lessons/{lesson}", "lesson"),
                        (f"/lessons/{lesson}/reference", "reference"),
                        (f"/lessons/{lesson}/glossary", "glossary"), ("/quiz", "quiz-start")):
        page.goto(path)
        checker.check(state)
        if state == "lesson" and page.locator(".toc-fold summary").is_visible():
            page.locator(".toc-fold summary").click()  # a phone: the contents unfolded
            # Unfolding changes only the fold: axe runs every rule on the fold's elements. Rules
            # on the document as a whole (bypass; the html element's lang and title) and on the
            # rest of the page ran on this same document just above, folded.
            checker.check("lesson-contents", within=".toc-fold")

    steps.start(page, "/quiz", size=2)
    session_url = page.url
    checker.check("question")
    if steps.question_kind(page) in ("integer", "vector"):
        for box in page.locator("#answer-fields input[type=text]").all():
            box.fill("x")
        step(page, lambda: page.locator("#submit-answer").click())
        checker.check("question-refused")
    page.goto(f"/lessons/{lesson}")
    checker.check("open-book-gate")
    page.goto(session_url)
    steps.type_answer(page, live_server, right=False)
    step(page, lambda: page.locator("#submit-answer").click())
    checker.check("explain-gate")
    page.locator("#explanation").fill("?")
    page.locator("input[name='rule']").first.check()
    step(page, lambda: page.locator("#explain-form button").click())
    checker.check("explain-refused")
    page.locator("#explanation").fill("I gave the waiting request its budget first")
    page.locator("input[name='rule']").first.check()
    step(page, lambda: page.locator("#explain-form button").click())
    checker.check("reveal")
    page.locator("#report summary").click()
    page.locator("#report-reason").select_option("unclear")
    page.locator("#report-text").fill("Which request goes first here?")
    step(page, lambda: page.locator("#report-form button").click())
    checker.check("report-sent")
    if page.locator("#new-variant").count():  # a numeric question: try a new variant
        reveal_url = page.url
        step(page, lambda: page.locator("#new-variant").click())
        checker.check("new-variant")
        steps.type_answer(page, live_server, right=True)
        step(page, lambda: page.locator("#submit-answer").click())
        checker.check("new-variant-result")
        page.goto(reveal_url)
    step(page, lambda: page.locator("#next-link").click())
    steps.type_answer(page, live_server, right=True)
    step(page, lambda: page.locator("#submit-answer").click())
    checker.check("right-ratings")
    step(page, lambda: page.locator("button[data-rating='good']").click())
    checker.check("summary")

    steps.start(page, "/flashcards", size=1)
    checker.check("flashcard-front")
    step(page, lambda: page.locator("#submit-answer").click())
    checker.check("flashcard-back")

    page.goto("/browse")
    checker.check("browse")
    step(page, lambda: page.locator("#browse-table .hold-form button[value=suspend]")
         .first.click())
    checker.check("browse-suspended")
    page.goto(f"/lessons/{lesson}/browse?q=is:suspended")
    checker.check("browse-search")
    step(page, lambda: page.locator("#browse-table th[scope=row] a").first.click())
    checker.check("browse-item")
    page.goto(f"/lessons/{lesson}/browse?q=no-such-words-anywhere")
    checker.check("browse-empty")
    for path, state in (("/simulator", "simulator"), ("/simulator?token_budget=0",
                                                      "simulator-error"),
                        ("/progress", "progress"), ("/link", "link"),
                        (f"/lessons/{lesson}/anki", "anki"), ("/no/such/page", "not-found")):
        page.goto(path)
        checker.check(state)
    page.goto("/progress")
    open_chart_tables(page)
    checker.check("progress-chart-tables")
    page.goto("/link")
    step(page, lambda: page.locator("#code-form button").click())
    checker.check("link-code")
    page.goto("/author/item-analysis")
    checker.check("author-sign-in")
    page.locator("#author-token").fill(LIVE_AUTHOR_TOKEN)
    step(page, lambda: page.locator("#author-sign-in button").click())
    page.locator("#variants-h ~ details summary").first.click()
    checker.check("item-analysis")

    cohort = live_cohort(live_server, f"Class {checker.name}")
    page.goto(f"/join/{cohort.join_code}")
    checker.check("cohort-join")
    page.locator("#display-name").fill("a@b")
    step(page, lambda: page.locator("#join-form button[type=submit]").click())
    checker.check("cohort-join-refused")
    page.locator("#display-name").fill("Lin")
    page.locator("#share-explanations").check()
    step(page, lambda: page.locator("#join-form button[type=submit]").click())
    checker.check("cohort-joined")
    page.goto(f"/cohorts/{cohort.id}/{cohort.instructor_token}")
    checker.check("cohort-instructor")
    step(page, lambda: page.locator("#item-analysis-link").click())
    checker.check("cohort-item-analysis")
    page.goto("/erase")
    checker.check("erase")
    page.locator("#confirm-erase").check()
    step(page, lambda: page.locator("#erase-form button").click())
    checker.check("erased")
    assert not checker.found, "\n\n".join(f"== {state}\n{report}"
                                          for state, report in checker.found.items())
    assert len(checker.states) >= 20


@pytest.mark.parametrize(("lang", "viewport"), [("zh", "phone"), ("en", "desktop")])
def test_the_dark_scheme_passes_axe_on_representative_pages(
        browser: Any, live_server: LiveServer, screenshot_dir: Path, lang: str,
        viewport: str) -> None:
    """The colours a system's dark preference picks keep AA contrast: home, the lesson, a
    question, a wrong answer's explanation gate and reveal, flashcards, the simulator and
    progress with its charts' tables open."""
    context = browser.new_context(base_url=live_server.url, viewport=VIEWPORTS[viewport],
                                  locale="zh-CN" if lang == "zh" else "en-US",
                                  color_scheme="dark")
    context.set_default_timeout(15_000)
    page = context.new_page()
    try:
        page.goto(f"/?lang={lang}")
        checker = Walk(page, f"{lang}-{viewport}-dark", lang, screenshot_dir)
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        checker.check("home")
        page.goto(f"/lessons/{live_server.lesson.id}")
        checker.check("lesson")
        steps.start(page, "/quiz", size=2)
        checker.check("question")
        steps.type_answer(page, live_server, right=False)
        step(page, lambda: page.locator("#submit-answer").click())
        checker.check("explain-gate")
        page.locator("#explanation").fill("I gave the waiting request its budget first")
        page.locator("input[name='rule']").first.check()
        step(page, lambda: page.locator("#explain-form button").click())
        checker.check("reveal")
        steps.start(page, "/flashcards", size=1)
        step(page, lambda: page.locator("#submit-answer").click())
        checker.check("flashcard-back")
        for path, state in (("/simulator", "simulator"), ("/progress", "progress")):
            page.goto(path)
            checker.check(state)
        open_chart_tables(page)
        checker.check("progress-chart-tables")
        background = page.evaluate(
            "getComputedStyle(document.documentElement).backgroundColor")
        assert background == "rgb(21, 24, 28)", "the dark scheme's paper (#15181c)"
    finally:
        context.close()
    assert not checker.found, "\n\n".join(f"== {state}\n{report}"
                                          for state, report in checker.found.items())
