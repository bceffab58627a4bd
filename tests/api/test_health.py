"""Liveness, readiness and the error envelope for requests that match nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import Connection, text

from quizsvc import create_app
from quizsvc.store import migrate


def test_healthz_answers_without_touching_identity(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json == {"status": "ok"}
    assert response.headers.getlist("Set-Cookie") == []


def test_readyz_reports_the_migrated_database(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json == {
        "status": "ready", "revision": migrate.head_revision(),
        "dependencies": {"database": {"status": "ok", "detail": None}}}
    assert migrate.head_revision() == "0013"


def test_readyz_is_503_when_the_database_is_behind(app, client, connection: Connection):
    connection.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.headers["Retry-After"].isdigit()
    assert response.json["status"] == "not_ready" and response.json["revision"] == "older"
    database = response.json["dependencies"]["database"]
    assert database["status"] == "behind" and "quizsvc db upgrade" in database["detail"]


def test_readyz_is_503_when_the_database_is_unreachable(tmp_path):
    app = create_app({"DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none",
                      "TESTING": True})
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.json == {
        "status": "not_ready", "revision": None,
        "dependencies": {"database": {"status": "unreachable", "detail": "OperationalError"}}}


UNREACHABLE_REDIS = "redis://:hunter2@127.0.0.1:1/0"  # nothing listens on port 1


@pytest.mark.parametrize(("setting", "role"), [("REDIS_URL", "redis"),
                                               ("RATELIMIT_STORAGE_URI", "rate_limits")])
def test_readyz_is_503_when_a_configured_redis_does_not_answer(app_config, connection,
                                                               setting, role):
    app = create_app({**app_config, setting: UNREACHABLE_REDIS})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.json["status"] == "not_ready"
    assert response.json["dependencies"]["database"]["status"] == "ok"
    assert response.json["dependencies"][role] == {"status": "unreachable",
                                                   "detail": "ConnectionError"}
    assert "hunter2" not in response.get_data(as_text=True)  # no URL, no password


def test_readyz_is_200_when_the_configured_redis_answers(app_config, connection):
    url = "redis://127.0.0.1:6379/15"
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.exceptions.ConnectionError:
        pytest.skip("no Redis on 127.0.0.1:6379")
    app = create_app({**app_config, "REDIS_URL": url, "RATELIMIT_STORAGE_URI": url})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    response = app.test_client().get("/readyz")
    assert response.status_code == 200, response.json
    assert response.json["dependencies"] == {
        name: {"status": "ok", "detail": None} for name in ("database", "redis", "rate_limits")}


def test_readyz_asks_no_redis_when_none_is_configured(client):
    assert set(client.get("/readyz").json["dependencies"]) == {"database"}


def test_unknown_url_uses_the_envelope(client):
    response = client.get("/api/no-such-thing")
    assert response.status_code == 404
    assert set(response.json) == {"code", "status", "reason", "message", "errors", "request_id"}
    assert response.json["reason"] == "not_found"


def test_wrong_method_uses_the_envelope(client):
    response = client.delete("/healthz")
    assert response.status_code == 405
    assert response.json["reason"] == "method_not_allowed"
