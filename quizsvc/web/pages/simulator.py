"""Serve the simulator ("change the variables"): its form and the steps its settings replay.

A GET form, so the URL of a run is shareable and the no-JavaScript page needs no CSRF token;
``static/simulator.js`` redraws the same page from ``GET /api/simulator/plan`` and
``POST /api/simulate``. ``quizsvc.web.simulator`` turns a replayed trace into what it draws.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from flask import render_template, request

from quizsvc.errors import Invalid
from quizsvc.http.context import current_context
from quizsvc.http.language import message
from quizsvc.http.limits import sandbox_limit, sandbox_spending
from quizsvc.study import lessons as reading
from quizsvc.study import sandbox
from quizsvc.study import simulator as plans
from quizsvc.web import labels
from quizsvc.web import simulator as sim
from quizsvc.web.pages.chrome import bp
from quizsvc.web.pages.open_book import open_book_page


def form_values(form: dict[str, str]) -> dict[str, str]:
    """Return the values the simulator form shows: the defaults overlaid by what was sent."""
    values = plans.settings_query(plans.DEFAULT_SETTINGS)
    values.update({k: v for k, v in form.items() if k in values})
    return values


@bp.get("/simulator")
@sandbox_limit()
def simulator() -> tuple[str, int]:
    """Show the simulator: its form, and the replayed steps for the settings in the query."""
    ctx = current_context()
    gate = reading.closed_book(ctx, None)
    if gate.open:  # the sandbox replays any numeric question: ask first
        return open_book_page(None, gate, "simulator"), 200
    form = {k: v for k, v in request.args.to_dict(flat=True).items() if k != "lang"}
    example_id = form.pop("example", None)  # a lesson's worked example, replayed as written
    errors: dict[str, str] = {}
    result: dict[str, Any] | None = None
    settings = None
    try:
        with sandbox_spending() as spent:
            if example_id is not None:
                run = sandbox.run_example(ctx, example_id, spent)
            else:
                settings = plans.parse_settings(form)
                run = sandbox.run_settings(ctx, settings, spent)
        steps = sim.step_views(run.trace, run.plan)
        result = {"plan": run.plan, "steps": steps, "negative_gaps": sim.negative_gaps(steps),
                  "mismatches": run.mismatches, "example": run.example}
    except Invalid as error:
        errors[error.field] = message(error.template, error.params)
    return render_template(
        "simulator.html",
        values=form_values(form),
        errors=errors,
        result=result,
        settings=settings,
        presets=[
            (name, plans.PRESET_TITLES[name], urlencode(plans.settings_query(preset)))
            for name, preset in plans.PRESETS.items()
        ],
        field_label=labels.field_label,
        limits={**plans.GLOBAL_LIMITS, **plans.REQUEST_LIMITS},
        slider_max=plans.SLIDER_MAX,
        request_ids=plans.REQUEST_IDS,
        method_options=[(m, m) for m in plans.SPEC_METHODS],
        scenario_json=json.dumps(result["plan"].scenario, indent=1) if result else "",
        ui={key: str(word) for key, word in labels.SIMULATOR_SCRIPT.items()},
    ), (422 if errors else 200)
