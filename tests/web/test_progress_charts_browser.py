"""The progress page's charts in Chromium: at 320 CSS px, with scripts off and every table
unfolded, the page does not scroll sideways and each chart fits, in either scheme."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support import pages as steps
from tests.support.live import LiveServer

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_charts_reflow_at_320_px_without_scripts(browser: Any, live_server: LiveServer,
                                                     shot: Any, scheme: str) -> None:
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False,
                                  viewport={"width": 320, "height": 700}, color_scheme=scheme)
    page = context.new_page()
    try:
        page.goto("/?lang=en")
        steps.start(page, "/quiz", size=1)
        steps.type_answer(page, live_server, right=False)
        steps.submit_with_enter(page)
        page.wait_for_url("**/attempts/*")
        page.goto("/progress")
        figures = page.locator("figure.chart-figure")
        assert figures.count() == 3
        for summary in page.locator("details.chart-data > summary").all():
            summary.click()
        assert page.locator("details.chart-data[open] table").count() == 3
        assert page.evaluate("document.documentElement.scrollWidth") <= 320
        for svg in page.locator("svg.chart").all():
            box = svg.bounding_box()
            assert box is not None and 0 < box["width"] <= 320 and box["height"] > 100
        bars = page.locator("#reviews-per-day-svg rect.bar")
        assert bars.count() == 1 and bars.get_attribute("data-value") == "1"
        shot(page, f"progress-charts-320-{scheme}")
    finally:
        context.close()
