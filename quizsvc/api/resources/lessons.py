"""Lessons: list them, read one (which turns this learner's open questions open-book)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import LessonSummarySchema, LessonTextSchema
from quizsvc.http.arguments import LanguageQuerySchema
from quizsvc.http.context import current_context
from quizsvc.study import lessons

blp = ApiBlueprint("lessons", __name__, url_prefix="/api/lessons", description="Lessons")


@blp.route("")
class Lessons(MethodView):
    """The bank's lessons."""

    @blp.response(200, LessonSummarySchema(many=True))
    def get(self) -> Any:
        """List lessons with their sections and question counts."""
        return lessons.list_lessons(current_context())


@blp.route("/<string:lesson_id>")
class LessonText(MethodView):
    """One lesson's text."""

    @blp.arguments(LanguageQuerySchema, location="query")
    @blp.response(200, LessonTextSchema)
    def get(self, query: dict[str, Any], lesson_id: str) -> Any:
        """Read a lesson; questions open while reading it become open-book (no mastery)."""
        return lessons.read_lesson(current_context(), lesson_id, query["lang"])
