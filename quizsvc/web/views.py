"""Serve the learner's pages: server-rendered Jinja that works without JavaScript.

Every page is complete HTML and every form posts to a route here, which calls the same service
functions the JSON API calls; ``static/*.js`` then makes the pages interactive through
``fetch()`` against the JSON API. Views stay thin: they parse, call one service function and
render.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, jsonify, render_template, request

from quizsvc.web import simulator as sim
from quizsvc.web.text import LANGS, UI, field_label, pick_lang, say

bp = Blueprint(
    "web",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/assets",
)

LANG_COOKIE = "lang"


def current_lang() -> str:
    """Return the page language: ``?lang=`` first, then the ``lang`` cookie, then Chinese."""
    return pick_lang(request.args.get("lang") or request.cookies.get(LANG_COOKIE))


@bp.after_app_request
def remember_lang(response: Response) -> Response:
    """Keep an explicit ``?lang=`` choice in a cookie so the next page opens in it."""
    chosen = request.args.get("lang")
    if chosen in LANGS and chosen != request.cookies.get(LANG_COOKIE):
        response.set_cookie(LANG_COOKIE, chosen, max_age=365 * 24 * 3600, samesite="Lax",
                            httponly=True)
    return response


def url_with(**changes: str | None) -> str:
    """Return the current URL with some query fields changed (``None`` removes one)."""
    args = request.args.to_dict(flat=True)
    for key, value in changes.items():
        if value is None:
            args.pop(key, None)
        else:
            args[key] = value
    query = urlencode(args)
    return request.path + (f"?{query}" if query else "")


@bp.app_context_processor
def page_globals() -> dict[str, Any]:
    """Give every template its language, the text helper and the navigation."""
    if request.blueprint != "web":
        return {}
    lang = current_lang()
    other = "en" if lang == "zh" else "zh"
    return {
        "lang": lang,
        "t": lambda key: say(key, lang),
        "lang_switch_url": url_with(lang=other),
        "other_lang": other,
        "nav": NAV,
    }


NAV: tuple[tuple[str, str], ...] = (
    ("web.home", "home"),
    ("web.simulator", "simulator"),
)


@bp.get("/")
def home() -> str:
    """Show the starting page with a way into every activity."""
    return render_template("home.html")


def _form_values(form: dict[str, str]) -> dict[str, str]:
    """Return the values the simulator form shows: the defaults overlaid by what was sent."""
    values = sim.settings_query(sim.DEFAULT_SETTINGS)
    values.update({k: v for k, v in form.items() if k in values})
    return values


def run_simulation(settings: sim.SimulatorSettings) -> dict[str, Any]:
    """Plan and replay one simulator run through the ledger, for the no-JavaScript page.

    Returns the plan, its step views and any mismatch; a scenario the ledger rejects or a
    configuration on which vLLM itself crashes becomes an error naming the field.
    """
    from quizsvc.ledger import ScenarioError, SchedulerCrash, replay

    plan = sim.plan_scenario(settings)
    try:
        trace = replay(plan.scenario)
    except ScenarioError as error:
        raise sim.SettingsError(str(getattr(error, "field", "scenario")),
                                str(getattr(error, "reason", error))) from error
    except SchedulerCrash as error:
        raise sim.SettingsError(
            "long_prefill_token_threshold",
            f"vLLM 0.33.0's scheduler itself fails on this configuration: {error}",
        ) from error
    mismatches = (
        sim.reached_mismatches(trace, plan) if settings.scheduling == "sync" else []
    )
    return {"plan": plan, "steps": sim.step_views(trace, plan), "mismatches": mismatches}


@bp.get("/simulator")
def simulator() -> tuple[str, int]:
    """Show the simulator: its form, and the replayed steps for the settings in the query.

    A GET form, because running the simulator changes nothing on the server: the URL of a
    run is shareable and the no-JavaScript page needs no CSRF token.
    """
    form = {k: v for k, v in request.args.to_dict(flat=True).items() if k != "lang"}
    errors: dict[str, str] = {}
    result: dict[str, Any] | None = None
    settings = None
    try:
        settings = sim.parse_settings(form)
        result = run_simulation(settings)
    except sim.SettingsError as error:
        errors[error.field] = error.reason
    return render_template(
        "simulator.html",
        values=_form_values(form),
        errors=errors,
        result=result,
        settings=settings,
        presets=[
            (name, sim.PRESET_TITLES[name], urlencode(sim.settings_query(preset)))
            for name, preset in sim.PRESETS.items()
        ],
        field_label=lambda name: field_label(name, current_lang()),
        limits={**sim.GLOBAL_LIMITS, **sim.REQUEST_LIMITS},
        slider_max=sim.SLIDER_MAX,
        request_ids=sim.REQUEST_IDS,
        method_options=[(m, m) for m in sim.SPEC_METHODS],
        scenario_json=json.dumps(result["plan"].scenario, indent=1) if result else "",
        ui={k: say(k, current_lang()) for k in UI},
    ), (422 if errors else 200)


@bp.get("/simulator/plan")
def simulator_plan() -> tuple[Response, int]:
    """Return the scenario (warm-up steps included) for simulator settings, as JSON.

    The page's script posts this scenario to ``POST /api/simulate``, so the warm-up is built in
    one place only. Errors use the service's envelope with the field under ``errors.query``.
    """
    form = request.args.to_dict(flat=True)
    form.pop("lang", None)
    try:
        settings = sim.parse_settings(form)
        plan = sim.plan_scenario(settings)
    except sim.SettingsError as error:
        return jsonify({
            "code": "validation_error",
            "status": 422,
            "message": f"{error.field}: {error.reason}",
            "errors": {"query": {error.field: [error.reason]}},
        }), 422
    body = plan.to_dict()
    body["check_reached"] = settings.scheduling == "sync"
    return jsonify(body), 200


def field_id(name: str) -> str:
    """Return the HTML id of a simulator field (ids avoid the dots of ``A.num_tokens``)."""
    return "f-" + name.replace(".", "-")


bp.add_app_template_global(field_id, "field_id")
