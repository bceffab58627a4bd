"""Answer liveness (``/healthz``) and readiness (``/readyz``: every dependency answers).

``/readyz`` says, per dependency, whether it answers (``quizsvc.http.readiness``): the
database (reachable and migrated to the newest revision) and, where one is configured, Redis.
It is 200 when all are ``ok`` and 503 (with ``Retry-After``) when one is not, with the same
body either way, so a probe reads the status and an operator reads which dependency failed.
"""

from __future__ import annotations

from typing import Any

from flask import current_app

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import HealthSchema, ReadySchema
from quizsvc.http.errors import RETRY_AFTER_SECONDS
from quizsvc.http.readiness import check_all
from quizsvc.store.database import get_db

blp = ApiBlueprint("health", __name__, description="Liveness and readiness probes")


@blp.route("/healthz")
@blp.response(200, HealthSchema)
def healthz() -> dict[str, Any]:
    """Say the process is up (touches nothing else)."""
    return {"status": "ok"}


@blp.route("/readyz")
@blp.response(200, ReadySchema)
@blp.alt_response(503, schema=ReadySchema,
                  description="a dependency does not answer, or the database is behind")
def readyz() -> Any:
    """Say whether the database (reachable, migrated) and any configured Redis answer."""
    head = current_app.extensions["quizsvc.migration_head"]
    checks, revision = check_all(current_app.config, get_db(), head)
    ready = all(check.ok for check in checks.values())
    body = {"status": "ready" if ready else "not_ready", "revision": revision,
            "dependencies": {name: check.to_dict() for name, check in checks.items()}}
    if ready:
        return body
    return body, 503, {"Retry-After": str(RETRY_AFTER_SECONDS)}
