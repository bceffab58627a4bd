"""Serve studying: the home page, the start pages, a session's questions and an attempt's result.

A question page posts its answer to ``answer``, which grades it through the same use case as
``POST /api/attempts`` and redirects to the attempt's own URL; the attempt page asks for the
explanation of a wrong answer, then shows the reveal and the ratings. Every step is a URL of
its own, so reload and Back are safe.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from functools import partial
from typing import Any

from flask import render_template, request, url_for
from werkzeug.wrappers import Response as BaseResponse

from quizsvc.bank.kinds import KINDS
from quizsvc.bank.kinds.form import position_field, vector_field
from quizsvc.errors import Invalid
from quizsvc.http.arguments import (
    AnswerFormSchema,
    ExplanationSchema,
    RatingSchema,
    SessionFormSchema,
)
from quizsvc.http.context import current_context
from quizsvc.http.language import current_lang, interval_text
from quizsvc.http.metrics import answer_graded
from quizsvc.review import diagnosis
from quizsvc.study import answering, reviews, serving, sessions, variants
from quizsvc.study import attempt_page as attempt_pages
from quizsvc.study import lessons as reading
from quizsvc.study.limits import MAX_EXPLANATION
from quizsvc.web.forms import answer_from_form
from quizsvc.web.pages.chrome import bp, parse_form, said, see_other
from quizsvc.web.presentation import (
    AnswerProblem,
    answer_problem,
    answer_text,
    compare_rows,
    model_cells,
    model_differences,
    rated_attempt,
)

NOTICES = frozenset({"answered_elsewhere"})  # ?notice= words a question page may show


@bp.get("/")
def home() -> str:
    """Show the starting page with a way into every activity and what is due."""
    ctx = current_context()
    return render_template("home.html", counts=sessions.home_counts(ctx),
                           lessons=reading.list_lessons(ctx))


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


def undo_offer() -> reviews.UndoableRating | None:
    """Read the attempt just rated (``?rated=``) and what Undo would take back of it."""
    attempt_id = rated_attempt(request.args.get("rated", ""))
    return reviews.undoable_rating(current_context(), attempt_id) if attempt_id else None


def question_page(item: Any, values: dict[str, Any] | None = None,
                  error: AnswerProblem | None = None, status: int = 200,
                  answer_url: str | None = None) -> tuple[str, int]:
    """Render the closed-book question page: prompt and inputs, never the answer.

    ``answer_url`` is where the form posts (default: the session's next question's answer);
    a practice variant (``item.practice``) posts to its own.
    """
    notice = request.args.get("notice")
    return render_template(
        "question.html", item=item, served=item.question, session=item.session,
        practice=getattr(item, "practice", False),
        answer_url=answer_url or url_for("web.answer", session_id=item.session.id),
        rated=undo_offer(),
        values=values or {}, error=error, idempotency_key=secrets.token_urlsafe(18),
        notice=notice if notice in NOTICES else None,
        answer_template=KINDS[item.question.kind].template,
        vector_field=vector_field, position_field=position_field,
    ), status


@bp.get("/study/<session_id>")
def session(session_id: str) -> str | tuple[str, int]:
    """Show the session's next question, or its summary once every question is answered."""
    ctx = current_context()
    item = serving.next_question(ctx, session_id)
    if item.done:
        return render_template("session_done.html",
                               summary=sessions.session_summary(ctx, session_id),
                               rated=undo_offer())
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
    return graded_form(item, form["idempotency_key"])


def graded_form(item: Any, idempotency_key: str, answer_url: str | None = None
                ) -> BaseResponse | tuple[str, int]:
    """Grade the answer posted for ``item``'s question and go to its result; an answer that
    cannot be read re-shows the form (422), posting again to ``answer_url``."""
    served = item.question
    values = request.form.to_dict(flat=False)
    try:
        given = answer_from_form(served.kind, served.input, values)
        result = answering.submit(current_context(), served.variant_id, given,
                                  idempotency_key)
        if result.graded and not result.replayed:
            answer_graded(bool(result.correct))
    except Invalid as error:
        problem = answer_problem(served, error.field, error.template, error.reason,
                                 error.params, current_lang())
        return question_page(item, values, problem, 422, answer_url)
    return see_other("web.attempt", session_id=item.session.id, attempt_id=result.id)


@dataclass(frozen=True)
class PracticeItem:
    """A practice variant as the question page shows it, in the session it was tried from."""

    session: sessions.SessionView
    question: serving.ServedQuestion
    position: None = None
    practice: bool = True


def practice_item(session_id: str, variant_id: str) -> tuple[PracticeItem, int | None]:
    """Read a practice variant and the session it was tried from, with its attempt if any."""
    ctx = current_context()
    found = variants.practice_question(ctx, variant_id)
    return PracticeItem(sessions.get_session(ctx, session_id), found.question), found.attempt_id


@bp.post("/study/<session_id>/attempts/<int:attempt_id>/new-variant")
def new_variant(session_id: str, attempt_id: int) -> BaseResponse:
    """Serve a fresh variant of the attempt's question as practice and show it."""
    ctx = current_context()
    sessions.get_session(ctx, session_id)  # a session of this learner's, or 404
    served = variants.new_variant(ctx, attempt_id)
    return see_other("web.practice", session_id=session_id, variant_id=served.variant_id)


@bp.get("/study/<session_id>/practice/<variant_id>")
def practice(session_id: str, variant_id: str) -> BaseResponse | tuple[str, int]:
    """Show a practice variant, or the result of its answer once answered."""
    item, answered = practice_item(session_id, variant_id)
    if answered is not None:
        return see_other("web.attempt", session_id=session_id, attempt_id=answered)
    return question_page(item, answer_url=url_for("web.answer_practice", session_id=session_id,
                                                  variant_id=variant_id))


@bp.post("/study/<session_id>/practice/<variant_id>/answer")
def answer_practice(session_id: str, variant_id: str) -> BaseResponse | tuple[str, int]:
    """Grade the answer to a practice variant, through the one answering use case."""
    form = parse_form(AnswerFormSchema())
    item, answered = practice_item(session_id, variant_id)
    if answered is not None or form["variant_id"] != variant_id:
        return see_other("web.practice", session_id=session_id, variant_id=variant_id)
    return graded_form(item, form["idempotency_key"], url_for(
        "web.answer_practice", session_id=session_id, variant_id=variant_id))


def attempt_page(session_id: str, attempt_id: int, error: tuple[str, str] | None = None,
                 status: int = 200, posted: dict[str, str] | None = None) -> tuple[str, int]:
    """Render an attempt's result: the reveal only once it has been earned.

    ``posted`` is a refused explanation form, shown again as it was filled in.
    """
    posted = posted or {}
    lang = current_lang()
    page = attempt_pages.attempt_page(current_context(), attempt_id, lang)
    result = page.result
    return render_template(
        "attempt.html", result=result, served=page.question, session_id=session_id,
        error=error,
        intervals={name: interval_text(delta) for name, delta in page.intervals.items()},
        lesson_url=(result.reveal.lesson_link or url_for("web.lessons")) if result.reveal
        else None,
        answer_text=partial(answer_text, lang=lang), compare_rows=compare_rows,
        model_step=page.model_step, model_cells=model_cells,
        can_try_variant=page.can_try_variant, tried_variant=page.tried_variant,
        min_words=diagnosis.MIN_WORDS, min_han=diagnosis.MIN_HAN,
        explained_text=posted.get("explanation", ""), picked_rule=posted.get("rule"),
        model_differences=model_differences, rated_by_learner=page.rated_by_learner,
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
        answering.explain_attempt(current_context(), attempt_id, form["explanation"],
                                  form["rule"])
    except Invalid as error:
        posted = {name: request.form.get(name, "")[:MAX_EXPLANATION]
                  for name in ("explanation", "rule")}
        return attempt_page(session_id, attempt_id, said(error), 422, posted)
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
