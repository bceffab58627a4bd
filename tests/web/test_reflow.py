"""WCAG 1.4.10 reflow: at 320 CSS px no page scrolls sideways, in either language, in any state
the accessibility walk reaches (a wide table scrolls inside its own focusable, labelled box);
and a wrong model's step beside vLLM's shows the cells that differ without scrolling.

Each state's first screen is kept as a screenshot
(``test-output/screenshots/reflow-<lang>-<state>.png``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.live import LiveServer
from tests.support.walk import reach_wrong_model_step, walk

pytestmark = pytest.mark.browser

NARROW = {"width": 320, "height": 640}
DESKTOP = {"width": 1280, "height": 800}
# The outermost elements that reach past the viewport's right edge, to say what overflows.
WIDE_ELEMENTS = """() => {
  const width = document.documentElement.clientWidth;
  const found = [];
  for (const node of document.body.querySelectorAll("*")) {
    const box = node.getBoundingClientRect();
    if (box.right <= width + 0.5 || !box.width) continue;
    const parent = node.parentElement;
    if (parent && parent.getBoundingClientRect().right > width + 0.5) continue;
    let clipped = false;
    for (let up = parent; up && up !== document.body; up = up.parentElement) {
      if (getComputedStyle(up).overflowX !== "visible") { clipped = true; break; }
    }
    if (clipped) continue;
    found.push(`${node.tagName.toLowerCase()}${node.id ? "#" + node.id : ""}` +
               `.${[...node.classList].join(".")} right=${Math.round(box.right)}`);
  }
  return found.slice(0, 8);
}"""
# The cells the wrong model's whole table marks as differing from vLLM's, and the rows of the
# table of differences with how far each is hidden (in its scrolling box or off the screen).
DIFFERENCES = """() => {
  const width = document.documentElement.clientWidth;
  const hidden = (cell) => {
    const box = cell.getBoundingClientRect();
    const wrap = cell.closest(".table-wrap").getBoundingClientRect();
    return Math.max(0, box.right - Math.min(wrap.right, width), Math.max(wrap.left, 0) - box.left);
  };
  const rows = [...document.querySelectorAll("#model-diff tbody tr")];
  return {marked: document.querySelectorAll("#model-step-2 td.diverges").length,
          rows: rows.length,
          hidden: rows.flatMap((row) => [...row.cells].map(hidden))};
}"""


def narrow_page(browser: Any, live: LiveServer, lang: str, viewport: dict[str, int]) -> Any:
    """Open a fresh learner's page at ``viewport`` with its language cookie set."""
    context = browser.new_context(base_url=live.url, viewport=viewport,
                                  locale="zh-CN" if lang == "zh" else "en-US")
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.goto(f"/?lang={lang}")
    return page


@pytest.fixture
def contexts(browser: Any) -> Iterator[list[Any]]:
    """Close the pages' contexts after the test."""
    opened: list[Any] = []
    yield opened
    for context in opened:
        context.close()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_no_state_of_the_walk_scrolls_sideways_at_320_px(
        lang: str, browser: Any, live_server: LiveServer, screenshot_dir: Path,
        contexts: list[Any]) -> None:
    page = narrow_page(browser, live_server, lang, NARROW)
    contexts.append(page.context)
    wide: dict[str, str] = {}
    states: list[str] = []

    def check(state: str) -> None:
        page.wait_for_load_state("load")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > NARROW["width"]:
            wide[state] = f"{width} px: " + ", ".join(page.evaluate(WIDE_ELEMENTS))
        # The screen as a phone shows it first (the axe walk keeps shorter pages whole).
        page.screenshot(path=str(screenshot_dir / f"reflow-{lang}-{state}.png"),
                        timeout=60_000)  # an artifact: never the check
        states.append(state)

    walk(page, live_server, check)
    assert not wide, "\n".join(f"{state}: {why}" for state, why in wide.items())
    assert len(states) >= 24


@pytest.mark.parametrize(("lang", "viewport"), [("zh", NARROW), ("en", NARROW),
                                                ("en", DESKTOP)])
def test_a_wrong_models_step_shows_what_differs_without_scrolling(
        lang: str, viewport: dict[str, int], browser: Any, live_server: LiveServer,
        contexts: list[Any], shot: Any) -> None:
    page = narrow_page(browser, live_server, lang, viewport)
    contexts.append(page.context)
    reach_wrong_model_step(page, live_server)
    shot(page, f"wrong-model-step-{lang}-{viewport['width']}")
    differences = page.evaluate(DIFFERENCES)
    assert differences["marked"] >= 1 and differences["rows"] == differences["marked"]
    assert max(differences["hidden"]) <= 1, differences
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
