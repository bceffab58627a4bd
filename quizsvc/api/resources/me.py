"""Show this browser's identity and link browsers together with one-time codes."""

from __future__ import annotations

import hashlib
from typing import Any

from flask import current_app

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import ErasedSchema, LinkCodeSchema, MeSchema
from quizsvc.errors import N_, Invalid
from quizsvc.http.arguments import EraseQuerySchema, LinkRequestSchema
from quizsvc.http.browser import csrf_token, forget_browser, switch_identity
from quizsvc.http.context import current_context
from quizsvc.http.limits import link_redeem_limit
from quizsvc.study import erasure, linking

blp = ApiBlueprint("me", __name__, url_prefix="/api", description="Browser identity and linking")


def learner_handle(learner_id: int | None) -> str | None:
    """Return an opaque, stable handle for a learner (no database id leaves the server)."""
    if learner_id is None:
        return None
    secret = current_app.config["SECRET_KEY"]
    return hashlib.sha256(f"{secret}:learner:{learner_id}".encode()).hexdigest()[:16]


def confirmation_missing() -> Invalid:
    """Return the refusal of an erase that was not confirmed: it names the field and offers
    the export first."""
    return Invalid("confirm", N_("send confirm=erase to erase everything this service holds "
                                 "about you; download GET /api/export first to keep a copy"),
                   location="query", reason="confirm_erase")


@blp.route("/me", methods=["DELETE"])
@blp.arguments(EraseQuerySchema, location="query")
@blp.response(200, ErasedSchema)
@blp.alt_response(422, description="confirm=erase is missing (export first: GET /api/export)")
def erase_me(query: dict[str, Any]) -> dict[str, Any]:
    """Erase everything of this learner (answers, cards, reviews, mastery, self-assessments,
    memberships, browsers, link codes); the cookies are cleared. Needs confirm=erase."""
    if query["confirm"] is None:
        raise confirmation_missing()
    erased = erasure.erase_learner(current_context())
    forget_browser()
    return {"erased": erased}


@blp.route("/me")
@blp.response(200, MeSchema)
def me() -> dict[str, Any]:
    """Show this browser's learner handle (null until it stores something) and CSRF token."""
    ctx = current_context()
    learner = ctx.identity.learner_id if ctx.identity else None
    return {"learner": learner_handle(learner), "linked": linking.is_linked(ctx),
            "csrf_token": csrf_token()}


@blp.route("/link-codes", methods=["POST"])
@blp.response(201, LinkCodeSchema)
def create_link_code() -> Any:
    """Issue a one-time code (valid for minutes) that links another browser to this learner."""
    return linking.create_link_code(current_context())


@blp.route("/link", methods=["POST"])
@link_redeem_limit()
@blp.arguments(LinkRequestSchema)
@blp.response(200, MeSchema)
def link(body: dict[str, Any]) -> dict[str, Any]:
    """Join this browser to the learner who issued the code; the code is used up."""
    identity = linking.redeem_link_code(current_context(), body["code"],
                                        body["leave_progress"])
    switch_identity(identity)
    return {"learner": learner_handle(identity.learner_id), "linked": True,
            "csrf_token": csrf_token()}
