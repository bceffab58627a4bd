"""Web fixtures: the app served on loopback for a real browser, and Chromium driven by Playwright.

- ``live_server``: one app per test session on a migrated SQLite file, served by
  ``werkzeug.serving.make_server`` in a thread on 127.0.0.1 and a free port. A real server
  (not the rolled-back test connection) because the browser talks to it over HTTP.
- ``browser``: Debian's ``/usr/bin/chromium`` launched headless through Playwright; Playwright
  never downloads a browser. Missing Chromium skips locally and fails under ``CI``, like the
  PostgreSQL half of the suite.
- ``page`` / ``nojs_page``: a fresh browser context (its own cookies, so its own learner) with
  JavaScript on or off.
- ``shot(page, name)``: save a full-page screenshot under ``test-output/screenshots/``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.chromium import keep_picture, launch_chromium, screenshot_folder
from tests.support.live import (
    LIVE_AUTHOR_TOKEN,
    LiveServer,
    dispose_database,
    migrated,
    serve,
)

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def live_bank() -> Any:
    """Return the question bank the live app serves: the real one, as a learner meets it."""
    from quizsvc.bank import load_bank

    return load_bank()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory, live_bank: Any
                ) -> Iterator[LiveServer]:
    """Serve the app on 127.0.0.1 and a free port for the whole test session."""
    path = tmp_path_factory.mktemp("live") / "quizsvc-live.sqlite3"
    database = migrated(f"sqlite:///{path}")
    try:
        with serve(database, live_bank, SECRET_KEY="browser-test-secret",
                   AUTHOR_TOKEN=LIVE_AUTHOR_TOKEN) as server:
            yield server
    finally:
        dispose_database(database)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Launch Debian's Chromium once per session (never a downloaded browser)."""
    yield from launch_chromium()


def _context(browser: Any, live_server: LiveServer, javascript: bool) -> Any:
    context = browser.new_context(
        base_url=live_server.url, viewport=PHONE, java_script_enabled=javascript, locale="zh-CN"
    )
    context.set_default_timeout(10_000)
    return context


@pytest.fixture
def page(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    """Yield a page in a fresh context (a new learner) with JavaScript on, phone-sized."""
    context = _context(browser, live_server, javascript=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The pages run under their real Content-Security-Policy: a refused script, style or
    # request is a console error, and fails the test.
    page.on("console", lambda message: errors.append(message.text)
            if "Content Security Policy" in message.text else None)
    yield page
    context.close()
    assert not errors, f"JavaScript or CSP errors on the page: {errors}"


@pytest.fixture
def nojs_page(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    """Yield a page in a fresh context with JavaScript switched off."""
    context = _context(browser, live_server, javascript=False)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(scope="session")
def screenshot_dir(pytestconfig: pytest.Config) -> Path:
    """Return the test run's screenshot folder, ``test-output/screenshots/`` (emptied of the
    previous run's pictures once, when the run starts: ``tests/conftest.py``)."""
    folder = screenshot_folder(pytestconfig)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def shot(screenshot_dir: Path) -> Callable[[Any, str], Path]:
    """Return ``shot(page, name)``, which saves a PNG (``keep_picture``) and returns its path."""
    return lambda page, name: keep_picture(page, screenshot_dir / f"{name}.png")
