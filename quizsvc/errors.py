"""Map every failure to one JSON error envelope: ``{code, status, message, errors}``.

``code`` is a stable machine word (``validation_error``, ``not_found``, ...), ``status`` the
HTTP status, ``message`` one human sentence and ``errors`` the field detail, shaped like
webargs' ``{location: {field: [reason, ...]}}`` (``errors.json.answer``). Service functions
raise the domain exceptions below; this is the one module that decides their HTTP status,
so that nothing a client sends can surface as a 500 with internals in it. When the database
cannot be reached (or a SQLite writer waits too long) the answer is 503 with ``Retry-After``,
never a 500 (an answer sent with its Idempotency-Key is safe to send again).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from sqlalchemy import exc as sa_exc
from werkzeug.exceptions import HTTPException

if TYPE_CHECKING:
    from flask import Flask, Response

log = logging.getLogger(__name__)


class ServiceError(Exception):
    """Base class of every failure a service function reports to its caller.

    Subclasses fix ``status`` and ``code``; ``errors`` carries per-field reasons.
    """

    status = 400
    code = "bad_request"

    def __init__(self, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.errors = errors or {}


class NotFound(ServiceError):
    """Raise when a resource does not exist *for this learner* (never reveal whose it is)."""

    status = 404
    code = "not_found"


class Conflict(ServiceError):
    """Raise when a request is valid but the resource's state forbids it (e.g. re-rating)."""

    status = 409
    code = "conflict"


class Gone(ServiceError):
    """Raise when something existed but can no longer be used (a stale variant, a used code)."""

    status = 410
    code = "gone"


class Forbidden(ServiceError):
    """Raise when the caller lacks a credential (CSRF token, author token)."""

    status = 403
    code = "forbidden"


class CsrfFailed(Forbidden):
    """Raise when a state-changing request lacks a matching double-submit CSRF token."""

    code = "csrf_failed"


class Invalid(ServiceError):
    """Raise for a semantically invalid input: 422 naming the location and field.

    ``Invalid("answer", "expected 3 integers")`` becomes
    ``errors = {"json": {"answer": ["expected 3 integers"]}}``.
    """

    status = 422
    code = "validation_error"

    def __init__(self, field: str, reason: str, location: str = "json") -> None:
        super().__init__(f"{field}: {reason}", {location: {field: [reason]}})
        self.field = field
        self.reason = reason
        self.location = location


# Werkzeug's status names in snake case for envelope codes (422 keeps the schema's word).
HTTP_CODES: dict[int, str] = {
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


def envelope(status: int, code: str, message: str, errors: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    """Build the error body every failing response carries."""
    return {"code": code, "status": status, "message": message, "errors": errors or {}}


def error_response(status: int, code: str, message: str,
                   errors: dict[str, Any] | None = None) -> Response:
    """Return a JSON response carrying the envelope."""
    from flask import jsonify

    response = jsonify(envelope(status, code, message, errors))
    response.status_code = status
    return response


def handle_service_error(error: ServiceError) -> Response:
    """Turn a domain exception into its envelope (a 503 also says when to retry)."""
    response = error_response(error.status, error.code, error.message, error.errors)
    if error.status == 503:
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def database_unreachable(error: BaseException) -> bool:
    """Tell whether a database error means "cannot reach the database" rather than a bug.

    The cause chain is searched too, and a connection that was invalidated mid-transaction
    ("Can't reconnect until invalid transaction is rolled back") counts as unreachable.
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
    log.warning("database unavailable: %s", str(error).splitlines()[0] if str(error) else
                type(error).__name__)
    response = error_response(503, "database_unavailable",
                              "The database is unavailable; send the request again shortly.")
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def handle_http_exception(error: HTTPException) -> Response:
    """Turn werkzeug / flask-smorest aborts (webargs 422s included) into the envelope."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    errors = data.get("messages") or data.get("errors") or {}
    message = data.get("message") or error.description or error.name
    if status == 422 and errors:
        message = "The request is invalid: " + summarise(errors)
    response = error_response(status, HTTP_CODES.get(status, "http_error"), message, errors)
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


def summarise(errors: dict[str, Any], prefix: str = "") -> str:
    """Flatten nested field errors into one line such as ``json.answer: not a number``."""
    parts: list[str] = []
    for key, value in errors.items():
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
    app.register_error_handler(ServiceError, handle_service_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(sa_exc.DBAPIError, handle_database_error)
    app.register_error_handler(sa_exc.PendingRollbackError, handle_database_error)
    app.register_error_handler(sa_exc.DisconnectionError, handle_database_error)
    app.register_error_handler(sa_exc.TimeoutError, handle_database_error)
    app.register_error_handler(TimeoutError, handle_database_error)
    app.register_error_handler(Exception, handle_unexpected)
