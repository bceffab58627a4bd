"""Serve the learner's pages: server-rendered Jinja that works without JavaScript.

Every page is complete HTML and every form posts to a route here, which calls the same service
functions the JSON API calls; ``static/*.js`` then makes the pages interactive through
``fetch()`` against the JSON API. Views stay thin: they parse, call one service function and
render.
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, jsonify, redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.api.identity import current_context
from quizsvc.api.services import catalog, progress, self_assessments, study
from quizsvc.api.services import identity as identity_service
from quizsvc.errors import Invalid, ServiceError
from quizsvc.review.calibration import RATING_LABELS
from quizsvc.web import simulator as sim
from quizsvc.web.forms import FormError, answer_from_form, position_field, vector_field
from quizsvc.web.lesson import example_run, lesson_parts, source_anchors
from quizsvc.web.reasons import REASONS_ZH, reason_in
from quizsvc.web.text import LANGS, UI, field_label, pick_lang, say

bp = Blueprint(
    "web",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/assets",
)

LANG_COOKIE = "lang"
# Blueprints whose pages share this chrome (language, navigation): these views and the
# lesson's reference pages (quizsvc.web.reference).
PAGE_BLUEPRINTS = frozenset({"web", "lesson_pages"})


def current_lang() -> str:
    """Return the page language: ``?lang=`` first, then the ``lang`` cookie, then Chinese."""
    return pick_lang(request.args.get("lang") or request.cookies.get(LANG_COOKIE))


@bp.after_request
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
    if request.blueprint not in PAGE_BLUEPRINTS:
        return {}
    lang = current_lang()
    other = "en" if lang == "zh" else "zh"
    return {
        "lang": lang,
        "t": lambda key: say(key, lang),
        "lang_switch_url": url_with(lang=other),
        "other_lang": other,
        "nav": NAV,
        "reason_table": REASONS_ZH if lang == "zh" else (),
    }


NAV: tuple[tuple[str, str], ...] = (
    ("web.home", "home"),
    ("web.lessons", "lesson"),
    ("web.quiz", "quiz"),
    ("web.review", "review"),
    ("web.flashcards", "flashcards"),
    ("web.simulator", "simulator"),
    ("web.progress_page", "progress"),
    ("web.link", "link"),
)


def see_other(endpoint: str, anchor: str | None = None, **values: Any) -> BaseResponse:
    """Redirect after a successful form post (303, so a reload never posts twice)."""
    return redirect(url_for(endpoint, _anchor=anchor, **values), code=303)


def when(moment: datetime | None) -> str:
    """Format a UTC time for the pages (the service keeps every time in UTC)."""
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else ""


def text_in(value: Any, lang: str) -> str:
    """Return a bank ``Text`` (or a plain string) in ``lang``."""
    if value is None:
        return ""
    getter = getattr(value, "get", None)
    if callable(getter) and hasattr(value, "zh"):
        return str(getter(lang))
    return str(value)


bp.add_app_template_filter(when, "when")


@bp.app_template_filter("text")
def text_filter(value: Any) -> str:
    """Render a bank ``Text`` in the page's language."""
    return text_in(value, current_lang())


@bp.app_template_filter("reason")
def reason_filter(value: Any) -> str:
    """Render a service or form reason in the page's language (see ``web/reasons.py``)."""
    return reason_in(str(value), current_lang())


@bp.errorhandler(ServiceError)
def service_error(error: ServiceError) -> tuple[str, int]:
    """Show a service refusal (not found, conflict, CSRF...) as a page, with its status."""
    return render_template("error.html", error=error), error.status


@bp.get("/")
def home() -> str:
    """Show the starting page with a way into every activity and what is due."""
    return render_template("home.html", due=progress.due_reviews(current_context(), limit=0))


# ---------------------------------------------------------------- lessons


@bp.get("/lessons")
def lessons() -> str:
    """List the lessons."""
    return render_template("lessons.html", lessons=catalog.list_lessons(current_context()))


@bp.get("/lessons/<lesson_id>")
def lesson(lesson_id: str) -> str:
    """Show a lesson in the chosen language with per-section self-assessment.

    Reading the lesson goes through ``catalog.read_lesson``, which marks any question this
    learner has open as open-book: the closed-book rule holds for the page as for the API.
    """
    ctx = current_context()
    lang = current_lang()
    reading = catalog.read_lesson(ctx, lesson_id, lang)
    title = text_in(reading.title, lang)
    ratings = {sa.ref: sa for sa in self_assessments.list_self_assessments(ctx)}
    return render_template(
        "lesson.html",
        reading=reading,
        title=title,
        parts=lesson_parts(reading.text, reading.sections, lang, title),
        anchors=source_anchors(reading.questions),
        ratings=ratings,
        saved=request.args.get("saved"),
        presets={name: urlencode(sim.settings_query(p)) for name, p in sim.PRESETS.items()},
        rating_levels=sorted(RATING_LABELS),
    )


@bp.post("/lessons/<lesson_id>/self-assessment")
def self_assess(lesson_id: str) -> BaseResponse:
    """Save this browser's self-assessment of one lesson section (no-JavaScript form)."""
    ctx = current_context()
    section = request.form.get("ref", "")
    rating_text = request.form.get("rating", "")
    if not rating_text.isdigit():
        raise Invalid("rating", "must be 1 (not yet) .. 4 (solid)", location="form")
    note = request.form.get("note") or None
    self_assessments.put_self_assessment(ctx, section, int(rating_text), note)
    return see_other("web.lesson", anchor=f"sa-{section}", lesson_id=lesson_id, saved=section)


# ---------------------------------------------------------------- studying


def start_page(mode: str, intro: str, title: str) -> str:
    """Show the form that starts a quiz, review or flashcard session, with due counts."""
    ctx = current_context()
    lessons_found = catalog.list_lessons(ctx)
    due = study.start_counts(ctx, mode)  # of the kinds this mode serves
    return render_template("start.html", mode=mode, intro=intro, title=title,
                           lessons=lessons_found, due=due,
                           max_size=int(ctx.config.get("MAX_SESSION_SIZE", 50)))


@bp.get("/quiz")
def quiz() -> str:
    """Start a closed-book quiz."""
    return start_page("quiz", "quiz_intro", "quiz")


@bp.get("/review")
def review() -> str:
    """Start a spaced-repetition review (due first, then new)."""
    return start_page("review", "review_intro", "review")


@bp.get("/flashcards")
def flashcards() -> str:
    """Start a flashcard review (only flashcards, due first): front, reveal, four ratings."""
    return start_page("flashcards", "flashcards_intro", "flashcards")


@bp.post("/study")
def start_session() -> BaseResponse:
    """Start a session from the start form and go to its first question."""
    size_text = request.form.get("size", "")
    if not size_text.strip().isdigit():
        raise Invalid("size", "must be a whole number", location="form")
    started = study.start_session(current_context(), request.form.get("lesson", ""),
                                  request.form.get("mode", ""), int(size_text))
    return see_other("web.session", session_id=started.id)


def option_ids(served: Any) -> list[str]:
    """Return the option ids of a served question's answer shape."""
    return [option.id for option in served.input.options]


def question_page(item: Any, values: dict[str, Any] | None = None,
                  error: tuple[str, str] | None = None, status: int = 200) -> tuple[str, int]:
    """Render the closed-book question page: prompt and inputs, never the answer."""
    return render_template(
        "question.html", item=item, served=item.question, session=item.session,
        values=values or {}, error=error, idempotency_key=secrets.token_urlsafe(18),
        vector_field=vector_field, position_field=position_field,
        option_texts={o.id: text_in(o.text, current_lang()) for o in item.question.input.options},
    ), status


@bp.get("/study/<session_id>")
def session(session_id: str) -> str | tuple[str, int]:
    """Show the session's next question, or its summary once every question is answered."""
    item = study.next_question(current_context(), session_id)
    if item.done:
        return render_template("session_done.html", session=item.session)
    return question_page(item)


@bp.post("/study/<session_id>/answer")
def answer(session_id: str) -> BaseResponse | tuple[str, int]:
    """Grade the posted answer; an answer that cannot be read re-shows the form (422).

    The form carries an idempotency key made when the page was rendered, so posting the
    same form twice (a double click, a reload) is graded once.
    """
    ctx = current_context()
    item = study.next_question(ctx, session_id)
    variant_id = request.form.get("variant_id", "")
    if item.done or item.question is None or item.question.variant_id != variant_id:
        replayed = study.find_by_key(ctx, request.form.get("idempotency_key", ""))
        if replayed is not None:
            return see_other("web.attempt", session_id=session_id, attempt_id=replayed.id)
        return see_other("web.session", session_id=session_id)
    served = item.question
    values = request.form.to_dict(flat=False)
    try:
        given = answer_from_form(served.input.type, served.input.length, option_ids(served),
                                 request.form)
        result = study.submit_attempt(ctx, variant_id, given,
                                      request.form.get("idempotency_key", ""))
    except FormError as error:
        return question_page(item, values, (error.field, error.reason), 422)
    except Invalid as error:
        return question_page(item, values, (error.field, error.reason), 422)
    return see_other("web.attempt", session_id=session_id, attempt_id=result.id)


def attempt_page(session_id: str, attempt_id: int, error: tuple[str, str] | None = None,
                 status: int = 200) -> tuple[str, int]:
    """Render an attempt's result: the reveal only once it has been earned."""
    ctx = current_context()
    result = study.get_attempt(ctx, attempt_id)
    served = study.attempt_question(ctx, attempt_id)
    return render_template(
        "attempt.html", result=result, served=served, session_id=session_id, error=error,
        lesson_url=lesson_url(result.reveal.lesson_link) if result.reveal else None,
        answer_text=answer_text,
    ), status


@bp.get("/study/<session_id>/attempts/<int:attempt_id>")
def attempt(session_id: str, attempt_id: int) -> tuple[str, int]:
    """Show an attempt's result, the explanation form, the reveal or the ratings."""
    return attempt_page(session_id, attempt_id)


@bp.post("/study/<session_id>/attempts/<int:attempt_id>/explanation")
def explain(session_id: str, attempt_id: int) -> BaseResponse | tuple[str, int]:
    """Record why a wrong answer was wrong, which reveals the answer and solution."""
    try:
        study.explain_attempt(current_context(), attempt_id,
                              request.form.get("explanation", ""))
    except Invalid as error:
        return attempt_page(session_id, attempt_id, (error.field, error.reason), 422)
    return see_other("web.attempt", session_id=session_id, attempt_id=attempt_id,
                     anchor="reveal")


@bp.post("/study/<session_id>/attempts/<int:attempt_id>/rating")
def rate(session_id: str, attempt_id: int) -> BaseResponse:
    """Rate the review (Hard/Good/Easy, or four buttons for a card), then go on."""
    study.rate_attempt(current_context(), attempt_id, request.form.get("rating", ""))
    return see_other("web.session", session_id=session_id)


def lesson_url(link: str) -> str:
    """Return the lesson page address a reveal's ``lesson_link`` names (kept as given)."""
    return link or url_for("web.lessons")


def answer_text(value: Any, served: Any) -> str:
    """Show an answer value: option texts for option ids, labels beside vector elements."""
    lang = current_lang()
    options = {o.id: text_in(o.text, lang) for o in served.input.options} if served else {}
    labels = list(served.input.labels) if served else []
    if isinstance(value, list):
        if served and served.input.type == "order":
            return " → ".join(f"{i}. {options.get(str(item), str(item))}"
                              for i, item in enumerate(value, start=1))
        if labels and len(labels) == len(value):
            return " · ".join(f"{label} = {item}" for label, item in zip(labels, value,
                                                                          strict=True))
        return ", ".join(options.get(str(item), str(item)) for item in value)
    if isinstance(value, str) and value in options:
        return options[value]
    return "" if value is None else str(value)


# ---------------------------------------------------------------- progress and linking


@bp.get("/progress")
def progress_page() -> str:
    """Show due today, the 30-day forecast, mastery, accuracy and calibration."""
    ctx = current_context()
    summary = progress.progress_report(ctx)
    due = progress.due_reviews(ctx, limit=0)
    peak = max([day.count for day in due.forecast] + [1])
    titles = {qid: q.title for qid, q in catalog.index(ctx.bank).questions.items()}
    return render_template("progress.html", summary=summary, due=due, peak=peak,
                           mastery=progress.list_mastery(ctx), titles=titles)


@bp.get("/link")
def link() -> str:
    """Show the two halves of linking: make a code here, or enter one from elsewhere."""
    return render_template("link.html", issued=None, linked=False, error=None,
                           shared=identity_service.is_linked(current_context()))


@bp.post("/link/code")
def link_code() -> str:
    """Make a one-time code and show it (only now: the server keeps only its hash)."""
    ctx = current_context()
    issued = identity_service.create_link_code(ctx)
    return render_template("link.html", issued=issued, linked=False, error=None,
                           shared=identity_service.is_linked(ctx))


@bp.post("/link/redeem")
def link_redeem() -> tuple[str, int]:
    """Join this browser to the learner who made the code."""
    ctx = current_context()
    try:
        identity_service.redeem_link_code(ctx, request.form.get("code", ""))
    except Invalid as error:
        return render_template("link.html", issued=None, linked=False,
                               error=(error.field, error.reason), shared=False), 422
    return render_template("link.html", issued=None, linked=True, error=None,
                           shared=True), 200


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
    example_id = form.pop("example", None)  # a lesson's worked example, replayed as written
    errors: dict[str, str] = {}
    result: dict[str, Any] | None = None
    settings = None
    try:
        if example_id is not None:
            result = example_run(current_context().bank, example_id)
        else:
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
