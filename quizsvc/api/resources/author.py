"""Author-only views behind ``AUTHOR_TOKEN``: whole variants, the bank's contents, cohorts,
item analysis.

With no token configured these routes answer 404 as if they did not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, ClassVar
from urllib.parse import urljoin

from flask import Response, request
from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import (
    InstructorTokenSchema,
    IssuedCohortSchema,
    ItemAnalysisSchema,
    ReportSchema,
)
from quizsvc.errors import N_, NotFound
from quizsvc.http.arguments import (
    CohortCreateSchema,
    ItemAnalysisQuerySchema,
    LmsExportSchema,
    PreviewQuerySchema,
    ReportListQuerySchema,
)
from quizsvc.http.author import require_bearer
from quizsvc.http.context import current_context
from quizsvc.http.limits import author_rate_limit
from quizsvc.runtime import runtime
from quizsvc.store.database import request_unit_of_work
from quizsvc.study import author, cohorts, item_analysis, lms_export, reports

AUTHOR_SECURITY: list[dict[str, list[str]]] = [{"author": []}]

blp = ApiBlueprint("author", __name__, url_prefix="/api/author",
                   description="Author-only previews (Authorization: Bearer <token>)")


def require_author(view: Callable[..., Any]) -> Callable[..., Any]:
    """Let a request through only with ``Authorization: Bearer <AUTHOR_TOKEN>``."""

    @wraps(view)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        require_bearer()
        return view(*args, **kwargs)

    return guarded


@blp.route("/variants/<string:question_id>")
class VariantPreview(MethodView):
    """A whole variant."""

    decorators: ClassVar[list[Callable[..., Any]]] = [author_rate_limit()]

    @blp.arguments(PreviewQuerySchema, location="query")
    @blp.response(200, description="the full variant, answer included")
    @blp.doc(security=AUTHOR_SECURITY)
    @require_author
    def get(self, query: dict[str, Any], question_id: str) -> Any:
        """Preview one variant with its answer, solution, misconceptions and scenario."""
        bank, index = runtime().teaching()
        return author.preview_variant(bank, index, question_id, query["seed"])


@blp.route("/bank")
class BankExport(MethodView):
    """The bank's contents."""

    decorators: ClassVar[list[Callable[..., Any]]] = [author_rate_limit()]

    @blp.response(200, description="the bank's version, lessons and questions")
    @blp.doc(security=AUTHOR_SECURITY)
    @require_author
    def get(self) -> Any:
        """Export the bank's lessons and questions."""
        bank, index = runtime().teaching()
        return author.export_bank(bank, index)


def here(path: str) -> str:
    """Return ``path`` as an address on this server."""
    return urljoin(request.host_url, path.lstrip("/"))


@blp.route("/cohorts")
class Cohorts(MethodView):
    """The cohorts an author makes."""

    decorators: ClassVar[list[Callable[..., Any]]] = [author_rate_limit()]

    @blp.arguments(CohortCreateSchema)
    @blp.response(201, IssuedCohortSchema)
    @blp.doc(security=AUTHOR_SECURITY)
    @require_author
    def post(self, body: dict[str, Any]) -> Any:
        """Make a cohort of a lesson: its join code and instructor token are shown only now."""
        _, index = runtime().teaching()
        issued = cohorts.create_cohort(request_unit_of_work(), index, body["lesson"],
                                       body["name"], runtime().clock())
        return {**issued.__dict__,
                "join_url": here(cohorts.join_path(issued.join_code)),
                "instructor_url": here(cohorts.instructor_path(issued.id,
                                                               issued.instructor_token))}


@blp.route("/cohorts/<int:cohort_id>/instructor-token")
class InstructorToken(MethodView):
    """A cohort's instructor token."""

    decorators: ClassVar[list[Callable[..., Any]]] = [author_rate_limit()]

    @blp.response(200, InstructorTokenSchema)
    @blp.doc(security=AUTHOR_SECURITY)
    @require_author
    def post(self, cohort_id: int) -> Any:
        """Rotate the instructor token: the old token and link stop working at once."""
        issued = cohorts.rotate_instructor_token(request_unit_of_work(), cohort_id,
                                                 runtime().clock())
        return {**issued.__dict__,
                "instructor_url": here(cohorts.instructor_path(issued.id,
                                                               issued.instructor_token))}


@blp.route("/reports")
class Reports(MethodView):
    """Learners' reports of problems with questions."""

    decorators: ClassVar[list[Callable[..., Any]]] = [author_rate_limit()]

    @blp.arguments(ReportListQuerySchema, location="query")
    @blp.response(200, ReportSchema(many=True))
    @blp.doc(security=AUTHOR_SECURITY)
    @require_author
    def get(self, query: dict[str, Any]) -> Any:
        """List the newest reports, each with its variant (question id, seed, bank version)."""
        return reports.list_reports(request_unit_of_work(), query["limit"],
                                    query.get("question_id"))


@blp.route("/item-analysis")
class ItemAnalysis(MethodView):
    """Item analysis over every learner."""

    decorators: ClassVar[list[Callable[..., Any]]] = [author_rate_limit()]

    @blp.arguments(ItemAnalysisQuerySchema, location="query")
    @blp.response(200, ItemAnalysisSchema)
    @blp.alt_response(200, schema={"type": "string"}, content_type="text/csv",
                      description="with format=csv one row per question; with "
                      "format=rules-csv one row per rule")
    @blp.doc(security=AUTHOR_SECURITY)
    @require_author
    def get(self, query: dict[str, Any]) -> Any:
        """Analyse each question and rule over every learner's first closed-book answers."""
        report = item_analysis.item_analysis_report(current_context(), query["lesson"])
        if query["format"] == "json":
            return report
        name, text = item_analysis.report_csv(report, query["format"])
        return Response(text, mimetype="text/csv",
                        headers={"Content-Disposition": f"attachment; filename={name}"})


@blp.route("/exports/<string:export_format>")
class LmsExport(MethodView):
    """Randomized exercises for an LMS (``quizsvc export moodle|qti`` through the API)."""

    decorators: ClassVar[list[Callable[..., Any]]] = [author_rate_limit()]

    @blp.arguments(LmsExportSchema)
    @blp.response(200, schema={"type": "string", "format": "binary"},
                  content_type="application/octet-stream",
                  description="Moodle XML (one category per question) or a QTI 2.1 item "
                  "bank package; X-Quizsvc-Seeds-From names the seeds that make it again")
    @blp.doc(security=AUTHOR_SECURITY)
    @require_author
    def post(self, body: dict[str, Any], export_format: str) -> Any:
        """Draw N variants of each graded (or named) question at seeds the service never
        serves, record them as exported, and return the file (``export_format``: moodle or
        qti)."""
        if export_format not in lms_export.MEDIA_TYPES:
            raise NotFound(N_("No export format %(format)s: moodle or qti."),
                           reason="unknown_format", params={"format": export_format[:40]})
        ctx = current_context()
        done = ctx.costly(lms_export.EXPORT_WAIT_SECONDS, lms_export.export_job, export_format,
                          body["lesson"], body["questions"], body["variants"], body["lang"],
                          body["seeds_from"], ctx.now)
        return Response(done.data, mimetype=done.media_type, headers={
            "Content-Disposition": f"attachment; filename={done.filename}",
            "X-Quizsvc-Seeds-From": str(done.seeds_from),
            "X-Quizsvc-Recorded": str(done.recorded)})
