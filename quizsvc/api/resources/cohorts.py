"""Cohorts for learners (join, list, leave) and for their instructor (the report, the
gradebook, the item analysis).

The instructor's routes take no browser: the cohort's instructor token, sent as
``Authorization: Bearer <token>``, is their only credential, and it opens that one cohort.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from flask import Response, request
from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import CohortReportSchema, ItemAnalysisSchema, MembershipSchema
from quizsvc.errors import N_, Unauthorized
from quizsvc.http.arguments import CohortItemAnalysisQuerySchema, CohortJoinSchema
from quizsvc.http.context import current_context
from quizsvc.http.limits import instructor_rate_limit
from quizsvc.study import cohorts, item_analysis

INSTRUCTOR_SECURITY: list[dict[str, list[str]]] = [{"instructor": []}]

blp = ApiBlueprint("memberships", __name__, url_prefix="/api/memberships",
                   description="The cohorts this learner is in: join, list, leave")
instructor = ApiBlueprint("instructor", __name__, url_prefix="/api/cohorts",
                          description="A cohort's report for its instructor "
                                      "(Authorization: Bearer <instructor token>)")


@blp.route("")
class Memberships(MethodView):
    """This learner's cohorts."""

    @blp.response(200, MembershipSchema(many=True))
    def get(self) -> Any:
        """List the cohorts this learner is in."""
        return cohorts.my_cohorts(current_context())

    @blp.arguments(CohortJoinSchema)
    @blp.response(201, MembershipSchema)
    def post(self, body: dict[str, Any]) -> Any:
        """Join a cohort under a display name; nothing of this learner's records changes."""
        return cohorts.join_cohort(current_context(), body["code"], body["display_name"],
                                   body["share_explanations"])


@blp.route("/<int:cohort_id>")
class Membership(MethodView):
    """This learner's place in one cohort."""

    @blp.response(204)
    def delete(self, cohort_id: int) -> None:
        """Leave a cohort: its instructor no longer sees this learner from now on."""
        cohorts.leave_cohort(current_context(), cohort_id)


def instructor_token() -> str:
    """Return the bearer token the request carries, or refuse it (401)."""
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise Unauthorized(N_("This view needs the cohort's instructor token."),
                           {"headers": {"Authorization": ["Bearer <instructor token>"]}},
                           reason="instructor_token")
    return value.strip()


@instructor.route("/<int:cohort_id>/report")
class Report(MethodView):
    """One cohort's report."""

    decorators: ClassVar[list[Callable[..., Any]]] = [instructor_rate_limit()]

    @instructor.response(200, CohortReportSchema)
    @instructor.doc(security=INSTRUCTOR_SECURITY)
    def get(self, cohort_id: int) -> Any:
        """Read the cohort: per learner (display name) mastery and closed-book accuracy per
        section, due load, last activity; self-assessments only aggregated."""
        return cohorts.cohort_report(current_context(), cohort_id, instructor_token())


@instructor.route("/<int:cohort_id>/gradebook.csv")
class Gradebook(MethodView):
    """One cohort's gradebook."""

    decorators: ClassVar[list[Callable[..., Any]]] = [instructor_rate_limit()]

    @instructor.response(200, {"type": "string"}, content_type="text/csv",
                         description="one row per learner, one column per section")
    @instructor.doc(security=INSTRUCTOR_SECURITY)
    def get(self, cohort_id: int) -> Any:
        """Download the gradebook as CSV."""
        report = cohorts.cohort_report(current_context(), cohort_id, instructor_token())
        return Response(cohorts.gradebook_csv(report), mimetype="text/csv", headers={
            "Content-Disposition": f"attachment; filename=cohort-{cohort_id}-gradebook.csv"})


@instructor.route("/<int:cohort_id>/item-analysis")
class CohortItemAnalysis(MethodView):
    """One cohort's item analysis."""

    decorators: ClassVar[list[Callable[..., Any]]] = [instructor_rate_limit()]

    @instructor.arguments(CohortItemAnalysisQuerySchema, location="query")
    @instructor.response(200, ItemAnalysisSchema)
    @instructor.alt_response(200, schema={"type": "string"}, content_type="text/csv",
                             description="with format=csv one row per question; with "
                             "format=rules-csv one row per rule")
    @instructor.doc(security=INSTRUCTOR_SECURITY)
    def get(self, query: dict[str, Any], cohort_id: int) -> Any:
        """Analyse each question and rule of the cohort's lesson over its members' first
        closed-book answers."""
        report = item_analysis.cohort_item_analysis(current_context(), cohort_id,
                                                    instructor_token())
        if query["format"] == "json":
            return report
        name, text = item_analysis.report_csv(report, query["format"])
        return Response(text, mimetype="text/csv", headers={
            "Content-Disposition": f"attachment; filename=cohort-{cohort_id}-{name}"})
