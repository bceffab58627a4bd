"""The simulator with its script: while the inputs cannot run, the last result is marked out
of date; once they can, the mark goes."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_last_result_is_marked_stale_while_the_inputs_are_invalid(page: Any) -> None:
    page.goto("/simulator")
    allocation = page.locator("section.step-target .alloc-list")
    expect(allocation).to_have_text("A 1 · B 6 · C 1")
    budget = page.locator("#f-token_budget")
    budget.fill("0")
    budget.dispatch_event("input")
    expect(page.locator("#sim-errors")).to_be_visible()
    expect(page.locator("#stale-note")).to_have_text(
        "已过期：上面的设置有误，下面是上一次有效设置的结果。")
    assert "stale" in page.locator("#sim-result").get_attribute("class")
    expect(allocation).to_have_text("A 1 · B 6 · C 1")  # the last valid result, kept
    budget.fill("8")
    budget.dispatch_event("input")
    expect(page.locator("#stale-note")).to_have_count(0)
    expect(page.locator("#sim-errors")).to_be_hidden()
    assert "stale" not in (page.locator("#sim-result").get_attribute("class") or "")
