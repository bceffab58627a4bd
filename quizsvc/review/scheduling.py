"""Schedule reviews with fsrs: explicit review times, no fuzz, state as plain columns.

fsrs 6.3.2 reads the wall clock when a ``Card`` gets no ``due`` or ``card_id`` and fuzzes
intervals with the global random generator; here every call passes the review time and the
scheduler runs with ``enable_fuzzing=False``, so the same history always gives the same
schedule (the tests replay one and compare). ``CardState`` mirrors the ``review_card``
columns so the store never pickles an fsrs object.

Which model schedules is a value too, ``SchedulerSettings``: the 21 FSRS parameters (fsrs's
defaults until ``quizsvc fsrs optimize`` fits the learners' own) and the learner's desired
retention. When either changes, ``reschedule`` replays a card's log under the new settings,
so a card's state is always what its reviews give under the settings in force.

Ratings follow the issue: a wrong graded answer is Again; a right one is Hard, Good or Easy at
the learner's choice (Good by default); flashcards and free-text questions are self-rated
with all four buttons.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from fsrs import Card, Rating, Scheduler, State
from fsrs.scheduler import DEFAULT_PARAMETERS

from quizsvc.review.ratings import ReviewRating

FORECAST_DAYS = 30
DEFAULT_RETENTION = 0.90
# The range FSRS's authors allow: below it forgetting is demoralising, above it the workload
# grows steeply for little gain.
MIN_RETENTION = 0.70
MAX_RETENTION = 0.97


def check_retention(value: object) -> float:
    """Return ``value`` if it is a desired retention the service accepts (0.70-0.97)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"desired retention must be a number, got {value!r}")
    if not MIN_RETENTION <= value <= MAX_RETENTION:
        raise ValueError(f"desired retention must be between {MIN_RETENTION:.2f} and "
                         f"{MAX_RETENTION:.2f}, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class SchedulerSettings:
    """Say which FSRS model schedules a card: its 21 parameters and the desired retention.

    The parameters say how this population (or learner) forgets; the desired retention says
    how likely recall should still be when a card falls due, so it only moves due dates.
    """

    parameters: tuple[float, ...] = tuple(DEFAULT_PARAMETERS)
    desired_retention: float = DEFAULT_RETENTION

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", tuple(float(w) for w in self.parameters))
        check_retention(self.desired_retention)
        scheduler_for(self)  # fsrs refuses parameters out of its bounds: fail here, not later


@lru_cache(maxsize=256)
def scheduler_for(settings: SchedulerSettings) -> Scheduler:
    """Return the fsrs scheduler for ``settings`` (no fuzz), built once per settings."""
    return Scheduler(parameters=settings.parameters,
                     desired_retention=settings.desired_retention, enable_fuzzing=False)


DEFAULT_SETTINGS = SchedulerSettings()
SCHEDULER = scheduler_for(DEFAULT_SETTINGS)


GRADED_CHOICES = frozenset({ReviewRating.HARD, ReviewRating.GOOD, ReviewRating.EASY})


@dataclass(frozen=True)
class CardState:
    """One card's fsrs state, exactly the ``review_card`` columns (``state`` 1..3)."""

    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None


def new_card(now: datetime) -> CardState:
    """Return a card never reviewed, due ``now`` (fsrs's Learning state, step 0)."""
    require_utc(now)
    return CardState(state=int(State.Learning), step=0, stability=None, difficulty=None,
                     due=now, last_review=None)


def require_utc(moment: datetime) -> None:
    """Refuse naive or non-UTC datetimes: fsrs only accepts UTC review times."""
    if moment.tzinfo is None or moment.utcoffset() != timedelta(0):
        raise ValueError(f"expected a timezone-aware UTC datetime, got {moment!r}")


def as_fsrs(card: CardState, card_id: int = 0) -> Card:
    """Build an fsrs ``Card`` from stored state (``card_id`` given so fsrs reads no clock)."""
    return Card(card_id=card_id, state=State(card.state), step=card.step,
                stability=card.stability, difficulty=card.difficulty,
                due=card.due.astimezone(UTC),
                last_review=card.last_review.astimezone(UTC) if card.last_review else None)


def from_fsrs(card: Card) -> CardState:
    """Read an fsrs ``Card`` back into stored state."""
    return CardState(state=int(card.state), step=card.step, stability=card.stability,
                     difficulty=card.difficulty, due=card.due, last_review=card.last_review)


def review(card: CardState, rating: ReviewRating, reviewed_at: datetime,
           settings: SchedulerSettings = DEFAULT_SETTINGS) -> CardState:
    """Return the card after one review at ``reviewed_at`` with ``rating`` under ``settings``."""
    require_utc(reviewed_at)
    updated, _log = scheduler_for(settings).review_card(
        as_fsrs(card), Rating(int(rating)), review_datetime=reviewed_at.astimezone(UTC))
    return from_fsrs(updated)


@dataclass(frozen=True)
class Rescheduled:
    """A card's log replayed: its state before each review, and after the last."""

    before: tuple[CardState, ...]
    after: CardState


def reschedule(history: Sequence[tuple[ReviewRating, datetime]],
               settings: SchedulerSettings) -> Rescheduled:
    """Replay a card's reviews, in the order given, from a new card under ``settings``.

    The card is new at its first review (as when it was created), so replaying a log under
    the settings it was reviewed with gives back exactly the stored states; under new
    parameters or a new desired retention it gives the card as if they had always held.
    """
    if not history:
        raise ValueError("a card with no reviews has nothing to replay")
    card = new_card(history[0][1])
    before: list[CardState] = []
    for rating, reviewed_at in history:
        before.append(card)
        card = review(card, rating, reviewed_at, settings)
    return Rescheduled(tuple(before), card)


def rating_for_grade(correct: bool, choice: ReviewRating | None = None) -> ReviewRating:
    """Return the rating a graded answer earns: Again if wrong, else the choice (Good).

    A wrong answer cannot be rated above Again; a right one cannot be rated Again.
    """
    if not correct:
        if choice not in (None, ReviewRating.AGAIN):
            raise ValueError("a wrong answer is always rated Again")
        return ReviewRating.AGAIN
    if choice is None:
        return ReviewRating.GOOD
    if choice not in GRADED_CHOICES:
        raise ValueError("a right answer is rated Hard, Good or Easy")
    return choice


def is_due(card: CardState, now: datetime) -> bool:
    """Tell whether the card is due at ``now``."""
    return card.due <= now


def retrievability(card: CardState, now: datetime,
                   settings: SchedulerSettings = DEFAULT_SETTINGS) -> float:
    """Return fsrs's predicted recall probability at ``now`` (0 for an unreviewed card)."""
    return float(scheduler_for(settings).get_card_retrievability(as_fsrs(card),
                                                                 current_datetime=now))


@dataclass(frozen=True)
class ForecastDay:
    """How many cards fall due on one UTC day (overdue cards count on the first day)."""

    day: date
    count: int


def forecast(dues: Iterable[datetime], now: datetime, days: int = FORECAST_DAYS
             ) -> list[ForecastDay]:
    """Count cards due on each of the next ``days`` UTC days, starting today.

    Cards already overdue are counted today: that is when the learner will see them.
    """
    require_utc(now)
    today = now.astimezone(UTC).date()
    counts = [0] * days
    for due in dues:
        offset = max(0, (due.astimezone(UTC).date() - today).days)
        if offset < days:
            counts[offset] += 1
    return [ForecastDay(today + timedelta(days=i), n) for i, n in enumerate(counts)]



def day_start(now: datetime) -> datetime:
    """Return the start of ``now``'s day: the UTC day the forecast and due counts use."""
    return datetime.combine(now.astimezone(UTC).date(), datetime.min.time(), UTC)


def tomorrow(now: datetime) -> datetime:
    """Return when the day after ``now``'s starts: a buried item comes back then."""
    return day_start(now) + timedelta(days=1)
