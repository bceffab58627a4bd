"""Attempts: answer a variant (idempotently), explain a wrong answer, rate the review."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView
from werkzeug.exceptions import HTTPException

from quizsvc.api import identity
from quizsvc.api.attempt_io import (
    AttemptRequest,
    attempt_json,
    json_response,
    read_attempt_request,
)
from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.identity import current_context
from quizsvc.api.schemas import (
    AttemptCreateSchema,
    AttemptSchema,
    ExplanationSchema,
    IdempotencyHeaderSchema,
    RatingSchema,
)
from quizsvc.api.services import study
from quizsvc.api.services.context import Context, Identity
from quizsvc.api.services.identity import digest
from quizsvc.errors import ServiceError
from quizsvc.store.session import get_db

blp = ApiBlueprint("attempts", __name__, url_prefix="/api/attempts",
                   description="Graded answers, explanations and review ratings")


@blp.route("")
class Attempts(MethodView):
    """Submit answers."""

    # The hot path (bench/api_bench.py): webargs and marshmallow cost ~80 µs of a ~550 µs
    # request here (in-process), so the view reads and writes by hand (quizsvc.api.attempt_io,
    # proven equal to the schemas in tests/api/test_attempt_fast_io.py). The decorators only
    # document it; the other routes keep plain @blp.arguments.
    # It also finds its browser in the answer's own query (answer_from_cookie); anything unusual
    # goes the way every view goes, identity hook first.
    @blp.documented_arguments(IdempotencyHeaderSchema, location="headers")
    @blp.documented_arguments(AttemptCreateSchema)
    @blp.response(201, AttemptSchema)
    @identity.identity_loaded_by_view
    def post(self) -> Response:
        """Grade an answer; a retry with the same Idempotency-Key returns the first result.

        After a wrong answer, ``reveal`` is null until an explanation is posted.
        """
        result = answer_from_cookie()
        if result is None:
            identity.load_identity()
            sent = read_attempt_request()
            result = study.submit_attempt(current_context(), sent.variant_id, sent.answer,
                                          sent.idempotency_key)
        response = json_response(attempt_json(result), 201)
        if result.replayed:
            response.headers["Idempotent-Replayed"] = "true"
        return response


def answer_from_cookie() -> study.AttemptView | None:
    """Answer through ``study.answer_as_browser``, which finds the browser in its own read.

    Only for a request whose browser cookie and CSRF echo check out and whose body reads
    plainly. None (nothing written or recorded) sends the request the general way, which
    reports any problem in the usual order: identity and CSRF, then the body.
    """
    token = identity.csrf_checked_browser_token()
    if token is None:
        return None
    try:
        sent: AttemptRequest = read_attempt_request()
    except (HTTPException, ServiceError):
        return None

    def known_browser(who: Identity) -> Context:
        identity.adopt_identity(token, who)
        return identity.context_for(who)

    with get_db().driver_connection() as db:
        return study.answer_as_browser(db, known_browser, digest(token), sent.variant_id,
                                       sent.answer, sent.idempotency_key)


@blp.route("/<int:attempt_id>")
class Attempt(MethodView):
    """One attempt."""

    @blp.response(200, AttemptSchema)
    def get(self, attempt_id: int) -> Any:
        """Show an attempt (with its reveal once earned)."""
        return study.get_attempt(current_context(), attempt_id)


@blp.route("/<int:attempt_id>/explanation")
class Explanation(MethodView):
    """The learner's explanation of a wrong answer."""

    @blp.arguments(ExplanationSchema)
    @blp.response(200, AttemptSchema)
    def post(self, body: dict[str, Any], attempt_id: int) -> Any:
        """Record why the answer was wrong; reveals answer, solution, feedback, lesson link."""
        return study.explain_attempt(current_context(), attempt_id, body["explanation"])


@blp.route("/<int:attempt_id>/rating")
class Rating(MethodView):
    """The fsrs rating of the attempt's review."""

    @blp.arguments(RatingSchema)
    @blp.response(200, AttemptSchema)
    def post(self, body: dict[str, Any], attempt_id: int) -> Any:
        """Rate the review: Hard/Good/Easy after a right answer; four buttons for a card."""
        return study.rate_attempt(current_context(), attempt_id, body["rating"])
