"""Every request has one id: in X-Request-Id, in the error envelope and on the error pages."""

from __future__ import annotations

import re
from typing import Any

import pytest

from quizsvc.http.request_id import sane

GENERATED = re.compile(r"[0-9a-f]{32}")


@pytest.mark.parametrize("url", ["/api/me", "/healthz", "/", "/api/no-such-thing",
                                 "/no-such-page", "/api/openapi.json"])
def test_every_response_carries_a_generated_request_id(client: Any, url: str) -> None:
    first, second = client.get(url), client.get(url)
    assert GENERATED.fullmatch(first.headers["X-Request-Id"])
    assert first.headers["X-Request-Id"] != second.headers["X-Request-Id"]


def test_the_error_envelope_carries_the_request_id_of_its_header(client: Any) -> None:
    response = client.get("/api/sessions/nope/next")
    assert response.status_code == 404
    assert response.json["request_id"] == response.headers["X-Request-Id"]


def test_a_refusal_before_any_view_carries_it_too(client: Any) -> None:
    client.get("/api/me")
    refused = client.post("/api/sessions", json={"lesson": "x"})  # no CSRF echo
    assert refused.status_code == 403
    assert GENERATED.fullmatch(refused.json["request_id"])
    assert refused.json["request_id"] == refused.headers["X-Request-Id"]


def test_a_bug_s_500_carries_the_request_id(app: Any, client: Any) -> None:
    @app.route("/boom")
    def boom() -> None:
        raise RuntimeError("secret internals")

    response = client.get("/boom", headers={"X-Request-Id": "trace-me-42"})
    assert response.status_code == 500
    assert response.json["request_id"] == "trace-me-42" == response.headers["X-Request-Id"]


@pytest.mark.parametrize("incoming", ["abc", "7f3c2a10-9c1e-4f7e-8d1a-1b2c3d4e5f60",
                                      "Root=1-5759e988-bd862e3fe1be46a994272793",
                                      "a" * 128, "b64+/x=="])
def test_a_sane_incoming_request_id_is_kept(client: Any, incoming: str) -> None:
    response = client.get("/api/no-such-thing", headers={"X-Request-Id": incoming})
    assert response.headers["X-Request-Id"] == incoming == response.json["request_id"]


@pytest.mark.parametrize("incoming", ["", "a" * 129, "has space", "-leading-dash",
                                      "quote\"d", "semi;colon", "中文", "<script>"])
def test_an_odd_incoming_request_id_is_replaced(client: Any, incoming: str) -> None:
    assert not sane(incoming)
    response = client.get("/api/no-such-thing", headers={"X-Request-Id": incoming})
    assert GENERATED.fullmatch(response.headers["X-Request-Id"])
    assert response.json["request_id"] == response.headers["X-Request-Id"]


def test_the_not_found_page_shows_the_request_id(client: Any) -> None:
    response = client.get("/no-such-page", headers={"X-Request-Id": "page-id-1"})
    assert response.status_code == 404
    assert "<code>page-id-1</code>" in response.get_data(as_text=True)


def test_a_refusal_page_shows_the_request_id(client: Any) -> None:
    response = client.get("/study/no-such-session", headers={"X-Request-Id": "page-id-2"})
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert "<code>page-id-2</code>" in page and "<h1>" in page
