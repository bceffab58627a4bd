"""Shape flask-smorest for this service: strict arguments and the one error envelope."""

from __future__ import annotations

from typing import Any

import flask_smorest
import marshmallow as ma
from apispec import APISpec, BasePlugin
from flask import Flask

from quizsvc.http.browser import CSRF_HEADER
from quizsvc.http.cookies import CSRF_COOKIE
from quizsvc.http.errors import handle_http_exception
from quizsvc.http.parsing import StrictParser
from quizsvc.http.schema import Schema


class ErrorEnvelopeSchema(Schema):
    """Document the error envelope every failing response carries: flask-smorest's ``code``,
    ``status``, ``message`` and ``errors``, with the service's ``reason``, ``request_id`` and
    ``said``."""

    code = ma.fields.Integer(metadata={"description": "HTTP status, e.g. 422"})
    status = ma.fields.String(metadata={
        "description": "HTTP reason phrase, e.g. Unprocessable Entity"})
    reason = ma.fields.String(metadata={
        "description": "stable word for why, e.g. already_answered (the domain's), else the "
                       "refusal's class, e.g. validation_error, not_found"})
    message = ma.fields.String(metadata={"description": "one English sentence"})
    errors = ma.fields.Dict(metadata={
        "description": "field detail: {location: {field: [reason, ...]}}"})
    request_id = ma.fields.String(metadata={
        "description": "the request's id, also in the X-Request-Id header and the server's "
                       "logs: quote it when reporting a failure"})
    said = ma.fields.Dict(metadata={
        "description": "message and errors again in the request's Accept-Language (zh or en), "
                       "present only when it names one"})


# The security schemes the OpenAPI document names, so that a generated client knows what to send.
SECURITY_SCHEMES = {
    "csrf": {"type": "apiKey", "in": "header", "name": CSRF_HEADER, "description": (
        f"Echo the {CSRF_COOKIE} cookie (or the csrf_token of GET /api/me) on every "
        "state-changing request; the browser cookie that GET /api/me sets must come along.")},
    "author": {"type": "http", "scheme": "bearer",
               "description": "QUIZSVC_AUTHOR_TOKEN, for the author views only."},
    "instructor": {"type": "http", "scheme": "bearer",
                   "description": "a cohort's instructor token (shown when the cohort is made "
                                  "or its token rotated), for that cohort's report only."},
}
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class SecurityPlugin(BasePlugin):
    """Document what a client must send: the service's security schemes, and the CSRF echo
    on every state-changing operation whose view does not document its own (an apispec
    plugin, which flask-smorest's ``Api`` takes in ``spec_kwargs["extra_plugins"]``)."""

    def init_spec(self, spec: APISpec) -> None:
        """Name the security schemes in the document's components."""
        for name, scheme in SECURITY_SCHEMES.items():
            spec.components.security_scheme(name, scheme)

    def operation_helper(self, path: str | None = None,
                         operations: dict[str, Any] | None = None, **kwargs: Any) -> None:
        """Require the CSRF echo on state changes, unless the view documents its own."""
        for method, operation in (operations or {}).items():
            if method.upper() in STATE_CHANGING:
                operation.setdefault("security", [{"csrf": []}])


class ApiBlueprint(flask_smorest.Blueprint):
    """A flask-smorest blueprint whose arguments are parsed strictly."""

    ARGUMENTS_PARSER = StrictParser()

    def arguments(self, schema: Any, *args: Any, **kwargs: Any) -> Any:
        """Declare a view's arguments, a schema class made an instance once here.

        webargs builds a schema it is given as a class anew for every request; one instance
        per route does the same work (the schemas keep no state between loads).
        """
        if isinstance(schema, type):
            schema = schema()
        return super().arguments(schema, *args, **kwargs)


class Api(flask_smorest.Api):
    """flask-smorest's Api with the service's error envelope in place of its own, and its
    security documented (``SecurityPlugin``)."""

    ERROR_SCHEMA = ErrorEnvelopeSchema

    def __init__(self, app: Flask | None = None, *, spec_kwargs: dict[str, Any] | None = None,
                 **kwargs: Any) -> None:
        spec_kwargs = dict(spec_kwargs or {})
        spec_kwargs["extra_plugins"] = [*spec_kwargs.get("extra_plugins", ()), SecurityPlugin()]
        super().__init__(app, spec_kwargs=spec_kwargs, **kwargs)

    def handle_http_exception(self, error: Any) -> Any:
        """Answer HTTP errors with the one envelope."""
        return handle_http_exception(error)
