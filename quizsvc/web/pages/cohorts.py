"""Serve cohorts and erasure: the join page, a learner's cohorts, the instructor's page and
gradebook, and the page where a learner erases everything of theirs.

The instructor's page is reached by its secret address alone (the token in the path): it
sends no referrer and is never cached, so the address does not leak through a followed link
or a shared computer's cache.
"""

from __future__ import annotations

from typing import Any

from flask import Response, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.errors import N_, Invalid, NotFound
from quizsvc.http.arguments import CohortJoinFormSchema, EraseFormSchema
from quizsvc.http.browser import forget_browser
from quizsvc.http.context import current_context
from quizsvc.http.limits import instructor_rate_limit
from quizsvc.study import cohorts, erasure, item_analysis
from quizsvc.web.pages.author import csv_format, render_item_analysis
from quizsvc.web.pages.chrome import bp, parse_form, said, see_other

PRIVATE_PAGE = {"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}


def intro_or_404(code: str) -> cohorts.CohortIntro:
    """Return the cohort a join code opens; an unknown code is a 404 page."""
    try:
        return cohorts.introduce(current_context(), code)
    except Invalid:
        raise NotFound(N_("This join code opens no cohort; ask your instructor for the link "
                          "again."), reason="unknown_join_code") from None


@bp.get("/join/<code>")
def join_page(code: str) -> Response:
    """Show the cohort a code opens and the form to join it under a display name."""
    return private(render_template("join.html", cohort=intro_or_404(code), code=code,
                                   error=None, form={}))


@bp.post("/join/<code>")
def join_post(code: str) -> BaseResponse:
    """Join the cohort under the name given; then show the learner's cohorts."""
    cohort = intro_or_404(code)
    try:
        form = parse_form(CohortJoinFormSchema())
        cohorts.join_cohort(current_context(), code, form["display_name"],
                            form["share_explanations"])
    except Invalid as error:
        page = render_template("join.html", cohort=cohort, code=code, error=said(error),
                               form=request.form)
        return private(page, 422)
    return see_other("web.my_cohorts", joined=str(cohort.id))


@bp.get("/cohorts/mine")
def my_cohorts() -> str:
    """List the cohorts this learner is in, each with a way to leave it."""
    joined = request.args.get("joined", "")
    return render_template("my_cohorts.html", memberships=cohorts.my_cohorts(current_context()),
                           joined=int(joined) if joined.isdigit() else None,
                           left=request.args.get("left") == "1")


@bp.post("/cohorts/mine/<int:cohort_id>/leave")
def leave_cohort(cohort_id: int) -> BaseResponse:
    """Leave a cohort; its instructor no longer sees this learner."""
    cohorts.leave_cohort(current_context(), cohort_id)
    return see_other("web.my_cohorts", left="1")


@bp.get("/cohorts/<int:cohort_id>/<token>")
@instructor_rate_limit()
def instructor_page(cohort_id: int, token: str) -> Response:
    """Show the instructor their cohort: per learner mastery and accuracy per section, due
    load, last activity; shared explanations; self-assessments only pooled."""
    ctx = current_context()
    report = cohorts.cohort_report(ctx, cohort_id, token)
    lesson = ctx.index.lessons.get(report.lesson)
    return private(render_template("instructor.html", report=report, token=token,
                                   lesson_title=lesson.title if lesson else None))


@bp.get("/cohorts/<int:cohort_id>/<token>/gradebook.csv")
@instructor_rate_limit()
def gradebook(cohort_id: int, token: str) -> Response:
    """Download the cohort's gradebook: one row per learner, one column per section."""
    report = cohorts.cohort_report(current_context(), cohort_id, token)
    return Response(cohorts.gradebook_csv(report), mimetype="text/csv", headers={
        **PRIVATE_PAGE,
        "Content-Disposition": f"attachment; filename=cohort-{cohort_id}-gradebook.csv"})


@bp.get("/cohorts/<int:cohort_id>/<token>/item-analysis")
@instructor_rate_limit()
def cohort_item_analysis(cohort_id: int, token: str) -> Response:
    """Show the instructor the item analysis of their cohort's members."""
    report = item_analysis.cohort_item_analysis(current_context(), cohort_id, token)
    return private(render_item_analysis(
        report, back_url=url_for("web.instructor_page", cohort_id=cohort_id, token=token),
        csv_questions_url=url_for("web.cohort_item_analysis_csv", cohort_id=cohort_id,
                                  token=token, format="csv"),
        csv_rules_url=url_for("web.cohort_item_analysis_csv", cohort_id=cohort_id,
                              token=token, format="rules-csv")))


@bp.get("/cohorts/<int:cohort_id>/<token>/item-analysis.csv")
@instructor_rate_limit()
def cohort_item_analysis_csv(cohort_id: int, token: str) -> Response:
    """Download the cohort's item analysis as CSV (``format=rules-csv``: one row per rule)."""
    table = csv_format()
    report = item_analysis.cohort_item_analysis(current_context(), cohort_id, token)
    name, text = item_analysis.report_csv(report, table)
    return Response(text, mimetype="text/csv", headers={
        **PRIVATE_PAGE, "Content-Disposition": f"attachment; filename=cohort-{cohort_id}-{name}"})


def private(page: str, status: int = 200) -> Response:
    """Return a page that sends no referrer and is never cached (it holds a secret)."""
    return Response(page, status=status, headers=PRIVATE_PAGE, mimetype="text/html")


@bp.get("/erase")
def erase_page() -> str:
    """Ask before erasing: what goes, and the export to download first."""
    return render_template("erase.html", error=None)


@bp.post("/erase")
def erase_post() -> Any:
    """Erase everything of this learner once confirmed; the cookies go too."""
    try:
        form = parse_form(EraseFormSchema())
        if form["confirm"] is None:
            raise Invalid("confirm", N_("tick the box to confirm that everything is to be "
                                        "erased"), location="form", reason="confirm_erase")
    except Invalid as error:
        return render_template("erase.html", error=said(error)), 422
    erasure.erase_learner(current_context())
    forget_browser()
    return see_other("web.erased")


@bp.get("/erase/done")
def erased() -> str:
    """Say that everything was erased."""
    return render_template("erased.html")
