"""Shape flask-smorest for this service: strict arguments and the one error envelope."""

from __future__ import annotations

from typing import Any

import flask_smorest
import marshmallow as ma

from quizsvc.http.errors import handle_http_exception
from quizsvc.http.parsing import StrictParser


class ErrorEnvelopeSchema(ma.Schema):
    """Document the error envelope every failing response carries."""

    code = ma.fields.String(metadata={"description": "machine word, e.g. validation_error"})
    status = ma.fields.Integer(metadata={"description": "HTTP status"})
    reason = ma.fields.String(metadata={
        "description": "stable word for why, e.g. already_answered (pages translate it)"})
    message = ma.fields.String(metadata={"description": "one English sentence"})
    errors = ma.fields.Dict(metadata={
        "description": "field detail: {location: {field: [reason, ...]}}"})


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
    """flask-smorest's Api with the service's error envelope in place of its own."""

    ERROR_SCHEMA = ErrorEnvelopeSchema

    def handle_http_exception(self, error: Any) -> Any:
        """Answer HTTP errors with the one envelope."""
        return handle_http_exception(error)
