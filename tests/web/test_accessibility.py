"""axe-core on every page and state a learner meets, in both languages, on a desktop and a
phone: zero WCAG 2.1 AA violations, and no interface text in the other language. Each state
is also kept as a screenshot (``test-output/screenshots/a11y-<lang>-<viewport>-<state>.png``).

The walk is one learner's first session (``tests/support/walk.py``, shared with the other
checks of every state).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from babel.messages.pofile import read_po
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from quizsvc.http.language import TRANSLATIONS
from tests.support.live import LiveServer
from tests.support.walk import walk as walk_states

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

    def check(self, state: str) -> None:
        """Run axe on the page as it is now."""
        self.page.wait_for_load_state("load")
        results = AXE.run(self.page, options=WCAG_AA)
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
        try:  # an artifact, never the check: a loaded machine may not draw the long lesson
            self.page.screenshot(path=str(self.screenshots / f"a11y-{self.name}-{state}.png"),
                                 full_page=True, timeout=60_000)
        except PlaywrightTimeout:
            self.page.screenshot(path=str(self.screenshots / f"a11y-{self.name}-{state}.png"),
                                 timeout=60_000)
        self.states.append(state)


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


def test_every_page_and_state_passes_axe(walk: Walk, live_server: LiveServer) -> None:
    walk_states(walk.page, live_server, walk.check)
    assert not walk.found, "\n\n".join(f"== {state}\n{report}"
                                       for state, report in walk.found.items())
    assert len(walk.states) >= 24
