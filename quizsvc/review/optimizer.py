"""Fit FSRS parameters to review logs with fsrs-rs-python, the optimizer Anki itself uses.

Pure over ``LoggedReview`` values: the store reads the log, this module turns it into the
optimizer's training items, fits, and measures log loss; nothing here touches a database or
a clock. The scheduler (py-fsrs, ``quizsvc.review.scheduling``) and the optimizer (fsrs-rs)
implement one model, FSRS-6 with its 21 parameters, and the days between reviews are counted
the way py-fsrs counts them (whole 24-hour periods), so parameters fitted here mean the same
thing when they schedule (``tests/review/test_optimizer.py`` checks that both give one card
the same stability).

What the optimizer learns from: each review of a card that comes on a later day than the
card's review before it (same-day learning steps are part of that card's history, not
predictions of their own), as fsrs-rs's own examples build them. That count is the
``review_count`` everything here reports and compares with ``min_reviews``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import groupby

from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS
from fsrs_rs_python import FSRS, FSRSItem, FSRSReview

from quizsvc.review.ratings import ReviewRating
from quizsvc.review.scheduling import DEFAULT_SETTINGS

DEFAULT_PARAMETERS = DEFAULT_SETTINGS.parameters
# Below this many reviews a fit follows the few cards it saw more than the population: keep
# fsrs's defaults (trained on many Anki users) instead. fsrs-rs itself returns its defaults
# untouched for a few hundred reviews or fewer.
MIN_REVIEWS = 400
CSV_COLUMNS = ("card_id", "review_time", "review_rating", "review_state", "review_duration")

History = tuple[tuple[int, int], ...]  # one card's (rating, days since its previous review)


@dataclass(frozen=True)
class LoggedReview:
    """One review from a log: which card (unique across learners), when, and its rating."""

    card: int
    reviewed_at: datetime
    rating: int


@dataclass(frozen=True)
class Fit:
    """Parameters fitted to a log, with the log loss they and the defaults score on it."""

    parameters: tuple[float, ...]
    review_count: int
    log_loss: float
    default_log_loss: float


@dataclass(frozen=True)
class NoFit:
    """Why a log gave no parameters of its own (the defaults, or what was in force, stay).

    ``reason`` is a code: ``too_few_reviews`` (fewer than ``needed``), ``optimizer_kept_
    defaults`` (fsrs-rs found too little to move them), ``no_better_than_defaults`` (the fit
    scored no lower log loss than the defaults on its own log), ``out_of_bounds`` (fsrs-rs
    returned parameters the scheduler would refuse; ``detail`` names them) or
    ``optimizer_failed`` (fsrs-rs raised; ``detail`` says what).
    """

    reason: str
    review_count: int
    needed: int
    detail: str = ""


def out_of_bounds(parameters: Sequence[float]) -> list[str]:
    """Name each parameter fsrs's scheduler would refuse (outside its bounds, or not finite)."""
    if len(parameters) != len(LOWER_BOUNDS_PARAMETERS):
        return [f"{len(parameters)} parameters, not {len(LOWER_BOUNDS_PARAMETERS)}"]
    return [f"parameters[{index}] = {value:g} outside [{low:g}, {high:g}]"
            for index, (value, low, high) in enumerate(zip(
                parameters, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True))
            if not (math.isfinite(value) and low <= value <= high)]


def card_histories(reviews: Iterable[LoggedReview]) -> list[History]:
    """Group reviews by card, in review order (ties keep the order given), as day gaps."""
    ordered = sorted(reviews, key=lambda review: review.card)
    histories: list[History] = []
    for _card, group in groupby(ordered, key=lambda review: review.card):
        card_reviews = sorted(group, key=lambda review: review.reviewed_at)
        previous = card_reviews[0].reviewed_at
        steps = []
        for review in card_reviews:
            steps.append((review.rating, (review.reviewed_at - previous).days))
            previous = review.reviewed_at
        histories.append(tuple(steps))
    return histories


def fsrs_item(history: Sequence[tuple[int, int]]) -> FSRSItem:
    """Build fsrs-rs's item for a history (its last review is the one predicted)."""
    return FSRSItem([FSRSReview(rating, days) for rating, days in history])


def training_histories(reviews: Iterable[LoggedReview]) -> list[History]:
    """Return every history prefix the optimizer learns from (see the module docstring)."""
    return [history[:end + 1] for history in card_histories(reviews)
            for end in range(1, len(history)) if history[end][1] > 0]


def review_count(reviews: Iterable[LoggedReview]) -> int:
    """Count the reviews the optimizer would learn from."""
    return len(training_histories(reviews))


def evaluate(parameters: Sequence[float], histories: Sequence[History]) -> float:
    """Return the log loss of ``parameters`` on ``histories`` (fsrs-rs's own measure)."""
    if not histories:
        raise ValueError("no reviews to measure a log loss on")
    return float(FSRS(list(parameters)).evaluate([fsrs_item(h) for h in histories]).log_loss)


def log_loss(parameters: Sequence[float], reviews: Iterable[LoggedReview]) -> float:
    """Return the log loss with which ``parameters`` predict recall in a log."""
    return evaluate(parameters, training_histories(reviews))


def fsrs_rs_parameters(items: list[FSRSItem]) -> Sequence[float]:
    """Return the parameters fsrs-rs's optimizer fits to training items."""
    return list(FSRS(list(DEFAULT_PARAMETERS)).compute_parameters(items))


def fit(reviews: Iterable[LoggedReview], min_reviews: int = MIN_REVIEWS,
        compute: Callable[[list[FSRSItem]], Sequence[float]] = fsrs_rs_parameters
        ) -> Fit | NoFit:
    """Fit FSRS parameters to a log, or say why the log gives none.

    The fit must lie within fsrs's bounds (the scheduler refuses anything else) and beat the
    defaults on the log it came from before it is offered. ``compute`` is fsrs-rs's
    optimizer unless a test gives another.
    """
    histories = training_histories(reviews)
    count = len(histories)
    if count < max(1, min_reviews):
        return NoFit("too_few_reviews", count, min_reviews)
    try:
        fitted = tuple(float(w) for w in compute([fsrs_item(h) for h in histories]))
    except (ValueError, RuntimeError, OverflowError) as error:
        return NoFit("optimizer_failed", count, min_reviews, str(error)[:200])
    refused = out_of_bounds(fitted)
    if refused:
        return NoFit("out_of_bounds", count, min_reviews, "; ".join(refused))
    if all(math.isclose(w, d, rel_tol=1e-6, abs_tol=1e-6)
           for w, d in zip(fitted, DEFAULT_PARAMETERS, strict=True)):
        return NoFit("optimizer_kept_defaults", count, min_reviews)
    fitted_loss = evaluate(fitted, histories)
    default_loss = evaluate(DEFAULT_PARAMETERS, histories)
    if fitted_loss >= default_loss:
        return NoFit("no_better_than_defaults", count, min_reviews)
    return Fit(fitted, count, fitted_loss, default_loss)


def forgetting_curve(parameters: Sequence[float], days: float, stability: float) -> float:
    """Return FSRS-6's recall probability ``days`` after a review, at ``stability``."""
    decay = -parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    return float((1 + factor * days / stability) ** decay)


def predicted_recall(parameters: Sequence[float], history: Sequence[tuple[int, int]]
                     ) -> float:
    """Return the recall probability ``parameters`` predict for a history's last review."""
    model = FSRS(list(parameters))
    memory = model.memory_state(fsrs_item(history[:-1]))
    return forgetting_curve(parameters, history[-1][1], memory.stability)


def read_revlog_csv(text: str) -> list[LoggedReview]:
    """Read a review log in fsrs-optimizer's CSV format (what ``GET /api/export`` writes).

    ``review_time`` is milliseconds since the Unix epoch, UTC; ``review_state`` and
    ``review_duration`` are not needed for fitting and are only checked to be there.
    """
    reader = csv.DictReader(io.StringIO(text))
    missing = [name for name in CSV_COLUMNS if name not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"review log CSV lacks column(s) {', '.join(missing)}")
    reviews = []
    for line, row in enumerate(reader, start=2):
        try:
            rating = int(row["review_rating"])
            if rating not in set(ReviewRating):
                raise ValueError(f"rating {rating} is not 1..4")
            reviews.append(LoggedReview(
                card=int(row["card_id"]),
                reviewed_at=datetime.fromtimestamp(int(row["review_time"]) / 1000, UTC),
                rating=rating))
        except (TypeError, ValueError) as error:
            raise ValueError(f"review log CSV line {line}: {error}") from None
    return reviews
