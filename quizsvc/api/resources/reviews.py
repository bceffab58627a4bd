"""Read-only views: the due queue with its forecast, mastery records, and progress."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import (
    DueReportSchema,
    MasteryRecordSchema,
    ProgressSchema,
    ReviewStatisticsSchema,
    SectionReportSchema,
)
from quizsvc.http.arguments import DueQuerySchema, LessonQuerySchema
from quizsvc.http.context import current_context
from quizsvc.study import progress, statistics

blp = ApiBlueprint("reviews", __name__, url_prefix="/api",
                   description="Due reviews, mastery and progress")


@blp.route("/reviews/due")
class DueReviews(MethodView):
    """The due queue."""

    @blp.arguments(DueQuerySchema, location="query")
    @blp.response(200, DueReportSchema)
    def get(self, query: dict[str, Any]) -> Any:
        """Count due and new cards, list the most overdue, forecast the next 30 days."""
        return progress.due_reviews(current_context(), query.get("lesson"), query["limit"])


@blp.route("/mastery")
class MasteryRecords(MethodView):
    """Mastery records (written only by the mastery policy)."""

    @blp.arguments(LessonQuerySchema, location="query")
    @blp.response(200, MasteryRecordSchema(many=True))
    def get(self, query: dict[str, Any]) -> Any:
        """List this learner's mastery records."""
        return progress.list_mastery(current_context(), query.get("lesson"))


@blp.route("/progress")
class Progress(MethodView):
    """The dashboard."""

    @blp.arguments(LessonQuerySchema, location="query")
    @blp.response(200, ProgressSchema)
    def get(self, query: dict[str, Any]) -> Any:
        """Report due, mastered, accuracy and calibration (computed on read)."""
        return progress.progress_report(current_context(), query.get("lesson"))


@blp.route("/progress/sections")
class SectionProgress(MethodView):
    """Progress by lesson section."""

    @blp.arguments(LessonQuerySchema, location="query")
    @blp.response(200, SectionReportSchema)
    def get(self, query: dict[str, Any]) -> Any:
        """Report mastery and closed-book accuracy per section, the questions answered wrong
        most often with where their rules are taught, and accuracy day by day (30 days)."""
        return progress.section_report(current_context(), query.get("lesson"))


@blp.route("/progress/statistics")
class Statistics(MethodView):
    """The review statistics the progress page draws."""

    @blp.response(200, ReviewStatisticsSchema)
    def get(self) -> Any:
        """Count reviews per UTC day (30 days) and retention per week (8 weeks: reviews of
        learned cards not rated Again), with the learner's desired retention."""
        return statistics.review_statistics(current_context())
