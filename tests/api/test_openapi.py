"""The OpenAPI document describes every endpoint and the error envelope."""

from __future__ import annotations

import copy

from quizsvc.http.schema import Schema


def test_openapi_lists_every_api_route(client, app):
    spec = client.get("/api/openapi.json")
    assert spec.status_code == 200
    document = spec.json
    assert document["openapi"].startswith("3.")
    documented = {path for path in document["paths"]}
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/") and rule.rule != "/api/openapi.json":
            path = rule.rule
            for converter in ("string:", "int:"):
                path = path.replace(f"<{converter}", "{")
            path = path.replace(">", "}")
            assert path in documented


def test_openapi_describes_the_error_envelope(client):
    schemas = client.get("/api/openapi.json").json["components"]["schemas"]
    assert set(schemas["ErrorEnvelope"]["properties"]) == {"code", "status", "reason", "message",
                                                           "errors", "said", "request_id"}


def test_openapi_needs_no_identity(client):
    response = client.get("/api/openapi.json")
    assert response.headers.getlist("Set-Cookie") == []


def test_every_state_change_documents_the_csrf_echo_a_client_must_send(client):
    document = client.get("/api/openapi.json").json
    assert set(document["components"]["securitySchemes"]) == {"csrf", "author", "instructor"}
    changes = [(path, method, operation) for path, item in document["paths"].items()
               for method, operation in item.items()
               if method in {"post", "put", "patch", "delete"}]
    assert len(changes) > 10
    for path, method, operation in changes:
        # An author's state changes (making a cohort) carry the author token, not a browser.
        expected = [{"author": []}] if path.startswith("/api/author/") else [{"csrf": []}]
        assert operation.get("security") == expected, (method, path)
    author = document["paths"]["/api/author/bank"]["get"]
    assert author["security"] == [{"author": []}]
    report = document["paths"]["/api/cohorts/{cohort_id}/report"]["get"]
    assert report["security"] == [{"instructor": []}]


def test_every_documented_schema_is_one_a_deep_copy_leaves_alone(app):
    """apispec deep-copies every documented operation, schemas included, for each app built:
    the service's schemas derive from ``quizsvc.http.schema.Schema``, whose copy is itself."""
    api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
    documented = {key[0] for key in api.ma_plugin.converter.refs}
    ours = {schema for schema in documented if schema.__module__.startswith("quizsvc.")}
    assert len(ours) > 50 and len(documented - ours) <= 2  # flask-smorest's own pagination
    assert [schema.__name__ for schema in ours if not issubclass(schema, Schema)] == []
    instance = next(iter(ours))()
    assert copy.deepcopy({"schema": instance})["schema"] is instance
