"""Serve the author pages: sign in with the author token, then the item analysis.

The token is posted once to ``/author/sign-in`` and answered with a session cookie
(``quizsvc.http.author``); it never appears in a URL, so it reaches no log. Without a
configured ``AUTHOR_TOKEN`` these pages do not exist (404).
"""

from __future__ import annotations

from typing import Any

from flask import Response, make_response, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.errors import N_, Invalid, Unauthorized
from quizsvc.http import author
from quizsvc.http.arguments import ITEM_ANALYSIS_FORMATS, AuthorSignInFormSchema
from quizsvc.http.context import current_context
from quizsvc.http.language import current_lang
from quizsvc.runtime import now
from quizsvc.study import item_analysis
from quizsvc.study.item_analysis import ItemAnalysisReport
from quizsvc.web.item_analysis_charts import item_analysis_charts
from quizsvc.web.pages.chrome import bp, parse_form, said, see_other

CSV_FORMATS = tuple(name for name in ITEM_ANALYSIS_FORMATS if name != "json")


def chosen_lesson() -> str | None:
    """Return the lesson the query names (None: every lesson); an unknown one is 404 later."""
    return request.args.get("lesson") or None


@bp.get("/author/item-analysis")
def item_analysis_page() -> str | tuple[str, int]:
    """Show the item analysis to a signed-in author; anyone else gets the sign-in form."""
    author.configured_token()
    if not author.signed_in(now()):
        return render_template("author_sign_in.html", error=None), 401
    ctx = current_context()
    lesson = chosen_lesson()
    report = item_analysis.item_analysis_report(ctx, lesson)
    return render_item_analysis(
        report, lessons=ctx.index.lessons, lesson=lesson,
        csv_questions_url=url_for("web.item_analysis_csv", lesson=lesson, format="csv"),
        csv_rules_url=url_for("web.item_analysis_csv", lesson=lesson, format="rules-csv"))


def render_item_analysis(report: ItemAnalysisReport, **urls: Any) -> str:
    """Render an item analysis (the author's over everyone, or an instructor's cohort)."""
    return render_template("item_analysis.html", report=report,
                           charts=item_analysis_charts(report, current_lang()),
                           rules_by_need=rules_by_need(report), **urls)


def rules_by_need(report: ItemAnalysisReport) -> list[item_analysis.RuleRow]:
    """Return the rules least learned first (unanswered ones last, in teaching order)."""
    answered = [rule for rule in report.rules if rule.stats.accuracy is not None]
    unanswered = [rule for rule in report.rules if rule.stats.accuracy is None]
    return sorted(answered, key=lambda rule: rule.stats.accuracy or 0.0) + unanswered


@bp.get("/author/item-analysis.csv")
def item_analysis_csv() -> Response:
    """Download the item analysis as CSV (``format=rules-csv``: one row per rule)."""
    author.require_signed_in(now())
    table = csv_format()
    report = item_analysis.item_analysis_report(current_context(), chosen_lesson())
    name, text = item_analysis.report_csv(report, table)
    return Response(text, mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename={name}"})


def csv_format() -> str:
    """Return the CSV table the query asks for (``csv`` or ``rules-csv``; else 422)."""
    table = request.args.get("format", "csv")
    if table not in CSV_FORMATS:
        raise Invalid("format", N_("Must be one of: %(choices)s."),
                      params={"choices": ", ".join(CSV_FORMATS)}, location="query")
    return table


@bp.post("/author/sign-in")
def author_sign_in() -> BaseResponse | tuple[str, int]:
    """Sign an author in with the posted token; a wrong one re-shows the form (401)."""
    author.configured_token()
    try:
        form = parse_form(AuthorSignInFormSchema())
        if not author.token_matches(form["token"]):
            raise Unauthorized(N_("That is not the author token."), reason="author_token")
    except (Invalid, Unauthorized) as error:
        return render_template("author_sign_in.html", error=said(error)), 401
    return author.sign_in(make_response(see_other("web.item_analysis_page")), now())


@bp.post("/author/sign-out")
def author_sign_out() -> BaseResponse:
    """Sign the author out of this browser."""
    return author.sign_out(make_response(see_other("web.item_analysis_page")))
