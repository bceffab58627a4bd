"""Simulate learners who forget by known FSRS parameters, studying as the service schedules.

Each simulated learner studies once a day (at 09:00 plus a random quarter of an hour, UTC),
meets a few new cards a day, and reviews every card the service's scheduler has made due by
the end of that session, learning steps included. Two states are kept per card: the one the
service schedules with (``schedule``, fsrs's defaults unless told otherwise) and the learner's
real memory under ``truth``; recall is drawn from the real memory's retrievability with a
seeded ``random.Random``. So the log looks like one the service would record, and the
parameters that generated it are known.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from quizsvc.review import scheduling
from quizsvc.review.item_analysis import FirstAttempt
from quizsvc.review.optimizer import LoggedReview
from quizsvc.review.scheduling import CardState, ReviewRating, SchedulerSettings

START = datetime(2026, 1, 5, tzinfo=UTC)
FIRST_RATINGS = (0.25, 0.20, 0.35, 0.20)  # Again, Hard, Good, Easy when a card is new
RECALLED_RATINGS = (0.10, 0.80, 0.10)  # Hard, Good, Easy when recalled
SESSION = timedelta(hours=1)
BETWEEN_REVIEWS = timedelta(seconds=20)
CARDS_PER_LEARNER = 100_000  # card numbers: learner * CARDS_PER_LEARNER + i, unique when pooled


@dataclass(frozen=True)
class SimulatedReview:
    """One simulated review: the learner, the card (unique over the population), when, how."""

    learner: int
    card: int
    reviewed_at: datetime
    rating: int

    def logged(self) -> LoggedReview:
        """Return the review as the optimizer reads it."""
        return LoggedReview(self.card, self.reviewed_at, self.rating)


@dataclass(frozen=True)
class Population:
    """A group of learners who all forget by ``truth``."""

    truth: SchedulerSettings
    learners: int
    cards: int  # per learner
    days: int
    new_per_day: int = 5


def settings_with(**weights: float) -> SchedulerSettings:
    """Return fsrs's default settings with some parameters changed (``w0=0.6`` ...)."""
    parameters = list(scheduling.DEFAULT_SETTINGS.parameters)
    for name, value in weights.items():
        parameters[int(name[1:])] = value
    return SchedulerSettings(parameters=tuple(parameters))


def simulate(population: Population, rng: random.Random, first_learner: int = 0,
             schedule: SchedulerSettings = scheduling.DEFAULT_SETTINGS,
             start: datetime = START) -> list[SimulatedReview]:
    """Simulate every learner of ``population``, numbered from ``first_learner`` (cards by
    their learner's number, ``CARDS_PER_LEARNER`` apart), so that populations can be pooled."""
    reviews: list[SimulatedReview] = []
    for learner in range(first_learner, first_learner + population.learners):
        reviews.extend(simulate_learner(population, learner, rng, schedule, start))
    return reviews


def simulate_learner(population: Population, learner: int, rng: random.Random,
                     schedule: SchedulerSettings, start: datetime) -> list[SimulatedReview]:
    """Simulate one learner's days of study."""
    scheduled: dict[int, CardState] = {}
    memory: dict[int, CardState] = {}
    reviews: list[SimulatedReview] = []
    first_card = learner * CARDS_PER_LEARNER
    for day in range(population.days):
        begin = start + timedelta(days=day, hours=9, minutes=rng.randrange(15))
        for card in range(first_card + len(scheduled),
                          min(first_card + len(scheduled) + population.new_per_day,
                              first_card + population.cards)):
            scheduled[card] = memory[card] = scheduling.new_card(begin)
        now = begin
        while True:
            due = [(state.due, card) for card, state in scheduled.items()
                   if state.due <= begin + SESSION]
            if not due:
                break
            due_at, card = min(due)
            now = max(now, due_at)
            rating = draw_rating(memory[card], now, population.truth, rng)
            scheduled[card] = scheduling.review(scheduled[card], rating, now, schedule)
            memory[card] = scheduling.review(memory[card], rating, now, population.truth)
            reviews.append(SimulatedReview(learner, card, now, int(rating)))
            now += BETWEEN_REVIEWS
    return reviews


def draw_rating(memory: CardState, now: datetime, truth: SchedulerSettings,
                rng: random.Random) -> ReviewRating:
    """Draw the rating a learner gives: by ``FIRST_RATINGS`` for a new card, otherwise
    recalled with the real memory's retrievability (then Hard, Good or Easy) or Again."""
    if memory.stability is None:
        return rng.choices(tuple(ReviewRating), FIRST_RATINGS)[0]
    if rng.random() < scheduling.retrievability(memory, now, truth):
        return rng.choices((ReviewRating.HARD, ReviewRating.GOOD, ReviewRating.EASY),
                           RECALLED_RATINGS)[0]
    return ReviewRating.AGAIN


def logged(reviews: Sequence[SimulatedReview]) -> list[LoggedReview]:
    """Return simulated reviews as the optimizer reads them."""
    return [review.logged() for review in reviews]


# A class answering questions of known difficulty and discrimination (item analysis).

@dataclass(frozen=True)
class SimulatedItem:
    """A question as the simulation made it: a two-parameter logistic item (IRT's 2PL).

    A learner of skill ``theta`` answers right with probability
    ``1 / (1 + exp(-discrimination * (theta - difficulty)))``; its variant ``hard_variant``
    is ``HARD_VARIANT_STEP`` harder than the others.
    """

    question_id: str
    difficulty: float
    discrimination: float


CLASS_DIFFICULTIES = (-1.5, -0.75, 0.0, 0.75, 1.5)
CLASS_DISCRIMINATIONS = (0.8, 1.6, 2.8, 4.5)
VARIANTS_PER_ITEM = 3
HARD_VARIANT_STEP = 1.0  # the last variant of each question is this much harder


def class_items() -> list[SimulatedItem]:
    """Return 20 items: every difficulty level crossed with every discrimination level."""
    return [SimulatedItem(f"q{i:02d}", difficulty, discrimination)
            for i, (difficulty, discrimination) in enumerate(
                (d, a) for d in CLASS_DIFFICULTIES for a in CLASS_DISCRIMINATIONS)]


def simulate_class(learners: int, items: Sequence[SimulatedItem], rng: random.Random
                   ) -> list[FirstAttempt]:
    """Return each learner's first closed-book answer to one variant of every item.

    Skills are spread evenly over [-2.5, 2.5] (one learner per step), so the class is
    varied on purpose; which variant a learner meets, whether they answer right and how
    long it takes are drawn from ``rng``.
    """
    attempts = []
    for learner in range(learners):
        theta = -2.5 + 5.0 * learner / max(1, learners - 1)
        for item in items:
            variant = rng.randrange(VARIANTS_PER_ITEM)
            difficulty = item.difficulty + (HARD_VARIANT_STEP if variant == VARIANTS_PER_ITEM - 1
                                            else 0.0)
            p_right = 1 / (1 + math.exp(-item.discrimination * (theta - difficulty)))
            attempts.append(FirstAttempt(
                learner_id=learner + 1, question_id=item.question_id,
                variant=f"{item.question_id}/v{variant}", seed=variant,
                correct=rng.random() < p_right,
                duration_ms=int(rng.lognormvariate(10.0, 0.4))))
    return attempts
