"""Parse request arguments strictly, with one parser for the API's views and the pages' forms.

webargs excludes unknown query-string keys by default; this service refuses them (422 naming
the key), as it does for JSON bodies. Headers and cookies keep "exclude": browsers send many.
JSON bodies are parsed strictly (``quizsvc.http.inputs``), and a body sent as anything but
JSON is a 422 on its Content-Type rather than a puzzling "missing field".
"""

from __future__ import annotations

from typing import Any, ClassVar

import marshmallow as ma
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from quizsvc.errors import N_, Invalid
from quizsvc.http.inputs import parse_json_body
from quizsvc.http.validators import Said


class StrictParser(FlaskParser):
    """Raise on unknown keys in the query string, the JSON body and forms."""

    DEFAULT_UNKNOWN_BY_LOCATION: ClassVar[dict[str, str | None]] = {  # type: ignore[misc]
        **FlaskParser.DEFAULT_UNKNOWN_BY_LOCATION,
        "querystring": ma.RAISE,
        "query": ma.RAISE,
    }

    def _raw_load_json(self, req: Any) -> Any:
        """Parse a JSON body strictly; refuse a body in another format by its Content-Type."""
        if not is_json_request(req):
            if req.content_length or req.get_data(cache=True):
                if not req.mimetype:
                    raise Invalid("Content-Type",
                                  N_("send the body as application/json, not an unnamed type"),
                                  location="headers", reason="json_required")
                raise Invalid("Content-Type",
                              N_("send the body as application/json, not %(mimetype)s"),
                              location="headers", reason="json_required",
                              params={"mimetype": req.mimetype})
            return core.missing
        return parse_json_body(req.get_data(cache=True))


class FormParser(StrictParser):
    """Parse a page's posted form with an API schema; a refusal is ``errors.Invalid``.

    A page re-shows the form with the reason under its field instead of answering with the
    JSON error envelope, so the refusal names the first field the schema refused and says why
    with the schema's own message: a ``Said`` keeps its template and params for the catalog,
    any other message (marshmallow's fixed sentences) is its own template. Unknown fields (the
    CSRF token, the submit button) are left out.
    """

    DEFAULT_UNKNOWN_BY_LOCATION: ClassVar[dict[str, str | None]] = {  # type: ignore[misc]
        **StrictParser.DEFAULT_UNKNOWN_BY_LOCATION, "form": ma.EXCLUDE}

    def handle_error(self, error: ma.ValidationError, req: Any, schema: ma.Schema, *,
                     error_status_code: int | None, error_headers: Any) -> Any:
        """Raise ``errors.Invalid`` on the first field the schema refused."""
        messages = error.messages if isinstance(error.messages, dict) else {
            "_schema": list(error.messages)}
        if set(messages) == {"form"} and isinstance(messages["form"], dict):
            messages = messages["form"]  # webargs files them under their location
        field, reasons = next(iter(messages.items()))
        reason = reasons[0] if isinstance(reasons, list) and reasons else reasons
        template, params = ((reason.template, reason.params) if isinstance(reason, Said)
                            else (str(reason), None))
        raise Invalid(str(field), template, location="form", params=params)


form_parser = FormParser()
