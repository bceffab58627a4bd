"""Gather what the attempt page shows from one read of the attempt.

The page shows the result (with the reveal once earned), the question as it was served,
the interval each open rating would give, and, after a matched wrong model's reveal, the
asked step as that model runs it. Each of those has its use case for other callers; this
one reads the attempt once and hands the row to each part, in one read-only transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from quizsvc.bank.catalog import ModelStep
from quizsvc.study import answering, reviews, variants
from quizsvc.study.answering import AttemptView
from quizsvc.study.context import Context
from quizsvc.study.serving import ServedQuestion


@dataclass(frozen=True)
class AttemptPage:
    """An attempt as its page shows it."""

    result: AttemptView
    question: ServedQuestion | None
    intervals: dict[str, timedelta]
    model_step: ModelStep | None
    can_try_variant: bool = False  # a new variant may follow (``study.variants``)
    tried_variant: bool = False  # this attempt answered a new variant, served as practice
    rated_by_learner: bool = False  # else the rating shown is the one a right answer gets


def attempt_page(ctx: Context, attempt_id: int, lang: str) -> AttemptPage:
    """Return one of this learner's attempts with all its page shows (``NotFound`` if it is
    not theirs); ``lang`` is the language of the wrong model's step tables."""
    with ctx.uow.read():
        attempt = answering.owned_attempt(ctx, attempt_id)
        result = answering.stored_view(ctx, attempt)
        intervals = reviews.intervals_of(ctx, attempt) if result.rating_choices else {}
        tried = attempt.practice and ctx.uow.sessions.practice_variant(
            ctx.learner_id, attempt.variant_id) is not None
        logged = ctx.uow.answers.review_of_attempt(attempt.id) if result.rating else None
    matched = result.reveal is not None and result.reveal.wrong_model is not None
    return AttemptPage(
        result=result,
        question=answering.question_of(ctx, attempt),
        intervals=intervals,
        model_step=answering.model_step_of(ctx, attempt, lang) if matched else None,
        can_try_variant=variants.can_try(attempt) and attempt.question_id in ctx.index.questions,
        tried_variant=tried,
        rated_by_learner=logged is not None and logged.rated_by_learner)
