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

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session
from werkzeug.serving import make_server

from quizsvc import create_app
from quizsvc.store import migrate
from quizsvc.store.database import make_engine
from quizsvc.store.models import ServedVariant
from tests.support.chromium import launch_chromium

PHONE = {"width": 390, "height": 844}


@dataclass(frozen=True)
class LiveServer:
    """Name a running app: its base URL, the app, and its database (to look answers up)."""

    url: str
    app: Any
    database_url: str

    @property
    def lesson(self) -> Any:
        """Return the bank's first lesson (the one the pages default to)."""
        lessons = self.app.config["BANK"].lessons
        return next(iter(lessons.values() if isinstance(lessons, dict) else lessons))

    def variant(self, variant_id: str) -> Any:
        """Return a served variant as the server knows it, answer included (tests only)."""
        engine = make_engine(self.database_url)
        try:
            with Session(engine) as session:
                served = session.get(ServedVariant, variant_id)
                assert served is not None, variant_id
                return self.app.config["BANK"].variant(served.question_id, served.seed)
        finally:
            engine.dispose()

    def right_answer(self, variant_id: str) -> Any:
        """Return the answer of a served variant."""
        return self.variant(variant_id).answer


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
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    with engine.connect() as connection:
        migrate.upgrade(connection, "head")
        connection.commit()
    engine.dispose()
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "browser-test-secret",
                      "RANDOM_SEED": 20261108, "BANK": live_bank})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield LiveServer(f"http://127.0.0.1:{server.server_port}", app, url)
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


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
    """Return the test run's screenshot folder, ``test-output/screenshots/``, emptied of the
    previous run's pictures so that what is there was taken by this run."""
    folder = Path(pytestconfig.rootpath) / "test-output" / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    return folder


@pytest.fixture
def shot(screenshot_dir: Path) -> Callable[[Any, str], Path]:
    """Return ``shot(page, name)``, which saves a full-page PNG and returns its path."""

    def take(page: Any, name: str) -> Path:
        path = screenshot_dir / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
