"""Run the real service under gunicorn on loopback and drive it like browsers do.

- ``Service``: ``quizsvc serve`` (gunicorn, ``--preload``, N sync workers) on 127.0.0.1 and a
  free port, its log in a file; ``stop()`` terminates only the process this module started.
- ``HttpBrowser``: one browser over ``http.client`` with its own cookie jar; state changes echo
  the ``csrf_token`` cookie in ``X-CSRF-Token``. Every call has a timeout, so a hung server
  fails a test instead of stalling it.
- ``Oracle``: looks a served variant's answer up in the database and the bank (tests only;
  clients never see seeds).
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from quizsvc.store.models import Browser, ServedVariant
from quizsvc.study.linking import digest
from tests.support.browsers import wrong_answer

HOST = "127.0.0.1"
REQUEST_TIMEOUT = 20.0  # seconds; far above any healthy request, far below a CI timeout


def free_port() -> int:
    """Return a port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@dataclass
class Reply:
    """One HTTP response, read whole."""

    status: int
    headers: dict[str, str]
    body: bytes
    seconds: float

    @property
    def json(self) -> Any:
        """Return the body parsed as JSON (None when it is not JSON)."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None


def send(port: int, method: str, path: str, body: bytes | None = None,
         headers: dict[str, str] | None = None, timeout: float = REQUEST_TIMEOUT) -> Reply:
    """Send one request on a fresh connection (gunicorn's sync workers close each one)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=timeout)
    began = time.monotonic()
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        # Set-Cookie may repeat: join them so the jar sees every cookie.
        merged = {name.lower(): value for name, value in response.getheaders()}
        cookies = response.headers.get_all("Set-Cookie") or []
        if cookies:
            merged["set-cookie"] = "\n".join(cookies)
        return Reply(response.status, merged, data, time.monotonic() - began)
    finally:
        connection.close()


@dataclass
class HttpBrowser:
    """One browser on the live service: cookies kept, CSRF echoed on state changes."""

    port: int
    cookies: dict[str, str] = field(default_factory=dict)

    def request(self, method: str, path: str, json_body: Any = None,
                headers: dict[str, str] | None = None, timeout: float = REQUEST_TIMEOUT
                ) -> Reply:
        """Send a request with this browser's cookies; remember the cookies it sets."""
        all_headers = dict(headers or {})
        if self.cookies:
            all_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method not in ("GET", "HEAD") and "csrf_token" in self.cookies:
            all_headers.setdefault("X-CSRF-Token", self.cookies["csrf_token"])
        body = None
        if json_body is not None:
            body = json.dumps(json_body).encode()
            all_headers["Content-Type"] = "application/json"
        reply = send(self.port, method, path, body, all_headers, timeout)
        for line in reply.headers.get("set-cookie", "").splitlines():
            jar: SimpleCookie = SimpleCookie()
            jar.load(line)
            for name, morsel in jar.items():
                self.cookies[name] = morsel.value
        return reply

    def get(self, path: str, **kwargs: Any) -> Reply:
        """GET ``path``."""
        return self.request("GET", path, **kwargs)

    def post(self, path: str, json_body: Any = None, **kwargs: Any) -> Reply:
        """POST JSON to ``path``."""
        return self.request("POST", path, json_body, **kwargs)

    def introduce(self) -> HttpBrowser:
        """Make the first request (GET /api/me) so the browser has its cookies."""
        reply = self.get("/api/me")
        assert reply.status == 200, reply.body[:300]
        return self


@dataclass
class Service:
    """A running ``quizsvc serve`` (gunicorn) on loopback."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    def log_tail(self, lines: int = 40) -> str:
        """Return the end of the server's log, for failure messages."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """Stop gunicorn (the process this test started) and wait for it."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


# The tests' learners all come from 127.0.0.1: limits per address would count them as one.
ONE_ADDRESS_MANY_LEARNERS = {
    "QUIZSVC_NEW_BROWSER_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_SIMULATE_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_LINK_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_IMPORT_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_ANKI_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_RETENTION_ADDRESS_RATE_LIMIT": "1000000/minute",
    "QUIZSVC_SANDBOX_CPU_PER_ADDRESS": "1000000000/minute",
}


def serve(database_url: str, bank_dir: Path, workers: int, log_path: Path,
          extra_env: dict[str, str] | None = None, startup_seconds: float = 120.0) -> Service:
    """Start ``quizsvc serve`` on a free loopback port and wait until /readyz answers 200
    (``startup_seconds`` is a bound, not a measurement: under pytest-xdist another worker
    shares the cores while gunicorn preloads the bank)."""
    port = free_port()
    env = {**os.environ, "QUIZSVC_DATABASE_URL": database_url, "QUIZSVC_BANK_DIR": str(bank_dir),
           "QUIZSVC_WORKERS": str(workers), "QUIZSVC_SECRET_KEY": "reliability-test-secret",
           **ONE_ADDRESS_MANY_LEARNERS, **(extra_env or {})}
    log = log_path.open("wb")
    process = subprocess.Popen([sys.executable, "-m", "quizsvc.cli", "serve", "--host", HOST,
                                "--port", str(port)], env=env, stdout=log,
                               stderr=subprocess.STDOUT)
    log.close()
    service = Service(process, port, log_path)
    deadline = time.monotonic() + startup_seconds
    while True:
        try:
            if send(port, "GET", "/readyz", timeout=5).status == 200:
                return service
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            service.stop()
            raise RuntimeError(f"quizsvc serve did not come up:\n{service.log_tail()}")
        time.sleep(0.1)


def learner_id(engine: Engine, browser: HttpBrowser) -> int:
    """Return the learner behind a browser's cookie (tests only)."""
    with engine.connect() as connection:
        return connection.scalar(select(Browser.learner_id).where(
            Browser.token_hash == digest(browser.cookies["quizsvc_browser"])))


@dataclass
class Oracle:
    """Know each served variant's answer (from its stored seed), as no client can."""

    engine: Engine
    bank: Any

    def variant(self, variant_id: str) -> Any:
        """Rebuild a served variant from the database row."""
        with self.engine.connect() as connection:
            row = connection.execute(select(ServedVariant.question_id, ServedVariant.seed)
                                     .where(ServedVariant.id == variant_id)).one()
        return self.bank.variant(row.question_id, row.seed)

    def answer(self, variant_id: str, right: bool) -> Any:
        """Return the right answer, or a parseable wrong one."""
        variant = self.variant(variant_id)
        return variant.answer if right else wrong_answer(variant)


def form_for(value: Any, variant: Any) -> dict[str, Any]:
    """Return the form fields the question page posts for ``value``."""
    kind = variant.input.type
    if kind == "vector":
        return {f"answer.{i}": str(v) for i, v in enumerate(value)}
    if kind == "order":
        return {f"position.{option}": str(i) for i, option in enumerate(value, start=1)}
    if kind == "multi":
        return {"answer": list(value)}
    if kind == "flashcard":
        return {}
    return {"answer": "" if value is None else str(value)}
