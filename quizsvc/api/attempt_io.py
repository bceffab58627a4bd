"""Read and write the graded-answer route (``POST /api/attempts``) without marshmallow.

It is the service's hot path: ``bench/api_bench.py`` asks for 0.35 of a bare Flask app's
throughput, and webargs' two ``parse`` calls (header and body), ``AttemptSchema().dump`` and
their wrappers took about 80 µs of a 550 µs request in-process (the profile said 150 µs; the
profiler inflates small calls); by hand the same work takes about 10 µs. The rules themselves
stay in the schemas:

- ``read_attempt_request`` takes a request that is plainly valid (the key's and the variant
  id's length limits are read from the schemas' own ``Length`` validators) straight from the
  header and the parsed body. Anything else is handed to the same parser and schemas that
  ``@blp.arguments`` would use, in the same order (headers, then body), so every error a
  client gets (status, code, location, field, message) is unchanged. The body is always read
  by the parser's ``load_json``: content-type rules, NUL/surrogate/depth/number checks, 400
  on malformed JSON.
- ``attempt_json`` builds what ``AttemptSchema().dump`` builds, field for field (``int``,
  ``float``, ``str`` and ``datetime.isoformat`` as marshmallow's fields apply them; booleans
  and raw values passed through), and ``json_response`` wraps it the way ``jsonify`` does.

``tests/api/test_attempt_fast_io.py`` proves both against the schemas.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import marshmallow as ma
from flask import Response, current_app, request

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import AttemptCreateSchema, IdempotencyHeaderSchema
from quizsvc.api.services.study import AttemptView, Reveal
from quizsvc.bank.model import Text

PARSER = ApiBlueprint.ARGUMENTS_PARSER
HEADER_SCHEMA = IdempotencyHeaderSchema()
BODY_SCHEMA = AttemptCreateSchema()


def string_length(field: ma.fields.Field) -> tuple[int, int]:
    """Return a string field's (min, max) length, for a field whose one rule is that length.

    Refuses (at import) any field the fast path could not mirror exactly: another field
    type, another validator, an exact length or an open bound.
    """
    rules = field.validators
    if (type(field) is not ma.fields.String or len(rules) != 1
            or not isinstance(rules[0], ma.validate.Length) or rules[0].equal is not None
            or rules[0].min is None or rules[0].max is None):
        raise TypeError(f"{field!r} is not a plain length-limited string")
    return rules[0].min, rules[0].max


KEY_FIELD = HEADER_SCHEMA.fields["idempotency_key"]
KEY_HEADER = KEY_FIELD.data_key or "idempotency_key"
KEY_MIN, KEY_MAX = string_length(KEY_FIELD)
VARIANT_ID_MIN, VARIANT_ID_MAX = string_length(BODY_SCHEMA.fields["variant_id"])
BODY_KEYS = frozenset(field.data_key or name for name, field in BODY_SCHEMA.load_fields.items())


def check_answer_field(field: ma.fields.Field) -> None:
    """Refuse (at import) an ``answer`` field that checks or defaults anything: none is read."""
    if (type(field) is not ma.fields.Raw or field.validators or not field.allow_none
            or field.load_default is not None):
        raise TypeError(f"{field!r} is not a raw, optional answer")


check_answer_field(BODY_SCHEMA.fields["answer"])
if {"variant_id", "answer"} != BODY_KEYS:
    raise TypeError("AttemptCreateSchema's keys changed: update read_attempt_request")


@dataclass(frozen=True, slots=True)
class AttemptRequest:
    """An answer as the client sent it: the idempotency key, the variant and the answer."""

    idempotency_key: str
    variant_id: str
    answer: Any


def read_attempt_request() -> AttemptRequest:
    """Read the current request's Idempotency-Key and body, or abort as webargs would."""
    key = request.headers.get(KEY_HEADER)
    if key is None or not KEY_MIN <= len(key) <= KEY_MAX:
        key = PARSER.parse(HEADER_SCHEMA, request, location="headers")["idempotency_key"]
    body = PARSER.load_json(request, BODY_SCHEMA)
    if type(body) is dict and BODY_KEYS.issuperset(body):
        variant_id = body.get("variant_id")
        if type(variant_id) is str and VARIANT_ID_MIN <= len(variant_id) <= VARIANT_ID_MAX:
            return AttemptRequest(key, variant_id, body.get("answer"))
    # Not plainly valid: let the schema decide (it parses the body again; errors are rare).
    loaded = PARSER.parse(BODY_SCHEMA, request, location="json")
    return AttemptRequest(key, loaded["variant_id"], loaded["answer"])


def text_json(text: Text | None) -> dict[str, str] | None:
    """Dump a ``Text`` as ``TextSchema`` does."""
    if text is None:
        return None
    return {"zh": str(text.zh), "en": str(text.en)}


def reveal_json(reveal: Reveal | None) -> dict[str, Any] | None:
    """Dump a ``Reveal`` as ``RevealSchema`` does."""
    if reveal is None:
        return None
    misconception = reveal.misconception
    return {
        "correct_answer": reveal.correct_answer,
        "solution": text_json(reveal.solution),
        "misconception": None if misconception is None else {
            "id": str(misconception.id), "name": text_json(misconception.name)},
        "lesson_link": str(reveal.lesson_link),
        "explanation": None if reveal.explanation is None else str(reveal.explanation),
    }


def attempt_json(view: AttemptView) -> dict[str, Any]:
    """Dump an ``AttemptView`` as ``AttemptSchema().dump`` does (same keys, order, values)."""
    score, rating = view.score, view.rating
    return {
        "id": int(view.id),
        "variant_id": str(view.variant_id),
        "question_id": str(view.question_id),
        "kind": str(view.kind),
        "graded": view.graded,
        "correct": view.correct,
        "score": None if score is None else float(score),
        "per_element": list(view.per_element),
        "closed_book": view.closed_book,
        "submitted_at": view.submitted_at.isoformat(),
        "duration_ms": int(view.duration_ms),
        "explanation_required": view.explanation_required,
        "rating": None if rating is None else str(rating),
        "rating_choices": [str(choice) for choice in view.rating_choices],
        "reveal": reveal_json(view.reveal),
    }


def json_response(payload: Any, status: int) -> Response:
    """Return ``payload`` as ``jsonify`` (and so ``@blp.response``) would, with ``status``."""
    response = current_app.json.response(payload)
    response.status_code = status
    return response
