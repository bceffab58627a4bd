"""The sandbox: a bounded ledger scenario in, its trace out; simulator settings to a scenario."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import marshmallow as ma
from flask import request
from flask.views import MethodView

from quizsvc.api.blueprint import ApiBlueprint
from quizsvc.api.schemas import ScenarioPlanSchema, ScenarioSchema, TraceSchema
from quizsvc.http.arguments import SimulateQuerySchema, StrictSchema
from quizsvc.http.context import current_context
from quizsvc.http.limits import sandbox_limit, sandbox_spending
from quizsvc.study import sandbox, simulator

blp = ApiBlueprint("simulate", __name__, url_prefix="/api",
                   description="Replay a ledger scenario; plan one from simulator settings")

# The simulator's settings, as its page's form fields (``A.state``, ``max_num_seqs``, ...):
# every one optional, parsed and range-checked by ``simulator.parse_settings``. marshmallow
# reads a dot in an attribute name as nesting, so ``A.state`` loads as ``A__state``.
SimulatorSettingsSchema = StrictSchema.from_dict(
    {name.replace(".", "__"): ma.fields.String(data_key=name, metadata={
        "description": "a simulator setting"}) for name in sorted(simulator.known_fields())},
    name="SimulatorSettingsSchema")


@blp.route("/simulate")
class Simulate(MethodView):
    """Replay scenarios."""

    decorators: ClassVar[list[Callable[..., Any]]] = [sandbox_limit()]

    @blp.arguments(SimulateQuerySchema, location="query")
    @blp.arguments(ScenarioSchema)
    @blp.response(200, description="the trace of the scenario (its summary unless "
                  "detail=full)")
    # Documents the trace's shape without dumping it through the schema (which would drop
    # the keys it does not declare): the ledger's trace is returned as it is.
    @blp.alt_response(200, schema=TraceSchema, description="the FORMAT.md trace of the scenario")
    @blp.alt_response(429, description="too many replays from this browser (Retry-After)")
    def post(self, query: dict[str, Any], _body: dict[str, Any]) -> Any:
        """Replay a scenario (at most 16 requests, 200 steps, 4096-token prompts, 0.25 s CPU).

        Returns what each step scheduled and who finished; ``detail=full`` adds every
        request's counters before and after each phase. Makes this learner's open
        closed-book questions open-book.
        """
        with sandbox_spending() as spent:
            return sandbox.simulate(current_context(), request.get_json(), query["detail"],
                                    spent)


@blp.route("/simulator/plan")
class SimulatorPlan(MethodView):
    """The scenario behind simulator settings."""

    @blp.arguments(SimulatorSettingsSchema, location="query")
    @blp.response(200, ScenarioPlanSchema)
    def get(self, query: dict[str, str]) -> Any:
        """Build the scenario (warm-up steps included) that reaches the simulator's settings."""
        return sandbox.plan({name.replace("__", "."): value for name, value in query.items()}
                            ).to_dict()
