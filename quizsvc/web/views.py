"""Serve the learner's pages: server-rendered Jinja that works without JavaScript.

Every page is complete HTML and every form posts to a route here, which calls the same service
functions the JSON API calls; ``static/*.js`` then makes the pages interactive through
``fetch()`` against the JSON API. Views stay thin: they parse, call one service function and
render.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

from flask import Blueprint, Response, g, redirect, render_template, request, url_for
from flask_babel import gettext
from werkzeug.exceptions import NotFound as HTTPNotFound
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.bank.anki import LANG_MODES
from quizsvc.bank.catalog import ModelStep
from quizsvc.bank.kinds import KINDS
from quizsvc.bank.kinds.form import position_field, vector_field
from quizsvc.errors import Conflict, Invalid, ServiceError
from quizsvc.http.arguments import (
    AnswerFormSchema,
    DesiredRetentionFormSchema,
    ExplanationSchema,
    LinkRequestSchema,
    OpenBookFormSchema,
    RatingSchema,
    SelfAssessmentFormSchema,
    SessionFormSchema,
    SimulatorOpenBookFormSchema,
)
from quizsvc.http.context import current_context
from quizsvc.http.errors import handle_http_exception, status_of
from quizsvc.http.language import (
    LANG_COOKIE,
    LANGS,
    current_lang,
    interval_text,
    message,
)
from quizsvc.http.limits import link_redeem_limit, sandbox_limit, sandbox_spending
from quizsvc.http.metrics import answer_graded
from quizsvc.http.parsing import form_parser
from quizsvc.review import calibration
from quizsvc.review.mastery import FRESH_REVEAL
from quizsvc.review.ratings import SelfRating
from quizsvc.study import (
    anki_export,
    answering,
    linking,
    progress,
    reviews,
    sandbox,
    scheduling_settings,
    self_assessments,
    serving,
    sessions,
)
from quizsvc.study import attempt_page as attempt_pages
from quizsvc.study import lessons as reading
from quizsvc.study import simulator as plans
from quizsvc.study.limits import MAX_LINK_CODE
from quizsvc.web import labels
from quizsvc.web import simulator as sim
from quizsvc.web.forms import answer_from_form
from quizsvc.web.lesson import lesson_parts, source_anchors

bp = Blueprint(
    "web",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/assets",
)

# Blueprints whose pages share this chrome (language, navigation): these views and the
# lesson's reference pages (quizsvc.web.reference).
PAGE_BLUEPRINTS = frozenset({"web", "lesson_pages"})


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
    """Give every template its language, the vocabularies and the navigation."""
    if request.blueprint not in PAGE_BLUEPRINTS and not g.get("page_error"):
        return {}
    lang = current_lang()
    other = "en" if lang == "zh" else "zh"
    return {
        "lang": lang,
        "labels": labels,
        "lang_switch_url": url_with(lang=other),
        "other_lang": other,
        "nav": labels.NAV,
        "max_code_length": MAX_LINK_CODE,  # the link form's field takes no more
        # an answer this soon after a reveal is practice (review.mastery.FRESH_REVEAL)
        "fresh_reveal_hours": int(FRESH_REVEAL.total_seconds() // 3600),
    }


def see_other(endpoint: str, anchor: str | None = None, **values: Any) -> BaseResponse:
    """Redirect after a successful form post (303, so a reload never posts twice)."""
    return redirect(url_for(endpoint, _anchor=anchor, **values), code=303)


def parse_form(schema: Any) -> dict[str, Any]:
    """Parse the posted form with an API schema (``Invalid`` names a refused field)."""
    parsed: dict[str, Any] = form_parser.parse(schema, location="form")
    return parsed


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


@bp.app_template_filter("grouped")
def grouped(code: str, size: int = 4) -> str:
    """Show a link code in groups of four for reading aloud (``6LFU-F59G-QZKL``); the dashes
    are dropped again when it is entered."""
    return "-".join(code[i:i + size] for i in range(0, len(code), size))


@bp.app_template_filter("text")
def text_filter(value: Any) -> str:
    """Render a bank ``Text`` in the page's language."""
    return text_in(value, current_lang())


def said(error: ServiceError) -> tuple[str, str]:
    """Return a refusal as the page says it: the field it names ("" for none) and why, in
    the page's language, from its template and params through the catalog."""
    return getattr(error, "field", ""), message(error.template, error.params)


@bp.errorhandler(ServiceError)
def service_error(error: ServiceError) -> tuple[str, int]:
    """Show a service refusal (not found, conflict, CSRF, a form the schema refused...) as a
    page, with its status."""
    return render_template("error.html", refusal=said(error)), status_of(error)


# Paths that are the JSON API's (or the probes'): an unknown one answers in the envelope.
API_PATHS = ("/api/", "/healthz", "/readyz")


@bp.app_errorhandler(HTTPNotFound)
def not_found(error: HTTPNotFound) -> Any:
    """Answer an unknown page URL with a page (title, language, navigation), and an unknown
    API URL with the JSON envelope as before."""
    wants_json = request.accept_mimetypes.best == "application/json"
    if request.path.startswith(API_PATHS) or wants_json:
        return handle_http_exception(error)
    g.page_error = True
    return render_template("not_found.html"), 404


@bp.get("/")
def home() -> str:
    """Show the starting page with a way into every activity and what is due."""
    ctx = current_context()
    counts = {mode: sessions.start_counts(ctx, mode) for mode in sessions.MODES}
    return render_template("home.html", counts=counts, lessons=reading.list_lessons(ctx))


# ---------------------------------------------------------------- lessons


@bp.get("/lessons")
def lessons() -> str:
    """List the lessons."""
    return render_template("lessons.html", lessons=reading.list_lessons(current_context()))


@bp.get("/lessons/<lesson_id>")
def lesson(lesson_id: str) -> str:
    """Show a lesson in the chosen language with per-section self-assessment.

    While closed-book questions of the lesson are open, the page asks first (a form that
    opens the book) and shows none of the text: the closed-book rule holds for the page as
    for the API, and a link from another site changes nothing.
    """
    ctx = current_context()
    lang = current_lang()
    gate = reading.closed_book(ctx, lesson_id)
    if gate.open:
        return open_book_page(lesson_id, gate, "lesson")
    text = reading.read_lesson(ctx, lesson_id, lang)
    title = text_in(text.title, lang)
    ratings = {sa.ref: sa for sa in self_assessments.list_self_assessments(ctx)}
    return render_template(
        "lesson.html",
        reading=text,
        title=title,
        parts=lesson_parts(text.text, text.sections, lang, title),
        anchors=source_anchors(text.questions),
        ratings=ratings,
        saved=request.args.get("saved"),
        presets={name: urlencode(plans.settings_query(p)) for name, p in plans.PRESETS.items()},
        rating_levels=list(SelfRating),
    )


OPEN_BOOK_PAGES = {"lesson": "web.lesson", "anki": "web.anki",
                   "reference": "lesson_pages.reference", "glossary": "lesson_pages.glossary"}


def open_book_page(lesson_id: str | None, gate: reading.ClosedBook, then: str) -> str:
    """Ask before a page that would open the book on the learner's closed-book questions."""
    ctx = current_context()
    title = ctx.index.lesson(lesson_id).title if lesson_id else None
    return render_template("open_book.html", lesson_id=lesson_id, lesson_title=title,
                           gate=gate, then=then, settings=request.query_string.decode())


@bp.post("/lessons/<lesson_id>/open-book")
def open_lesson_book(lesson_id: str) -> BaseResponse:
    """Open the book on the lesson's open questions (the learner chose to), then go on."""
    form = parse_form(OpenBookFormSchema())
    reading.open_the_book(current_context(), lesson_id)
    return see_other(OPEN_BOOK_PAGES[form["then"]], lesson_id=lesson_id)


@bp.post("/simulator/open-book")
def open_simulator_book() -> BaseResponse:
    """Open the book on every open question (the sandbox replays any), then run the settings."""
    form = parse_form(SimulatorOpenBookFormSchema())
    reading.open_the_book(current_context(), None)
    settings = urlencode(parse_qsl(form["settings"], keep_blank_values=True))
    return redirect(url_for("web.simulator") + (f"?{settings}" if settings else ""), code=303)


@bp.post("/lessons/<lesson_id>/self-assessment")
def self_assess(lesson_id: str) -> BaseResponse:
    """Save this browser's self-assessment of one lesson section (no-JavaScript form)."""
    ctx = current_context()
    form = parse_form(SelfAssessmentFormSchema())
    self_assessments.put_self_assessment(ctx, form["ref"], form["rating"], form["note"])
    return see_other("web.lesson", anchor=f"sa-{form['ref']}", lesson_id=lesson_id,
                     saved=form["ref"])


# ---------------------------------------------------------------- studying


def start_page(mode: sessions.Mode) -> str:
    """Show the form that starts a quiz, review or flashcard session, with due counts."""
    ctx = current_context()
    lessons_found = reading.list_lessons(ctx)
    due = sessions.start_counts(ctx, mode)  # of the kinds this mode serves
    return render_template("start.html", mode=mode,
                           lessons=lessons_found, due=due,
                           max_size=ctx.limits.max_session_size)


@bp.get("/quiz")
def quiz() -> str:
    """Start a closed-book quiz."""
    return start_page("quiz")


@bp.get("/review")
def review() -> str:
    """Start a spaced-repetition review (due first, then new)."""
    return start_page("review")


@bp.get("/flashcards")
def flashcards() -> str:
    """Start a flashcard review (only flashcards, due first): front, reveal, four ratings."""
    return start_page("flashcards")


@bp.post("/study")
def start_session() -> BaseResponse:
    """Start a session from the start form and go to its first question."""
    form = parse_form(SessionFormSchema())
    started = sessions.start_session(current_context(), form["lesson"], form["mode"],
                                     form["size"], form["retry_of"])
    return see_other("web.session", session_id=started.id)


@dataclass(frozen=True)
class AnswerProblem:
    """Why an answer could not be read, placed where the learner typed it: the form field
    (``box``), its label as the page shows it, and the reason in the page's language."""

    box: str
    label: str
    message: str


def answer_problem(served: Any, field: str, template: str, reason: str | None,
                   params: dict[str, Any] | None) -> AnswerProblem:
    """Place a refused answer's reason under the box it concerns.

    A vector's element (``params["element"]``) is its box; an order question's position
    field its select; anything else the answer as a whole (its first box). The page says
    the reason in the learner's words when ``labels.ANSWER_REASONS`` has its stable word,
    else the service's own template, both through the catalog.
    """
    params = params or {}
    boxes = list(served.input.labels)
    element = params.get("element")
    if served.input.type == "vector" and isinstance(element, int) and 1 <= element <= len(
            boxes or range(served.input.length or 0)):
        box = vector_field(element - 1)
        label = boxes[element - 1] if boxes else str(element)
    elif field.startswith("position."):
        box = field
        option = next((o for o in served.input.options if position_field(o.id) == field), None)
        label = text_in(option.text, current_lang()) if option else field
    else:
        box = "answer"
        label = gettext("Your answer")
    words = labels.ANSWER_REASONS.get(reason or "")
    said_here = str(words) % params if words is not None else message(template, params)
    return AnswerProblem(box, label, said_here)


def question_page(item: Any, values: dict[str, Any] | None = None,
                  error: AnswerProblem | None = None, status: int = 200) -> tuple[str, int]:
    """Render the closed-book question page: prompt and inputs, never the answer."""
    notice = request.args.get("notice")
    return render_template(
        "question.html", item=item, served=item.question, session=item.session,
        rated=last_rated(),
        values=values or {}, error=error, idempotency_key=secrets.token_urlsafe(18),
        notice=notice if notice in NOTICES else None,
        answer_template=KINDS[item.question.kind].template,
        vector_field=vector_field, position_field=position_field,
    ), status


NOTICES = frozenset({"answered_elsewhere"})  # ?notice= words a question page may show


def last_rated() -> int | None:
    """Return the attempt just rated (``?rated=``), whose rating the page offers to undo."""
    rated = request.args.get("rated", "")
    return int(rated) if rated.isdigit() and len(rated) < 10 else None


@bp.get("/study/<session_id>")
def session(session_id: str) -> str | tuple[str, int]:
    """Show the session's next question, or its summary once every question is answered."""
    ctx = current_context()
    item = serving.next_question(ctx, session_id)
    if item.done:
        return render_template("session_done.html",
                               summary=sessions.session_summary(ctx, session_id),
                               rated=last_rated())
    return question_page(item)


@bp.post("/study/<session_id>/answer")
def answer(session_id: str) -> BaseResponse | tuple[str, int]:
    """Grade the posted answer; an answer that cannot be read re-shows the form (422).

    The form carries an idempotency key made when the page was rendered, so posting the
    same form twice (a double click, a reload) is graded once.
    """
    ctx = current_context()
    form = parse_form(AnswerFormSchema())
    item = serving.next_question(ctx, session_id)
    if item.done or item.question is None or item.question.variant_id != form["variant_id"]:
        answered = answering.attempt_by_key(ctx, form["idempotency_key"])
        if answered is not None:  # posted twice: go on to the first post's result
            return see_other("web.attempt", session_id=session_id, attempt_id=answered)
        # A stale tab: the question was answered elsewhere. Say so over the next one.
        return see_other("web.session", session_id=session_id, notice="answered_elsewhere")
    served = item.question
    values = request.form.to_dict(flat=False)
    try:
        given = answer_from_form(served.kind, served.input, values)
        result = answering.submit(ctx, form["variant_id"], given, form["idempotency_key"])
        if result.graded and not result.replayed:
            answer_graded(bool(result.correct))
    except Invalid as error:
        problem = answer_problem(served, error.field, error.template, error.reason,
                                 error.params)
        return question_page(item, values, problem, 422)
    return see_other("web.attempt", session_id=session_id, attempt_id=result.id)


def attempt_page(session_id: str, attempt_id: int, error: tuple[str, str] | None = None,
                 status: int = 200) -> tuple[str, int]:
    """Render an attempt's result: the reveal only once it has been earned."""
    page = attempt_pages.attempt_page(current_context(), attempt_id, current_lang())
    result = page.result
    return render_template(
        "attempt.html", result=result, served=page.question, session_id=session_id,
        error=error,
        intervals={name: interval_text(delta) for name, delta in page.intervals.items()},
        lesson_url=lesson_url(result.reveal.lesson_link) if result.reveal else None,
        answer_text=answer_text, compare_rows=compare_rows,
        model_step=page.model_step, model_cells=model_cells,
    ), status


@bp.get("/study/<session_id>/attempts/<int:attempt_id>")
def attempt(session_id: str, attempt_id: int) -> tuple[str, int]:
    """Show an attempt's result, the explanation form, the reveal or the ratings."""
    return attempt_page(session_id, attempt_id)


@bp.post("/study/<session_id>/attempts/<int:attempt_id>/explanation")
def explain(session_id: str, attempt_id: int) -> BaseResponse | tuple[str, int]:
    """Record why a wrong answer was wrong, which reveals the answer and solution."""
    try:
        form = parse_form(ExplanationSchema())
        answering.explain_attempt(current_context(), attempt_id, form["explanation"])
    except Invalid as error:
        return attempt_page(session_id, attempt_id, said(error), 422)
    return see_other("web.attempt", session_id=session_id, attempt_id=attempt_id,
                     anchor="reveal")


@bp.post("/study/<session_id>/attempts/<int:attempt_id>/rating")
def rate(session_id: str, attempt_id: int) -> BaseResponse:
    """Rate the review (Hard/Good/Easy, or four buttons for a card), then go on."""
    form = parse_form(RatingSchema())
    reviews.rate_attempt(current_context(), attempt_id, form["rating"])
    return see_other("web.session", session_id=session_id, rated=attempt_id)


@bp.post("/study/<session_id>/attempts/<int:attempt_id>/rating/undo")
def undo_rating(session_id: str, attempt_id: int) -> BaseResponse:
    """Take the last rating back and show the attempt with its rating buttons again."""
    reviews.undo_rating(current_context(), attempt_id)
    return see_other("web.attempt", session_id=session_id, attempt_id=attempt_id)


def lesson_url(link: str) -> str:
    """Return the lesson page address a reveal's ``lesson_link`` names (kept as given)."""
    return link or url_for("web.lessons")


def compare_rows(yours: Any, real: Any, served: Any) -> list[tuple[str, Any, Any]]:
    """Pair a numeric answer with the scheduler's, element by element, under the answer
    boxes' labels (empty for answers that are not numbers)."""
    if served is None or served.input.type not in ("integer", "vector"):
        return []
    if served.input.type == "integer":
        return [(gettext("Value"), yours, real)]
    if not (isinstance(yours, list) and isinstance(real, list) and len(yours) == len(real)):
        return []
    labels = list(served.input.labels) or [str(i) for i in range(1, len(real) + 1)]
    return list(zip(labels, yours, real, strict=False))


def model_cells(step: ModelStep, rows: Sequence[Sequence[str]]) -> list[list[tuple[str, bool]]]:
    """Mark each cell of a step table that differs from the real run's row of that request
    (the real table itself has none marked)."""
    real = {row[0]: row for row in step.real}
    marked = []
    for row in rows:
        same = real.get(row[0])
        marked.append([(cell, same is None or same[i] != cell) for i, cell in enumerate(row)])
    return marked


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


DUE_SHOWN = 20  # due cards the progress page lists, most overdue first


@bp.get("/progress")
def progress_page() -> str:
    """Show due today, the 30-day forecast, the desired retention, mastery and calibration."""
    moved = request.args.get("moved", "")
    return render_progress(moved=int(moved) if moved.isdigit() else None)


def render_progress(retention_error: tuple[str, str] | None = None,
                    retention_value: str | None = None, moved: int | None = None) -> str:
    """Render the progress page (with the retention form's error, if any)."""
    ctx = current_context()
    summary = progress.progress_report(ctx)
    by_section = progress.section_report(ctx)
    due = progress.due_reviews(ctx, limit=DUE_SHOWN)
    peak = max([day.count for day in due.forecast] + [1])
    titles = {qid: q.title for qid, q in ctx.index.questions.items()}
    return render_template(
        "progress.html", summary=summary, due=due, peak=peak, by_section=by_section,
        calibration_words=calibration.in_words(summary.calibration),
        mastery=progress.list_mastery(ctx), titles=titles,
        scheduling=scheduling_settings.scheduling_view(ctx),
        lesson_titles={lesson_id: lesson.title for lesson_id, lesson in ctx.index.lessons.items()},
        retention_error=retention_error, retention_value=retention_value, moved=moved)


@bp.post("/progress/retention")
def set_retention() -> BaseResponse | tuple[str, int]:
    """Save the desired retention from the progress page's form; the cards follow it."""
    try:
        form = parse_form(DesiredRetentionFormSchema())
        changed = scheduling_settings.set_desired_retention(
            current_context(), form["desired_retention"])
    except Invalid as error:
        return render_progress(said(error), request.form.get("desired_retention", "")), 422
    return see_other("web.progress_page", anchor="retention",
                     moved=str(changed.rescheduled_cards or 0))


@bp.get("/lessons/<lesson_id>/anki")
def anki(lesson_id: str) -> str:
    """Show what the lesson's Anki deck holds, with links that download it.

    The deck holds the answers: while questions of the lesson are open closed-book, the page
    asks first, as the lesson does.
    """
    ctx = current_context()
    preview = anki_export.deck_preview(ctx, lesson_id)
    gate = reading.closed_book(ctx, lesson_id)
    if gate.open:
        return open_book_page(lesson_id, gate, "anki")
    return render_template("anki.html", preview=preview, lang_modes=LANG_MODES)


@bp.get("/link")
def link() -> str:
    """Show the two halves of linking: make a code here, or enter one from elsewhere."""
    return render_template("link.html", issued=None, linked=False, error=None,
                           shared=linking.is_linked(current_context()))


@bp.post("/link/code")
def link_code() -> str:
    """Make a one-time code and show it (only now: the server keeps only its hash)."""
    ctx = current_context()
    issued = linking.create_link_code(ctx)
    return render_template("link.html", issued=issued, linked=False, error=None,
                           shared=linking.is_linked(ctx))


@bp.post("/link/redeem")
@link_redeem_limit()
def link_redeem() -> tuple[str, int]:
    """Join this browser to the learner who made the code."""
    ctx = current_context()
    try:
        form = parse_form(LinkRequestSchema())
        linking.redeem_link_code(ctx, form["code"], form["leave_progress"])
    except Conflict as error:
        if error.reason != "would_leave_progress":
            raise
        return render_template("link.html", issued=None, linked=False, error=None,
                               shared=False, confirm={"code": form["code"], **error.params}
                               ), 409
    except Invalid as error:
        return render_template("link.html", issued=None, linked=False, error=said(error),
                               shared=False), 422
    return render_template("link.html", issued=None, linked=True, error=None,
                           shared=True), 200


def _form_values(form: dict[str, str]) -> dict[str, str]:
    """Return the values the simulator form shows: the defaults overlaid by what was sent."""
    values = plans.settings_query(plans.DEFAULT_SETTINGS)
    values.update({k: v for k, v in form.items() if k in values})
    return values


@bp.get("/simulator")
@sandbox_limit()
def simulator() -> tuple[str, int]:
    """Show the simulator: its form, and the replayed steps for the settings in the query.

    A GET form: the URL of a run is shareable and the no-JavaScript page needs no CSRF token.
    """
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
        with sandbox_spending():
            if example_id is not None:
                run = sandbox.run_example(ctx, example_id)
            else:
                settings = plans.parse_settings(form)
                run = sandbox.run_settings(settings)
        steps = sim.step_views(run.trace, run.plan)
        result = {"plan": run.plan, "steps": steps, "negative_gaps": sim.negative_gaps(steps),
                  "mismatches": run.mismatches, "example": run.example}
    except Invalid as error:
        errors[error.field] = message(error.template, error.params)
    return render_template(
        "simulator.html",
        values=_form_values(form),
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


def field_id(name: str) -> str:
    """Return the HTML id of a simulator field (ids avoid the dots of ``A.num_tokens``)."""
    return "f-" + name.replace(".", "-")


bp.add_app_template_global(field_id, "field_id")
bp.add_app_template_global(sim.step_name, "step_name")
bp.add_app_template_global(message, "said")
