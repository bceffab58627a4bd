"""A lesson as an Anki package: flashcards, glossary, concept checks, worked examples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from flask import Response
from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.http.arguments import AnkiQuerySchema
from quizsvc.http.context import current_context
from quizsvc.http.limits import anki_limit
from quizsvc.study import anki_export

blp = ApiBlueprint("anki", __name__, url_prefix="/api/lessons",
                   description="Lessons as Anki packages (study in Anki never becomes mastery)")
APKG = "application/apkg"


@blp.route("/<string:lesson_id>/anki.apkg")
class AnkiPackage(MethodView):
    """One lesson's Anki package."""

    decorators: ClassVar[list[Callable[..., Any]]] = [anki_limit()]

    @blp.arguments(AnkiQuerySchema, location="query")
    @blp.response(200, {"type": "string", "format": "binary"}, content_type=APKG,
                  description="the .apkg file; importing a newer one updates its notes")
    def get(self, query: dict[str, Any], lesson_id: str) -> Any:
        """Download the lesson's deck; its answers open the book on open questions."""
        package = anki_export.lesson_package(current_context(), lesson_id, query["lang"])
        return Response(package.data, mimetype=APKG, headers={
            "Content-Disposition": f"attachment; filename={package.filename}"})
