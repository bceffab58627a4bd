"""Ask before a page opens the book, and open it when the learner chooses to.

The lesson, its reference pages, its Anki deck and the simulator all show what closed-book
questions ask; while some of the learner's are open, each of those pages shows this one
instead (``open_book_page``), whose form posts here to open the book and go on.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode

from flask import redirect, render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.http.arguments import OpenBookFormSchema, SimulatorOpenBookFormSchema
from quizsvc.http.context import current_context
from quizsvc.study import lessons as reading
from quizsvc.web.pages.chrome import bp, parse_form, see_other

# Where the open-book form of each page goes on to (``then``), once the book is open.
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
