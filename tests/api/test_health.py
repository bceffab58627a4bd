"""Liveness, readiness and the error envelope for requests that match nothing."""

from __future__ import annotations

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
    assert response.json["status"] == "ready"
    assert response.json["revision"] == migrate.head_revision() == "0006"


def test_readyz_is_503_when_the_database_is_behind(app, client, connection: Connection):
    connection.execute(text("UPDATE alembic_version SET version_num = 'older'"))
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json["code"] == "not_ready"
    assert "quizsvc db upgrade" in response.json["message"]


def test_readyz_is_503_when_the_database_is_unreachable(tmp_path):
    app = create_app({"DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none",
                      "TESTING": True})
    response = app.test_client().get("/readyz")
    assert response.status_code == 503
    assert response.json == {
        "code": "not_ready", "status": 503, "reason": "not_ready",
        "message": "The database is unreachable.",
        "errors": {"database": ["OperationalError"]}}


def test_unknown_url_uses_the_envelope(client):
    response = client.get("/api/no-such-thing")
    assert response.status_code == 404
    assert set(response.json) == {"code", "status", "reason", "message", "errors"}
    assert response.json["code"] == "not_found"


def test_wrong_method_uses_the_envelope(client):
    response = client.delete("/healthz")
    assert response.status_code == 405
    assert response.json["code"] == "method_not_allowed"
