"""Lessons: list them, read one (which turns this learner's open questions open-book)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import LessonSummarySchema, LessonTextSchema, OpenedBookSchema
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
    @blp.alt_response(409, description="closed-book questions of the lesson are open: "
                      "answer them, or POST .../open-book first (reason questions_open)")
    def get(self, query: dict[str, Any], lesson_id: str) -> Any:
        """Read a lesson (refused while closed-book questions of it are open)."""
        return lessons.read_lesson(current_context(), lesson_id, query["lang"])


@blp.route("/<string:lesson_id>/open-book")
class OpenBook(MethodView):
    """Open the book on a lesson."""

    @blp.response(200, OpenedBookSchema)
    def post(self, lesson_id: str) -> Any:
        """Mark this learner's open questions of the lesson open-book, so it can be read.

        They are still graded but no longer count toward mastery.
        """
        return {"opened_book": lessons.open_the_book(current_context(), lesson_id)}
