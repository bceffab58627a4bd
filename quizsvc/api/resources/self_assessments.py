"""Self-assessments: this browser's own ratings, kept apart from mastery."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import DeletedSchema, SelfAssessmentSchema
from quizsvc.http.arguments import SelfAssessmentPutSchema
from quizsvc.http.context import current_context
from quizsvc.study import self_assessments as service

blp = ApiBlueprint("self_assessments", __name__, url_prefix="/api/self-assessments",
                   description="This browser's self-assessments (never mastery)")


@blp.route("")
class SelfAssessments(MethodView):
    """All of this browser's self-assessments."""

    @blp.response(200, SelfAssessmentSchema(many=True))
    def get(self) -> Any:
        """List this browser's self-assessments."""
        return service.list_self_assessments(current_context())

    @blp.response(200, DeletedSchema)
    def delete(self) -> Any:
        """Clear all of this browser's self-assessments."""
        return {"deleted": service.clear_self_assessments(current_context())}


@blp.route("/<string:ref>")
class SelfAssessment(MethodView):
    """This browser's rating of one question or lesson section."""

    @blp.response(200, SelfAssessmentSchema)
    def get(self, ref: str) -> Any:
        """Show this browser's rating of a question or section."""
        return service.get_self_assessment(current_context(), ref)

    @blp.arguments(SelfAssessmentPutSchema)
    @blp.response(200, SelfAssessmentSchema)
    @blp.alt_response(201, schema=SelfAssessmentSchema, description="created")
    def put(self, body: dict[str, Any], ref: str) -> Any:
        """Set this browser's rating (1 not yet .. 4 solid) of a question or section."""
        result, created = service.put_self_assessment(current_context(), ref, body["rating"],
                                                      body["note"])
        return result, 201 if created else 200

    @blp.response(204)
    def delete(self, ref: str) -> None:
        """Remove this browser's rating of a question or section."""
        service.delete_self_assessment(current_context(), ref)
