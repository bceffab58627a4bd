"""Author-only previews: hidden without a configured token, full variants with it."""

from __future__ import annotations

import pytest

from quizsvc import create_app

TOKEN = "author-secret-token"


@pytest.fixture
def author_client(app_config, connection):
    app = create_app({**app_config, "AUTHOR_TOKEN": TOKEN})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    return app.test_client()


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def test_without_a_configured_token_author_views_do_not_exist(client):
    assert client.get("/api/author/bank", headers=bearer("anything")).status_code == 404


@pytest.mark.parametrize("headers", [{}, bearer("wrong"), {"Authorization": TOKEN},
                                     {"Authorization": f"Basic {TOKEN}"}])
def test_a_missing_or_wrong_token_is_401(author_client, headers):
    response = author_client.get("/api/author/variants/budget-split?seed=3", headers=headers)
    assert response.status_code == 401
    assert (response.json["code"], response.json["reason"]) == (401, "author_token")


def test_an_author_sees_the_whole_variant(author_client, bank):
    response = author_client.get("/api/author/variants/budget-split?seed=3",
                                 headers=bearer(TOKEN))
    assert response.status_code == 200
    variant = bank.variant("budget-split", 3)
    assert response.json["answer"] == variant.answer
    assert response.json["seed"] == 3 and "solution" in response.json
    assert response.json["misconceptions"]


def test_author_views_set_no_learner_cookie(author_client):
    response = author_client.get("/api/author/bank", headers=bearer(TOKEN))
    assert response.headers.getlist("Set-Cookie") == []


def test_an_author_exports_the_bank(author_client, bank):
    response = author_client.get("/api/author/bank", headers=bearer(TOKEN))
    assert response.status_code == 200
    assert response.json["version"] == bank.version
    assert [q["id"] for q in response.json["questions"]] == list(bank.questions)


@pytest.mark.parametrize(("url", "expected"), [
    ("/api/author/variants/nope?seed=1", 404),
    ("/api/author/variants/budget-split", 422),
    ("/api/author/variants/budget-split?seed=-1", 422),
    ("/api/author/variants/budget-split?seed=x", 422),
    ("/api/author/variants/budget-split?seed=1&x=2", 422),
])
def test_bad_previews_are_4xx(author_client, url, expected):
    assert author_client.get(url, headers=bearer(TOKEN)).status_code == expected
