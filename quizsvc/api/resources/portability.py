"""Export and import a learner's own data; the review log as fsrs-optimizer CSV."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

import marshmallow as ma
from flask import Response, request
from flask.views import MethodView
from flask_smorest import abort
from webargs.flaskparser import is_json_request

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import ExportSchema, ImportResultSchema
from quizsvc.errors import N_, Invalid
from quizsvc.http.arguments import ExportQuerySchema
from quizsvc.http.browser import switch_identity
from quizsvc.http.context import current_context
from quizsvc.http.inputs import parse_json_body
from quizsvc.http.limits import import_limit
from quizsvc.pool import job_runtime
from quizsvc.study import portability
from quizsvc.study.context import Context, Identity
from quizsvc.study.portability import Imported

blp = ApiBlueprint("portability", __name__, url_prefix="/api",
                   description="Export and import a learner's own data")


@blp.route("/export")
class Export(MethodView):
    """This learner's data."""

    @blp.arguments(ExportQuerySchema, location="query")
    @blp.response(200, ExportSchema)
    @blp.alt_response(200, schema={"type": "string"}, content_type="text/csv",
                      description="the JSON document; with format=fsrs-csv, the review "
                      "log for the fsrs optimizer")
    def get(self, query: dict[str, Any]) -> Any:
        """Export as JSON (lossless) or the review log as fsrs-optimizer CSV."""
        ctx = current_context()
        if query["format"] == "fsrs-csv":
            return Response(portability.revlog_csv(ctx), mimetype="text/csv", headers={
                "Content-Disposition": "attachment; filename=revlog.csv"})
        return portability.export_learner_data(ctx)


IMPORT_WAIT_SECONDS = 20.0  # an import of IMPORT_MAX_CONTENT_LENGTH takes a few seconds


@dataclass(frozen=True)
class Refused:
    """An import document the export schema refused: its field errors, as webargs gives them."""

    status: int
    messages: dict[str, Any]


def import_job(identity: Identity, body: bytes, now: datetime) -> Imported | Refused:
    """Parse, check and import a document (a job for the costly-work pool).

    Parsing and checking a large export costs seconds of CPU, so this runs on the pool too,
    not on the thread that serves the request; a refused document comes back as the field
    errors the view answers 400/422 with.
    """
    runtime = job_runtime()
    try:
        document = ExportSchema().load(parse_json_body(body))
    except json.JSONDecodeError:
        return Refused(400, {"json": ["Invalid JSON body."]})
    except ma.ValidationError as error:
        return Refused(422, {"json": error.messages})
    with runtime.unit_of_work() as uow:
        uow.deadline = runtime.deadline
        ctx = Context(uow=uow, bank=runtime.bank, index=runtime.index, identity=identity,
                      now=now, rng=secrets.SystemRandom(), limits=runtime.limits,
                      secret_key=runtime.secret_key)
        return portability.import_learner_data(ctx, document)


@blp.route("/import")
class Import(MethodView):
    """Load exported data into this (empty) learner."""

    decorators: ClassVar[list[Callable[..., Any]]] = [import_limit()]

    @blp.doc(requestBody={"required": True,
                          "content": {"application/json": {"schema": ExportSchema}}})
    @blp.response(201, ImportResultSchema)
    @blp.alt_response(422, description="a field of the document is invalid")
    @blp.alt_response(503, description="the server is busy, or the import took too long "
                      "(nothing was imported; Retry-After)")
    def post(self) -> Any:
        """Import a document from GET /api/export into this browser's fresh learner.

        The document is read and imported on the server's costly-work pool, so a large one
        never holds the worker that serves other learners' pages.
        """
        if not is_json_request(request):
            raise Invalid("Content-Type", N_("send the body as application/json"),
                          location="headers", reason="json_required")
        ctx = current_context()
        done = ctx.costly(IMPORT_WAIT_SECONDS, import_job, ctx.registered,
                          request.get_data(cache=False), ctx.now)
        if isinstance(done, Refused):
            abort(done.status, messages=done.messages)
        assert isinstance(done, Imported)  # abort raised
        switch_identity(done.identity)  # the browser now belongs to the imported learner
        return done.result
