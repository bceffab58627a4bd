"""The simulator in a real browser."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser


def test_simulator_without_javascript_shows_the_161_allocation(nojs_page: Any, shot: Any) -> None:
    nojs_page.goto("/simulator")
    target = nojs_page.locator("section.step-target")
    assert target.locator(".alloc-list").inner_text() == "A 1 · B 6 · C 1"
    shot(nojs_page, "simulator-nojs")
