"""Rate an attempt's fsrs review: Hard/Good/Easy after a right answer, four buttons for cards.

A right graded answer was already reviewed Good when it was graded; another rating redoes that
review from the card's state before it, as long as it is still the card's latest review. A
wrong answer stays Again. A self-rated card (flashcard, free text) is reviewed when rated.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from quizsvc.bank.model import Text
from quizsvc.errors import N_, Conflict, NotFound
from quizsvc.review import outcome, scheduling
from quizsvc.review.ratings import ReviewRating
from quizsvc.review.scheduling import SchedulerSettings
from quizsvc.store.answers import LoggedReview, StoredAttempt, StoredCard
from quizsvc.study.answering import AttemptView, owned_attempt, rating_choices, stored_view
from quizsvc.study.context import Context


def rate_attempt(ctx: Context, attempt_id: int, rating: ReviewRating) -> AttemptView:
    """Rate one of this learner's attempts (see the module docstring)."""
    uow = ctx.uow
    with uow.locked(ctx.learner_id):
        attempt = owned_attempt(ctx, attempt_id)
        if attempt.origin == "unverified":
            raise Conflict(N_("This imported attempt is history no one can vouch for; it is "
                              "not reviewed."), reason="unverified_attempt")
        if rating.name.lower() not in rating_choices(attempt.graded, attempt.correct):
            if attempt.graded and not attempt.correct:
                if rating is ReviewRating.AGAIN:
                    return stored_view(ctx, attempt)
                raise Conflict(N_("A wrong answer is reviewed Again; it cannot be rated "
                                  "higher."), reason="wrong_stays_again")
            raise Conflict(N_("A right answer is rated Hard, Good or Easy."),
                           reason="right_not_again")
        settings = uow.settings.read_settings(ctx.learner_id, attempt.lesson)
        logged = uow.answers.review_of_attempt(attempt.id)
        if logged is None:
            card = uow.answers.card_of(ctx.learner_id, attempt.question_id)
            entry = review_for(logged, card, rating, ctx.now, settings)
            uow.answers.record_review(ctx.learner_id, attempt, card, entry, by_learner=True)
        else:
            if not logged.latest:
                raise Conflict(N_("This card was reviewed again since; that rating can no "
                                  "longer change."), reason="reviewed_since")
            entry = review_for(logged, None, rating, ctx.now, settings)
            uow.answers.rerate_review(logged, entry)
        return stored_view(ctx, attempt, int(rating))


def review_for(logged: LoggedReview | None, card: StoredCard | None,
               rating: ReviewRating, now: datetime, settings: SchedulerSettings
               ) -> outcome.Review:
    """The review a rating makes: redone from the state before the logged one, if the
    attempt was already reviewed (a right answer is reviewed Good when graded), else a new
    review of the card as it stands now."""
    if logged is not None:
        return outcome.review(logged.before, rating, logged.reviewed_at, logged.reviewed_at,
                              settings)
    return outcome.review(card.state if card else None, rating, now, now, settings)


def rating_intervals(ctx: Context, attempt_id: int) -> dict[str, timedelta]:
    """Say what each rating still open to an attempt would schedule: the time until its card
    is due again, as Anki prints on its buttons. Empty when no rating can change anything."""
    with ctx.uow.read():
        return intervals_of(ctx, owned_attempt(ctx, attempt_id))


def intervals_of(ctx: Context, attempt: StoredAttempt) -> dict[str, timedelta]:
    """``rating_intervals`` of an attempt already read (its review, card and settings are
    read here; the caller ends the transaction)."""
    choices = rating_choices(attempt.graded, attempt.correct, attempt.origin)
    logged = ctx.uow.answers.review_of_attempt(attempt.id) if choices else None
    if not choices or (logged is not None and not logged.latest):
        return {}
    settings = ctx.uow.settings.read_settings(ctx.learner_id, attempt.lesson)
    card = None if logged else ctx.uow.answers.card_of(ctx.learner_id, attempt.question_id)
    intervals = {}
    for name in choices:
        entry = review_for(logged, card, ReviewRating.from_word(name), ctx.now, settings)
        intervals[name] = entry.after.due - entry.reviewed_at
    return intervals


def undo_rating(ctx: Context, attempt_id: int) -> AttemptView:
    """Take back the learner's rating of an attempt, as Anki's Undo does.

    A right graded answer goes back to the review its grade made (Good); a self-rated card's
    review is dropped and the card restored as it was before (a card that review created is
    removed, so the card is new again); either way the ratings are offered again. Only the
    card's latest review can be taken back (409 ``reviewed_since``), and only a rating the
    learner gave (409 ``nothing_to_undo``).
    """
    uow = ctx.uow
    with uow.locked(ctx.learner_id):
        attempt = owned_attempt(ctx, attempt_id)
        logged = uow.answers.review_of_attempt(attempt.id)
        if logged is None or not logged.rated_by_learner:
            raise Conflict(N_("This attempt has no rating of yours to take back."),
                           reason="nothing_to_undo")
        if not logged.latest:
            raise Conflict(N_("This card was reviewed again since; that rating can no longer "
                              "change."), reason="reviewed_since")
        kept = None
        if attempt.graded:
            settings = uow.settings.read_settings(ctx.learner_id, attempt.lesson)
            kept = review_for(logged, None, scheduling.rating_for_grade(bool(attempt.correct)),
                              ctx.now, settings)
        uow.answers.undo_review(logged, kept)
        return stored_view(ctx, attempt, int(kept.rating) if kept else None)


@dataclass(frozen=True)
class UndoableRating:
    """A rating the learner gave that Undo can still take back: which attempt, the question's
    title, the rating, and whether the answer was graded (Undo then returns it to the Good a
    right answer gets; a self-rated card returns to how it was before)."""

    attempt_id: int
    title: Text
    rating: str
    graded: bool


def undoable_rating(ctx: Context, attempt_id: int) -> UndoableRating | None:
    """Say what Undo would take back of one of this learner's attempts, so the page can say it
    before the learner presses it; ``None`` when there is nothing to undo (no rating of theirs,
    reviewed again since, or not their attempt)."""
    with ctx.uow.read():
        try:
            attempt = owned_attempt(ctx, attempt_id)
        except NotFound:
            return None
        logged = ctx.uow.answers.review_of_attempt(attempt.id)
    question = ctx.index.questions.get(attempt.question_id)
    if logged is None or not logged.rated_by_learner or not logged.latest or question is None:
        return None
    return UndoableRating(attempt.id, question.title, ReviewRating(logged.rating).word,
                          attempt.graded)
