"""Shape flask-smorest for this service: strict query strings and the one error envelope.

webargs excludes unknown query-string keys by default; this service refuses them (422 naming
the key), as it does for JSON bodies. Headers and cookies keep "exclude": browsers send many.
JSON bodies are parsed strictly (``quizsvc.api.inputs``), and a body sent as anything but JSON
is a 422 on its Content-Type rather than a puzzling "missing field".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

import flask_smorest
import marshmallow as ma
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from quizsvc.api.inputs import parse_json_body
from quizsvc.errors import Invalid, handle_http_exception

F = TypeVar("F", bound=Callable[..., Any])


class StrictParser(FlaskParser):
    """Raise on unknown keys in the query string, the JSON body and forms."""

    DEFAULT_UNKNOWN_BY_LOCATION: ClassVar[dict[str, str | None]] = {
        **FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
        "querystring": ma.RAISE,
        "query": ma.RAISE,
    }

    def _raw_load_json(self, req: Any) -> Any:
        """Parse a JSON body strictly; refuse a body in another format by its Content-Type."""
        if not is_json_request(req):
            if req.content_length or req.get_data(cache=True):
                raise Invalid("Content-Type", f"send the body as application/json, not "
                              f"{req.mimetype or 'an unnamed type'}", location="headers")
            return core.missing
        return parse_json_body(req.get_data(cache=True))


class ErrorEnvelopeSchema(ma.Schema):
    """Document the error envelope every failing response carries."""

    code = ma.fields.String(metadata={"description": "machine word, e.g. validation_error"})
    status = ma.fields.Integer(metadata={"description": "HTTP status"})
    message = ma.fields.String(metadata={"description": "one human sentence"})
    errors = ma.fields.Dict(metadata={
        "description": "field detail: {location: {field: [reason, ...]}}"})


class ApiBlueprint(flask_smorest.Blueprint):
    """A flask-smorest blueprint whose arguments are parsed strictly."""

    ARGUMENTS_PARSER = StrictParser()

    def arguments(self, schema: Any, *args: Any, **kwargs: Any) -> Any:
        """Declare a view's arguments with one schema instance made now, not per request.

        webargs builds a schema given as a class on every request, and building one
        deep-copies its fields; the instances here are only ever read.
        """
        if isinstance(schema, type) and issubclass(schema, ma.Schema):
            schema = schema()
        return super().arguments(schema, *args, **kwargs)

    def documented_arguments(self, schema: Any, **kwargs: Any) -> Callable[[F], F]:
        """Document a view's arguments as ``arguments`` does, for a view that reads its own.

        The OpenAPI entry (request body or parameters, the 422 response) is the one
        ``arguments`` records; nothing is parsed per request and the view gets no argument.
        Only for a hot path that has measured the parsing's cost (``POST /api/attempts``).
        """

        def decorator(view: F) -> F:
            parsing = self.arguments(schema, **kwargs)(view)
            view._apidoc = parsing._apidoc  # type: ignore[attr-defined]
            return view

        return decorator


class Api(flask_smorest.Api):
    """flask-smorest's Api with the service's error envelope in place of its own."""

    ERROR_SCHEMA = ErrorEnvelopeSchema

    def handle_http_exception(self, error: Any) -> Any:
        """Answer HTTP errors with the one envelope."""
        return handle_http_exception(error)
