"""Try a new variant: after a numeric question's reveal, a fresh variant of it, as practice.

PrairieLearn's "new variant" button. The learner has just read the answer and the worked
solution, so answering the same question again with other numbers is practice: it is served
with ``practice`` set on its ``served_variant`` row, and ``answering.practice_of`` reads that
flag on the one path every answer takes, so its attempt is stored with ``practice: true,
closed_book: false`` and never becomes mastery evidence, right or wrong, whenever it is
answered (``review.mastery``, rule 4). It is graded, reviewed and shown like any other answer.

A practice variant belongs to no session; a learner has at most one open at a time (asking
again replaces it).
"""

from __future__ import annotations

from dataclasses import dataclass

from quizsvc.bank.answer_key import AnswerKey
from quizsvc.bank.content import content_key
from quizsvc.bank.model import QuestionKind
from quizsvc.errors import N_, Conflict, Gone, NotFound
from quizsvc.store.answers import StoredAttempt
from quizsvc.study import answering
from quizsvc.study.context import Context
from quizsvc.study.serving import ServedQuestion, draw_variant, served_view
from quizsvc.study.sessions import opaque_id

TRIABLE = frozenset({QuestionKind.NUMERIC})  # kinds whose variants ask other numbers


@dataclass(frozen=True)
class PracticeQuestion:
    """A practice variant as its page shows it, or the attempt that answered it."""

    question: ServedQuestion
    attempt_id: int | None


def can_try(attempt: StoredAttempt) -> bool:
    """Tell whether a new variant may follow an attempt: a graded numeric question whose
    answer has been revealed to the learner."""
    return attempt.graded and attempt.kind in TRIABLE and attempt.revealed_at is not None


def new_variant(ctx: Context, attempt_id: int) -> ServedQuestion:
    """Serve a fresh variant of an attempt's question as practice (one write).

    ``NotFound`` for another learner's attempt; ``Conflict`` before its reveal (a wrong answer
    not yet explained) or for a kind without other numbers to ask; ``Gone`` once the bank no
    longer has the question. The variant asks something other than the attempt did, and
    other than the learner's revealed mistakes when the bank has more to ask; never a content
    an LMS export took away (``contents_to_avoid``), as serving does.
    """
    with ctx.uow.write():
        attempt = answering.owned_attempt(ctx, attempt_id)
        if not (attempt.graded and attempt.kind in TRIABLE):
            raise Conflict(N_("Only a numeric question has new variants to try."),
                           reason="no_variants")
        if not can_try(attempt):
            raise Conflict(N_("Explain this answer first: a new variant comes after the "
                              "reveal."), reason="not_revealed")
        q = ctx.index.questions.get(attempt.question_id)
        if q is None:
            raise Gone(N_("This question is no longer in the bank."), reason="question_gone")
        avoid = ctx.uow.sessions.contents_to_avoid(ctx.learner_id, q.id)
        asked = (attempt.content_key,) if attempt.content_key else ()
        seed, built = draw_variant(ctx, q, asked + tuple(k for k in avoid.revealed
                                                         if k not in asked), avoid.exported)
        variant_id = opaque_id(ctx)
        ctx.uow.sessions.serve_practice({
            "id": variant_id, "learner_id": ctx.learner_id, "question_id": q.id,
            "lesson": q.lesson, "kind": str(q.kind), "seed": seed,
            "bank_version": str(ctx.bank.version), "served_at": ctx.now, "answered": False,
            "open_book": False, "answer_key": AnswerKey.from_variant(built).to_json(),
            "content_key": content_key(built)})
    return served_view(q, variant_id, built, ctx.now)


def practice_question(ctx: Context, variant_id: str) -> PracticeQuestion:
    """Return one of this learner's practice variants as served, with the attempt that
    answered it if any (``NotFound``: unknown, replaced by a newer one, or not practice;
    ``Gone`` once the bank has moved on)."""
    with ctx.uow.read():
        found = (None if ctx.identity is None
                 else ctx.uow.sessions.practice_variant(ctx.learner_id, variant_id))
    if found is None:
        raise NotFound(N_("No such practice variant."), reason="unknown_variant")
    q = ctx.index.questions.get(found.question_id)
    if q is None or found.bank_version != str(ctx.bank.version):
        raise Gone(N_("This question is no longer in the bank."), reason="question_gone")
    return PracticeQuestion(served_view(q, found.id, ctx.bank.variant(q.id, found.seed),
                                        found.served_at), found.attempt_id)
