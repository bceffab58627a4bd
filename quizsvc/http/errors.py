"""Map every failure to one JSON error envelope:
``{code, status, reason, message, errors, request_id}``.

The first four keys are flask-smorest's documented envelope: ``code`` the HTTP status (422),
``status`` its reason phrase ("Unprocessable Entity"), ``message`` one English sentence and
``errors`` the field detail, shaped like webargs' ``{location: {field: [reason, ...]}}``
(``errors.json.answer``). The service adds ``reason``, a stable word for why: the domain's
(``already_answered``, ``unknown_session``: ``quizsvc.errors``), else the refusal's class
(``validation_error``, ``not_found``, ``database_unavailable``...); and ``request_id``, the id
the response's ``X-Request-Id`` and the server's logs give the request
(``quizsvc.http.request_id``), for a learner to quote and an operator to find. When the request's
``Accept-Language`` names zh or en, ``said`` repeats ``message`` and ``errors`` in it, through
the interface catalog (``quizsvc.http.language``); the pages' scripts show that.

This is the one module that decides the HTTP status of a domain exception, so that nothing a
client sends can surface as a 500 with internals in it. When the database cannot be reached
(or a SQLite writer waits too long) the answer is 503 with ``Retry-After``, never a 500 (an
answer sent with its Idempotency-Key is safe to send again).
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, jsonify
from sqlalchemy import exc as sa_exc
from werkzeug.exceptions import HTTPException
from werkzeug.http import HTTP_STATUS_CODES

from quizsvc import errors
from quizsvc.http.language import accepted_lang, message_in, say_reason
from quizsvc.http.request_id import request_id
from quizsvc.store.database import first_line

log = logging.getLogger(__name__)

# The one table of statuses: a subclass not listed takes its nearest listed base's.
STATUS: dict[type[errors.ServiceError], int] = {
    errors.ServiceError: 400,
    errors.Forbidden: 403,
    errors.Unauthorized: 401,
    errors.NotFound: 404,
    errors.Conflict: 409,
    errors.Gone: 410,
    errors.Invalid: 422,
    errors.TooMany: 429,
    errors.Unavailable: 503,
}

# The reason of an HTTP error that gives none: werkzeug's status names in snake case (422
# keeps the schema's word).
HTTP_REASONS: dict[int, str] = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    410: "gone",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    428: "precondition_required",
    429: "too_many_requests",
}

RETRY_AFTER_SECONDS = 5  # what a 503 asks clients to wait before sending the request again


def status_of(error: errors.ServiceError) -> int:
    """Return the HTTP status of a domain exception (its nearest listed class's)."""
    for cls in type(error).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 400


def envelope(status: int, reason: str, message: str, errors_: dict[str, Any] | None = None,
             said: dict[str, Any] | None = None) -> dict[str, Any]:
    """Build the error body every failing response carries (flask-smorest's ``code``,
    ``status``, ``message``, ``errors``, and the service's ``reason`` and ``request_id``)."""
    body = {"code": status, "status": HTTP_STATUS_CODES.get(status, "Unknown Error"),
            "reason": reason, "message": message, "errors": errors_ or {},
            "request_id": request_id()}
    if said is not None:
        body["said"] = said
    return body


def error_response(status: int, reason: str, message: str,
                   errors_: dict[str, Any] | None = None,
                   said: dict[str, Any] | None = None) -> Response:
    """Return a JSON response carrying the envelope."""
    response = jsonify(envelope(status, reason, message, errors_, said))
    response.status_code = status
    if status == 503:
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def said_of(error: errors.ServiceError) -> dict[str, Any] | None:
    """Say a domain refusal in the language the request accepts (``None`` if it names none)."""
    lang = accepted_lang()
    if lang is None:
        return None
    detail = message_in(lang, error.template, error.params)
    if isinstance(error, errors.Invalid):
        return {"message": f"{error.field}: {detail}",
                "errors": {error.location: {error.field: [detail]}}}
    return {"message": detail, "errors": {}}


def said_fields(field_errors: dict[str, Any]) -> dict[str, Any] | None:
    """Say schema field errors (marshmallow's fixed sentences) in the accepted language."""
    lang = accepted_lang()
    if lang is None:
        return None

    def say(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: say(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [say(item) for item in value]
        return say_reason(value, lang) if isinstance(value, str) else value

    said = say(field_errors)
    return {"message": summarise(said), "errors": said}


def handle_service_error(error: errors.ServiceError) -> Response:
    """Turn a domain exception into its envelope (with Retry-After when it says when)."""
    response = error_response(status_of(error), error.reason, error.message, error.errors,
                              said_of(error))
    if "retry_after" in error.params:
        response.headers["Retry-After"] = str(error.params["retry_after"])
    return response


def database_unreachable(error: BaseException) -> bool:
    """Tell whether a database error means "cannot reach the database" rather than a bug.

    The cause chain is searched too, and a connection that was invalidated mid-transaction
    ("Can't reconnect until invalid transaction is rolled back") counts as unreachable. A
    SQLite writer that waited past its busy timeout ("database is locked") is one too.
    """
    seen = 0
    current: BaseException | None = error
    while current is not None and seen < 8:
        if isinstance(current, sa_exc.OperationalError | sa_exc.InterfaceError
                      | sa_exc.TimeoutError | sa_exc.DisconnectionError | TimeoutError):
            return True
        if isinstance(current, sa_exc.DBAPIError) and current.connection_invalidated:
            return True
        if isinstance(current, sa_exc.PendingRollbackError) and (
            "invalid transaction" in str(current) or "reconnect" in str(current)
        ):
            return True
        current = current.__cause__ or current.__context__
        seen += 1
    return False


def handle_database_error(error: Exception) -> Response:
    """Answer 503 + Retry-After while the database is unreachable; anything else is a bug."""
    if not database_unreachable(error):
        return handle_unexpected(error)
    log.warning("database unavailable: %s", first_line(error))
    return error_response(503, "database_unavailable",
                          "The database is unavailable; send the request again shortly.")


def handle_http_exception(error: HTTPException) -> Response:
    """Turn werkzeug / flask-smorest aborts (webargs 422s included) into the envelope."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    field_errors = data.get("messages") or data.get("errors") or {}
    message = data.get("message") or error.description or error.name
    said = None
    if status == 422 and field_errors:
        message = "The request is invalid: " + summarise(field_errors)
        said = said_fields(field_errors)
    response = error_response(status, HTTP_REASONS.get(status, "http_error"), message,
                              field_errors, said=said)
    for name, value in (data.get("headers") or {}).items():
        response.headers[name] = value
    if status == 405 and hasattr(error, "valid_methods") and error.valid_methods:
        response.headers["Allow"] = ", ".join(error.valid_methods)
    return response


def handle_unexpected(error: Exception) -> Response:
    """Log an unexpected exception and answer 500 without leaking its detail."""
    if isinstance(error, HTTPException):
        return handle_http_exception(error)
    log.exception("unhandled error", exc_info=error)
    return error_response(500, "internal_error", "The server failed to handle this request.")


def summarise(field_errors: dict[str, Any], prefix: str = "") -> str:
    """Flatten nested field errors into one line such as ``json.answer: not a number``."""
    parts: list[str] = []
    for key, value in field_errors.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, dict):
            parts.append(summarise(value, path))
        elif isinstance(value, list | tuple):
            texts = [v if isinstance(v, str) else summarise(v, path) for v in value]
            parts.append(f"{path}: {'; '.join(texts)}")
        else:
            parts.append(f"{path}: {value}")
    return ", ".join(parts)


def register_error_handlers(app: Flask) -> None:
    """Install the envelope for domain errors, HTTP errors and anything unexpected."""
    app.register_error_handler(errors.ServiceError, handle_service_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    for database_error in (sa_exc.DBAPIError, sa_exc.PendingRollbackError,
                           sa_exc.DisconnectionError, sa_exc.TimeoutError, TimeoutError):
        app.register_error_handler(database_error, handle_database_error)
    app.register_error_handler(Exception, handle_unexpected)
