"""Serve the card browser: a lesson's items with search and states, one item's history, and
the suspend and bury buttons (forms that post and redirect back, so no script is needed).

A report of a problem with a question posts here too, from the question and attempt pages,
and goes back to the page it came from with a confirmation.
"""

from __future__ import annotations

from flask import render_template, request
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.http.arguments import BrowsePageQuerySchema, HoldFormSchema, ReportFormSchema
from quizsvc.http.context import current_context
from quizsvc.http.limits import report_limit
from quizsvc.http.parsing import form_parser
from quizsvc.study import browse, holds, reports
from quizsvc.web.pages.chrome import bp, parse_form, see_other

HOLD_ACTIONS = {"suspend": {"suspended": True}, "unsuspend": {"suspended": False},
                "bury": {"buried": True}, "unbury": {"buried": False}}
HOLD_NOTICES = frozenset(HOLD_ACTIONS)  # ?done= words the browser may confirm


@bp.get("/browse")
def browse_home() -> BaseResponse:
    """Open the card browser on the first lesson."""
    ctx = current_context()
    return see_other("web.browse_lesson", lesson_id=next(iter(ctx.index.lessons)))


@bp.get("/lessons/<lesson_id>/browse")
def browse_lesson(lesson_id: str) -> str:
    """List a lesson's flashcards and questions matching the search, with their states."""
    query = form_parser.parse(BrowsePageQuerySchema(), location="query")
    ctx = current_context()
    found = browse.browse(ctx, lesson_id, query["q"], query["page"])
    done = query["done"]
    return render_template("browse.html", found=found, now=ctx.now,
                           done=done if done in HOLD_NOTICES else None,
                           lessons=ctx.index.lessons)


@bp.get("/lessons/<lesson_id>/browse/<question_id>")
def browse_item(lesson_id: str, question_id: str) -> str:
    """Show one item: its state, the suspend and bury buttons, and every attempt at it."""
    ctx = current_context()
    history = browse.item_history(ctx, question_id)
    done = request.args.get("done")
    return render_template("browse_item.html", history=history, item=history.item,
                           done=done if done in HOLD_NOTICES else None)


@bp.post("/lessons/<lesson_id>/browse/<question_id>/hold")
def hold_item(lesson_id: str, question_id: str) -> BaseResponse:
    """Suspend, unsuspend, bury or unbury an item, then go back where the button was."""
    form = parse_form(HoldFormSchema())
    holds.change_hold(current_context(), question_id, **HOLD_ACTIONS[form["action"]])
    if form["back"] == "item":
        return see_other("web.browse_item", lesson_id=lesson_id, question_id=question_id,
                         done=form["action"])
    query = {"q": form["q"]} if form["q"] else {}
    return see_other("web.browse_lesson", anchor=f"item-{question_id}", lesson_id=lesson_id,
                     page=form["page"], done=form["action"], **query)


@bp.post("/study/<session_id>/report")
@report_limit()
def report_problem(session_id: str) -> BaseResponse:
    """Store a report of a problem with the question, then go back to the question or the
    attempt with a confirmation."""
    form = parse_form(ReportFormSchema())
    reports.report_problem(current_context(), form["variant_id"], form["reason"], form["text"])
    if form["attempt_id"] is not None:
        return see_other("web.attempt", anchor="report", session_id=session_id,
                         attempt_id=form["attempt_id"], reported=1)
    return see_other("web.session", anchor="report", session_id=session_id, reported=1)
