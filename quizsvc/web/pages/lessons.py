"""Serve the lessons: the list, a lesson with its self-assessments, and its Anki deck's page.

While closed-book questions of a lesson are open, the lesson and its deck ask first
(``open_book.open_book_page``): the closed-book rule holds for the pages as for the API.
"""

from __future__ import annotations

from urllib.parse import urlencode

from flask import render_template, request
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.bank.anki import LANG_MODES
from quizsvc.http.arguments import SelfAssessmentFormSchema
from quizsvc.http.context import current_context
from quizsvc.http.language import current_lang
from quizsvc.review.ratings import SelfRating
from quizsvc.study import anki_export, self_assessments
from quizsvc.study import lessons as reading
from quizsvc.study import simulator as plans
from quizsvc.web.lesson import lesson_parts, source_anchors
from quizsvc.web.pages.chrome import bp, parse_form, see_other
from quizsvc.web.pages.open_book import open_book_page
from quizsvc.web.presentation import text_in


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


@bp.post("/lessons/<lesson_id>/self-assessment")
def self_assess(lesson_id: str) -> BaseResponse:
    """Save this browser's self-assessment of one lesson section (no-JavaScript form)."""
    ctx = current_context()
    form = parse_form(SelfAssessmentFormSchema())
    self_assessments.put_self_assessment(ctx, form["ref"], form["rating"], form["note"])
    return see_other("web.lesson", anchor=f"sa-{form['ref']}", lesson_id=lesson_id,
                     saved=form["ref"])


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
