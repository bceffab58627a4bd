"""Hold what every page shares: the ``web`` blueprint, its language, navigation and refusals.

The page areas (``quizsvc.web.pages``: study, lessons, progress, simulator, link) add their
routes to ``bp``; this module gives their templates the language, the vocabularies and the
navigation, keeps an explicit ``?lang=`` in a cookie, registers the presentation helpers as
template filters, and shows a refusal (``errors.ServiceError``) or an unknown URL as a page.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, g, redirect, render_template, request, url_for
from werkzeug.exceptions import NotFound as HTTPNotFound
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.errors import ServiceError
from quizsvc.http.errors import handle_http_exception, status_of
from quizsvc.http.language import LANG_COOKIE, LANGS, current_lang, message
from quizsvc.http.parsing import form_parser
from quizsvc.review.mastery import FRESH_REVEAL
from quizsvc.study.limits import MAX_LINK_CODE, MAX_REPORT_TEXT
from quizsvc.web import labels
from quizsvc.web import simulator as sim
from quizsvc.web.presentation import field_id, grouped, text_in, when

# The templates and assets live beside the web package (quizsvc/web/templates, static).
bp = Blueprint(
    "web",
    "quizsvc.web",
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
        "max_report_text": MAX_REPORT_TEXT,  # the report form's text takes no more
        # an answer this soon after a reveal is practice (review.mastery.FRESH_REVEAL)
        "fresh_reveal_hours": int(FRESH_REVEAL.total_seconds() // 3600),
    }


def see_other(endpoint: str, anchor: str | None = None, **values: Any) -> BaseResponse:
    """Redirect after a successful form post (303, so a reload never posts twice)."""
    return redirect(url_for(endpoint, _anchor=anchor, **values), code=303)


def parse_form(schema: Any) -> dict[str, Any]:
    """Parse the posted form with an API schema (``errors.Invalid`` names a refused field)."""
    parsed: dict[str, Any] = form_parser.parse(schema, location="form")
    return parsed


def text_filter(value: Any) -> str:
    """Render a bank ``Text`` in the page's language."""
    return text_in(value, current_lang())


bp.add_app_template_filter(when, "when")
bp.add_app_template_filter(grouped, "grouped")
bp.add_app_template_filter(text_filter, "text")
bp.add_app_template_global(field_id, "field_id")
bp.add_app_template_global(sim.step_name, "step_name")
bp.add_app_template_global(message, "said")


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
