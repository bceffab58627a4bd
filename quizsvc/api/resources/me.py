"""Show this browser's identity and link browsers together with one-time codes."""

from __future__ import annotations

import hashlib
from typing import Any

from flask import current_app

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.identity import csrf_token, current_context
from quizsvc.api.schemas import LinkCodeSchema, LinkRequestSchema, MeSchema
from quizsvc.api.services import identity as service

blp = ApiBlueprint("me", __name__, url_prefix="/api", description="Browser identity and linking")


def learner_handle(learner_id: int) -> str:
    """Return an opaque, stable handle for a learner (no database id leaves the server)."""
    secret = current_app.config["SECRET_KEY"]
    return hashlib.sha256(f"{secret}:learner:{learner_id}".encode()).hexdigest()[:16]


@blp.route("/me")
@blp.response(200, MeSchema)
def me() -> dict[str, Any]:
    """Show this browser's learner handle and its CSRF token."""
    ctx = current_context()
    return {"learner": learner_handle(ctx.learner_id),
            "linked": service.is_linked(ctx), "csrf_token": csrf_token()}


@blp.route("/link-codes", methods=["POST"])
@blp.response(201, LinkCodeSchema)
def create_link_code() -> Any:
    """Issue a one-time code (valid for minutes) that links another browser to this learner."""
    return service.create_link_code(current_context())


@blp.route("/link", methods=["POST"])
@blp.arguments(LinkRequestSchema)
@blp.response(200, MeSchema)
def link(body: dict[str, Any]) -> dict[str, Any]:
    """Join this browser to the learner who issued the code; the code is used up."""
    identity = service.redeem_link_code(current_context(), body["code"])
    return {"learner": learner_handle(identity.learner_id), "linked": True,
            "csrf_token": csrf_token()}
