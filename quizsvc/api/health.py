"""Answer liveness (``/healthz``) and readiness (``/readyz``: database reachable, migrated)."""

from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy.exc import SQLAlchemyError

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import HealthSchema, ReadySchema
from quizsvc.errors import Unavailable
from quizsvc.store import migrate
from quizsvc.store.database import get_db, get_session

blp = ApiBlueprint("health", __name__, description="Liveness and readiness probes")


class NotReady(Unavailable):
    """Raise when the database is unreachable or not migrated to head."""

    code = "not_ready"


@blp.route("/healthz")
@blp.response(200, HealthSchema)
def healthz() -> dict[str, Any]:
    """Say the process is up (touches nothing else)."""
    return {"status": "ok"}


@blp.route("/readyz")
@blp.response(200, ReadySchema)
@blp.alt_response(503, schema=ReadySchema, description="database unreachable or behind")
def readyz() -> dict[str, Any]:
    """Say whether the database is reachable and migrated to the newest revision."""
    head = current_app.extensions["quizsvc.migration_head"]
    try:
        get_db().ping()
        revision = migrate.current_revision(get_session().connection())
    except SQLAlchemyError as error:
        raise NotReady("The database is unreachable.",
                       {"database": [type(error).__name__]}) from None
    if revision != head:
        raise NotReady(f"The database is at revision {revision}, not {head}: run "
                       "`quizsvc db upgrade`.", {"database": ["not migrated"]})
    return {"status": "ready", "database": "ok", "revision": revision}
