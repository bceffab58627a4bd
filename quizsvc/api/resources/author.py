"""Author-only views behind ``AUTHOR_TOKEN``: whole variants and the bank's contents.

With no token configured these routes answer 404 as if they did not exist.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, ClassVar

from flask import Response
from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import ItemAnalysisSchema
from quizsvc.http.arguments import ItemAnalysisQuerySchema, PreviewQuerySchema
from quizsvc.http.author import require_bearer
from quizsvc.http.context import author_context
from quizsvc.http.limits import author_rate_limit
from quizsvc.runtime import runtime
from quizsvc.study import author, item_analysis

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
        report = item_analysis.item_analysis_report(author_context(), query["lesson"])
        if query["format"] == "json":
            return report
        name, text = item_analysis.report_csv(report, query["format"])
        return Response(text, mimetype="text/csv",
                        headers={"Content-Disposition": f"attachment; filename={name}"})
