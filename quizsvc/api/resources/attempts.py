"""Attempts: answer a variant (idempotently), explain a wrong answer, rate the review."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import AttemptSchema, ServedQuestionSchema
from quizsvc.http.arguments import (
    AttemptCreateSchema,
    ExplanationSchema,
    IdempotencyHeaderSchema,
    RatingSchema,
)
from quizsvc.http.context import current_context
from quizsvc.http.metrics import answer_graded
from quizsvc.study import answering, reviews, variants

blp = ApiBlueprint("attempts", __name__, url_prefix="/api/attempts",
                   description="Graded answers, explanations and review ratings")


@blp.route("")
class Attempts(MethodView):
    """Submit answers."""

    @blp.arguments(IdempotencyHeaderSchema, location="headers", as_kwargs=True)
    @blp.arguments(AttemptCreateSchema)
    @blp.response(201, AttemptSchema)
    def post(self, body: dict[str, Any], idempotency_key: str) -> Any:
        """Grade an answer; a retry with the same Idempotency-Key returns the first result.

        After a wrong answer, ``reveal`` is null until an explanation is posted.
        """
        result = answering.submit(current_context(), body["variant_id"], body["answer"],
                                  idempotency_key)
        if result.graded and not result.replayed:
            answer_graded(bool(result.correct))
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return result, 201, headers


@blp.route("/<int:attempt_id>")
class Attempt(MethodView):
    """One attempt."""

    @blp.response(200, AttemptSchema)
    def get(self, attempt_id: int) -> Any:
        """Show an attempt (with its reveal once earned)."""
        return answering.get_attempt(current_context(), attempt_id)


@blp.route("/<int:attempt_id>/explanation")
class Explanation(MethodView):
    """The learner's explanation of a wrong answer."""

    @blp.arguments(ExplanationSchema)
    @blp.response(200, AttemptSchema)
    def post(self, body: dict[str, Any], attempt_id: int) -> Any:
        """Record why the answer was wrong: ``rule``, the rule the learner thinks they broke
        (one of the attempt's ``diagnosis_options``; 422 on ``rule`` otherwise), and a
        sentence (at least 3 words or 6 Chinese characters; 422 on ``explanation``).

        Reveals answer, solution, feedback and lesson link; where the answer matched a wrong
        model, ``reveal.diagnosis.matched`` says whether ``rule`` is the one it breaks.
        """
        return answering.explain_attempt(current_context(), attempt_id, body["explanation"],
                                         body["rule"])


@blp.route("/<int:attempt_id>/rating")
class Rating(MethodView):
    """The fsrs rating of the attempt's review."""

    @blp.arguments(RatingSchema)
    @blp.response(200, AttemptSchema)
    def post(self, body: dict[str, Any], attempt_id: int) -> Any:
        """Rate the review: Hard/Good/Easy after a right answer; four buttons for a card."""
        return reviews.rate_attempt(current_context(), attempt_id, body["rating"])

    @blp.response(200, AttemptSchema)
    def delete(self, attempt_id: int) -> Any:
        """Undo the learner's rating: a right answer goes back to Good, a card's review is
        taken back (the card as it was before); the ratings are offered again."""
        return reviews.undo_rating(current_context(), attempt_id)


@blp.route("/<int:attempt_id>/new-variant")
class NewVariant(MethodView):
    """A fresh variant of an answered numeric question, served as practice."""

    @blp.response(201, ServedQuestionSchema)
    @blp.alt_response(409, description="before the reveal (reason not_revealed), or a kind "
                      "without other numbers to ask (reason no_variants)")
    def post(self, attempt_id: int) -> Any:
        """Serve a new variant of the attempt's question, as practice (after its reveal).

        Answer it with ``POST /api/attempts`` like any variant: it is graded as usual, but
        its attempt is ``practice: true, closed_book: false`` and never mastery evidence. A
        learner has one practice variant open at a time: asking again replaces it.
        """
        return variants.new_variant(current_context(), attempt_id)
