"""API test helpers: a browser that keeps its cookies and echoes its CSRF token."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


class ApiBrowser:
    """Drive the API like one browser: cookies kept, CSRF header sent on state changes."""

    def __init__(self, app: Any) -> None:
        self.client = app.test_client()
        self.client.get("/api/me")

    @property
    def csrf(self) -> str:
        """Return the csrf_token cookie's value."""
        cookie = self.client.get_cookie("csrf_token")
        return cookie.value if cookie else ""

    def get(self, url: str, **kwargs: Any) -> Any:
        """GET ``url``."""
        return self.client.get(url, **kwargs)

    def send(self, method: str, url: str, json: Any = None, headers: dict | None = None,
             **kwargs: Any) -> Any:
        """Send a state-changing request with the CSRF header."""
        headers = {"X-CSRF-Token": self.csrf, **(headers or {})}
        return self.client.open(url, method=method, json=json, headers=headers, **kwargs)

    def post(self, url: str, json: Any = None, **kwargs: Any) -> Any:
        """POST JSON with the CSRF header."""
        return self.send("POST", url, json, **kwargs)

    def put(self, url: str, json: Any = None, **kwargs: Any) -> Any:
        """PUT JSON with the CSRF header."""
        return self.send("PUT", url, json, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> Any:
        """DELETE with the CSRF header."""
        return self.send("DELETE", url, **kwargs)


@pytest.fixture
def new_browser(app: Any) -> Callable[[], ApiBrowser]:
    """Return a factory of independent browsers on the same app."""
    return lambda: ApiBrowser(app)


@pytest.fixture
def browser(new_browser: Callable[[], ApiBrowser]) -> ApiBrowser:
    """Return one browser that has made its first request."""
    return new_browser()
