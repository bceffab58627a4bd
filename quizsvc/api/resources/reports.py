"""Report a problem with a question: stored with the variant, read only by the author."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import ReportReceiptSchema
from quizsvc.http.arguments import ReportCreateSchema
from quizsvc.http.context import current_context
from quizsvc.http.limits import report_limit
from quizsvc.study import reports

blp = ApiBlueprint("reports", __name__, url_prefix="/api",
                   description="Report a problem with a question")


@blp.route("/reports")
class Reports(MethodView):
    """Reports of problems with questions."""

    decorators: ClassVar[list[Callable[..., Any]]] = [report_limit()]

    @blp.arguments(ReportCreateSchema)
    @blp.response(201, ReportReceiptSchema)
    def post(self, body: dict[str, Any]) -> Any:
        """Report a problem with the question of a variant served to you (a reason and a
        short text); only the question's author reads it."""
        return reports.report_problem(current_context(), body["variant_id"], body["reason"],
                                      body["text"])
