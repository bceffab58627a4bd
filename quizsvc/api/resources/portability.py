"""Export and import a learner's own data; the review log as fsrs-optimizer CSV."""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import ExportSchema, ImportResultSchema
from quizsvc.http.arguments import ExportQuerySchema
from quizsvc.http.context import current_context
from quizsvc.study import portability

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


@blp.route("/import")
class Import(MethodView):
    """Load exported data into this (empty) learner."""

    @blp.arguments(ExportSchema)
    @blp.response(201, ImportResultSchema)
    def post(self, document: dict[str, Any]) -> Any:
        """Import a document from GET /api/export into this browser's fresh learner."""
        return portability.import_learner_data(current_context(), document)
