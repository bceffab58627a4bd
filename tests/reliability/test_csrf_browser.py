"""A real browser (Debian's Chromium) submits a form from another site: the service refuses it.

The app is served on ``http://127.0.0.1:<port>``; the attacker's page on another port. From
``127.0.0.1`` the attacker is same-site but cross-origin, so Chromium sends the victim's
SameSite=Lax cookies and the CSRF token is the only defence; from ``localhost`` it is
cross-site and Chromium withholds the cookies. Either way the post must get 403 and change
nothing. A script's cross-origin ``fetch`` with credentials changes nothing either.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from sqlalchemy import func, select
from werkzeug.serving import make_server

from quizsvc import create_app
from quizsvc.store import migrate
from quizsvc.store.database import make_engine
from quizsvc.store.models import LinkCode, StudySession
from tests.support.chromium import launch_chromium
from tests.support.live import closing_at_once

pytestmark = pytest.mark.browser

LESSON = "vllm-v1-ledger"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, bank: Any) -> Iterator[tuple[str, Any]]:
    """Serve the app on 127.0.0.1 (a migrated SQLite file); yield its URL and engine."""
    url = f"sqlite:///{tmp_path_factory.mktemp('csrf') / 'csrf.sqlite3'}"
    engine = make_engine(url)
    with engine.connect() as connection:
        migrate.upgrade(connection, "head")
        connection.commit()
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "csrf-browser",
                      "BANK": bank})
    server = make_server("127.0.0.1", 0, closing_at_once(app), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", engine
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()
        engine.dispose()


def attacker_page(target: str) -> bytes:
    """Return the attacker's page: two forms to the service and a credentialed fetch."""
    return f"""<!doctype html><html><body>
<form id="study" method="post" action="{target}/study">
  <input name="mode" value="quiz"><input name="lesson" value="{LESSON}">
  <input name="size" value="3"><input name="csrf_token" value="guessed">
</form>
<form id="code" method="post" action="{target}/api/link-codes"></form>
<script>
window.fetched = fetch("{target}/api/link-codes", {{method: "POST", mode: "no-cors",
  credentials: "include"}}).then(() => "sent", () => "failed");
</script>
</body></html>""".encode()


@pytest.fixture(scope="module")
def attacker(site: tuple[str, Any]) -> Iterator[int]:
    """Serve the attacker's page on another port of 127.0.0.1; yield the port."""
    target = site[0]

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = attacker_page(target)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Launch Debian's Chromium headless (missing: skip locally, fail under CI)."""
    yield from launch_chromium()


def counts(engine: Any) -> tuple[int, int]:
    """Return how many sessions and link codes exist."""
    with engine.connect() as connection:
        return (connection.scalar(select(func.count()).select_from(StudySession)),
                connection.scalar(select(func.count()).select_from(LinkCode)))


@pytest.mark.parametrize("attacker_host", ["127.0.0.1", "localhost"])
def test_a_form_posted_from_another_site_in_a_real_browser_is_refused(
        chromium, site, attacker, attacker_host):
    target, engine = site
    context = chromium.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.goto(f"{target}/")  # the victim has been here: cookies and a CSRF token
        assert {c["name"] for c in context.cookies()} >= {"quizsvc_browser", "csrf_token"}
        before = counts(engine)
        page.goto(f"http://{attacker_host}:{attacker}/")
        assert page.evaluate("window.fetched") == "sent"
        for form in ("study", "code"):
            page.goto(f"http://{attacker_host}:{attacker}/")
            with page.expect_navigation() as posted:
                page.evaluate(f"document.getElementById('{form}').submit()")
            response = posted.value
            assert response.request.method == "POST" and response.status == 403, form
        assert counts(engine) == before
    finally:
        context.close()
