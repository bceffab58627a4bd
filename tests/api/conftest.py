"""API test fixtures: independent browsers and a study helper (see ``support.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.api.support import ApiBrowser, Study


@pytest.fixture
def new_browser(app: Any) -> Callable[[], ApiBrowser]:
    """Return a factory of independent browsers on the same app."""
    return lambda: ApiBrowser(app)


@pytest.fixture
def browser(new_browser: Callable[[], ApiBrowser]) -> ApiBrowser:
    """Return one browser that has made its first request."""
    return new_browser()


@pytest.fixture
def study(browser: ApiBrowser, db: Any, bank: Any) -> Study:
    """Return a study helper for the default browser."""
    return Study(browser, db, bank)
