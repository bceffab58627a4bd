"""The learner's scheduling settings: read them, and choose the desired retention."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import SchedulingSchema
from quizsvc.http.arguments import DesiredRetentionSchema
from quizsvc.http.context import current_context
from quizsvc.http.limits import retention_limit
from quizsvc.study import scheduling_settings

blp = ApiBlueprint("scheduling", __name__, url_prefix="/api",
                   description="FSRS parameters in force and the learner's desired retention")


@blp.route("/scheduling")
class Scheduling(MethodView):
    """This learner's scheduling settings."""

    decorators: ClassVar[list[Callable[..., Any]]] = [retention_limit()]

    @blp.response(200, SchedulingSchema)
    def get(self) -> Any:
        """Show the desired retention and, per lesson, the FSRS parameters in force."""
        return scheduling_settings.scheduling_view(current_context())

    @blp.arguments(DesiredRetentionSchema)
    @blp.response(200, SchedulingSchema)
    def put(self, body: dict[str, Any]) -> Any:
        """Set the desired retention (0.70-0.97); the cards are rescheduled by it at once."""
        return scheduling_settings.set_desired_retention(current_context(),
                                                         body["desired_retention"])
