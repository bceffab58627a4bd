"""The sandbox: a bounded ledger scenario in, its trace out."""

from __future__ import annotations

from typing import Any

from flask import current_app, request
from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import ScenarioSchema, TraceSchema
from quizsvc.api.services import sandbox

blp = ApiBlueprint("simulate", __name__, url_prefix="/api",
                   description="Replay a ledger scenario")


@blp.route("/simulate")
class Simulate(MethodView):
    """Replay scenarios."""

    @blp.arguments(ScenarioSchema)
    @blp.response(200, description="the FORMAT.md trace of the scenario")
    # Documents the trace's shape without dumping it through the schema (which would drop
    # the keys it does not declare): the ledger's trace is returned as it is.
    @blp.alt_response(200, schema=TraceSchema, description="the FORMAT.md trace of the scenario")
    def post(self, _body: dict[str, Any]) -> Any:
        """Replay a scenario (at most 16 requests, 200 steps, 4096-token prompts)."""
        return sandbox.simulate(request.get_json(), current_app.config)
