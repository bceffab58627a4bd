"""Every response carries the security headers; API and author responses are never cached."""

from __future__ import annotations

from typing import Any

import pytest

from quizsvc import create_app

PAGES = ["/", "/lessons", "/quiz", "/simulator", "/progress", "/link", "/no-such-page"]
API = ["/api/me", "/api/progress", "/api/lessons", "/api/openapi.json", "/healthz"]


@pytest.mark.parametrize("url", PAGES + API)
def test_every_response_forbids_framing_sniffing_and_foreign_sources(client: Any, url: str
                                                                       ) -> None:
    response = client.get(url)
    policy = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"


@pytest.mark.parametrize("url", ["/api/me", "/api/progress", "/api/reviews/due",
                                 "/api/export", "/api/no-such-thing"])
def test_api_responses_are_not_stored(client: Any, url: str) -> None:
    assert client.get(url).headers["Cache-Control"] == "no-store"


def test_author_responses_are_not_stored_either(app_config: dict, connection: Any) -> None:
    app = create_app({**app_config, "AUTHOR_TOKEN": "sesame"})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    client = app.test_client()
    for headers in ({}, {"Authorization": "Bearer sesame"}):
        response = client.get("/api/author/bank", headers=headers)
        assert response.headers["Cache-Control"] == "no-store", response.status_code


def test_secure_cookies_take_the_host_prefix(app_config: dict, connection: Any) -> None:
    app = create_app({**app_config, "COOKIE_SECURE": True})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    client = app.test_client()
    set_cookies = client.get("/api/me").headers.getlist("Set-Cookie")
    names = {header.split("=", 1)[0] for header in set_cookies}
    assert names == {"__Host-quizsvc_browser", "__Host-csrf_token"}
    assert all("Secure" in header and "Path=/" in header and "Domain" not in header
               for header in set_cookies)
    csrf = client.get_cookie("__Host-csrf_token").value
    stored = client.post("/api/link-codes", headers={"X-CSRF-Token": csrf})
    assert stored.status_code == 201, stored.json


def test_with_a_redis_store_the_counters_live_where_every_worker_sees_them(
        app_config: dict, connection: Any) -> None:
    """gunicorn's workers are separate processes: ``memory://`` counters are per worker, so
    a deployment of several counts in Redis. Requests through one app must show up there."""
    import hashlib

    redis = pytest.importorskip("redis")
    url = "redis://127.0.0.1:6379/15"
    server = redis.Redis.from_url(url)
    try:
        server.ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis on 127.0.0.1:6379")
    app = create_app({**app_config, "SIMULATE_RATE_LIMIT": "2/minute",
                      "RATELIMIT_STORAGE_URI": url})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    client = app.test_client()
    client.get("/api/me")
    csrf = client.get_cookie("csrf_token").value
    token = client.get_cookie("quizsvc_browser").value
    prefix = hashlib.sha256(token.encode()).hexdigest()  # this browser's counters
    body = {"requests": [{"id": "A", "prompt_len": 3, "max_tokens": 1}]}
    statuses = [client.post("/api/simulate", json=body, headers={"X-CSRF-Token": csrf})
                .status_code for _ in range(3)]
    try:
        assert statuses == [200, 200, 429]
        keys = [key.decode() for key in server.scan_iter(f"*{prefix}*")]
        assert keys and all("sandbox" in key for key in keys), keys
    finally:
        for key in server.scan_iter(f"*{prefix}*"):
            server.delete(key)
