"""The card browser: a lesson's items with this learner's states, one item's history, and
suspending or burying an item (Anki's Browse)."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import HoldSchema, ItemHistorySchema, ItemPageSchema
from quizsvc.http.arguments import BrowseQuerySchema, BurialSchema, SuspensionSchema
from quizsvc.http.context import current_context
from quizsvc.study import browse, holds

blp = ApiBlueprint("items", __name__, url_prefix="/api",
                   description="The card browser: search items, their history, suspend, bury")


@blp.route("/lessons/<string:lesson_id>/items")
class LessonItems(MethodView):
    """A lesson's flashcards and questions."""

    @blp.arguments(BrowseQuerySchema, location="query")
    @blp.response(200, ItemPageSchema)
    def get(self, query: dict[str, Any], lesson_id: str) -> Any:
        """Search a lesson's items; each with its state, mastery and latest answers."""
        return browse.browse(current_context(), lesson_id, query["q"], query["page"])


@blp.route("/items/<string:question_id>/history")
class ItemHistory(MethodView):
    """One item's history."""

    @blp.response(200, ItemHistorySchema)
    def get(self, question_id: str) -> Any:
        """List this learner's attempts at an item with dates, results and ratings (never an
        answer: only what each attempt's page shows)."""
        return browse.item_history(current_context(), question_id)


@blp.route("/items/<string:question_id>/suspension")
class Suspension(MethodView):
    """Suspend an item."""

    @blp.arguments(SuspensionSchema)
    @blp.response(200, HoldSchema)
    def put(self, body: dict[str, Any], question_id: str) -> Any:
        """Suspend an item (never served, in no due count, until unsuspended) or unsuspend it."""
        return holds.suspend(current_context(), question_id, body["suspended"])


@blp.route("/items/<string:question_id>/bury")
class Burial(MethodView):
    """Bury an item until tomorrow."""

    @blp.arguments(BurialSchema)
    @blp.response(200, HoldSchema)
    def put(self, body: dict[str, Any], question_id: str) -> Any:
        """Bury an item until the next day starts (UTC), or unbury it now."""
        return holds.bury(current_context(), question_id, body["buried"])
