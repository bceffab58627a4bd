"""Compare self-assessments with graded accuracy: a Brier score and a reliability table.

A self-assessment (``ratings.SelfRating``: 1 "not yet" .. 4 "solid") is read as a predicted
probability of answering right: 0, 1/3, 2/3, 1. Each graded attempt on a self-assessed
question is one (prediction, outcome) pair. Computed on read: this module reads both records
and writes neither, and the mastery policy never sees its result.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from quizsvc.review.ratings import SelfRating


def predicted_probability(rating: int) -> float:
    """Map a self-assessment rating 1..4 to the probability it claims: (rating - 1) / 3."""
    if rating not in set(SelfRating):
        raise ValueError(f"rating must be 1..4, got {rating!r}")
    return (rating - 1) / 3


@dataclass(frozen=True)
class ReliabilityRow:
    """One rating's row: what it predicts and what the graded answers showed."""

    rating: int
    predicted: float
    attempts: int
    observed: float | None  # accuracy over those attempts; None when there are none


@dataclass(frozen=True)
class Calibration:
    """How well self-assessments predict graded results."""

    pairs: int
    brier: float | None  # mean squared gap; 0 is perfect, None without pairs
    table: tuple[ReliabilityRow, ...]


def calibrate(pairs: Iterable[tuple[int, bool]]) -> Calibration:
    """Return the Brier score and reliability table of (rating, correct) pairs."""
    totals = {int(rating): [0, 0] for rating in SelfRating}  # rating -> [attempts, correct]
    squared = 0.0
    count = 0
    for rating, correct in pairs:
        p = predicted_probability(rating)
        squared += (p - (1.0 if correct else 0.0)) ** 2
        count += 1
        totals[rating][0] += 1
        totals[rating][1] += int(bool(correct))
    table = tuple(
        ReliabilityRow(rating, predicted_probability(rating), n,
                       (right / n) if n else None)
        for rating, (n, right) in totals.items())
    return Calibration(pairs=count, brier=(squared / count) if count else None, table=table)


# Brier scores of self-assessments against graded results, read in words: 0.25 is what a
# learner who always says "50:50" gets, so below 0.1 the ratings tell a lot, above 0.25 little.
WELL_CALIBRATED = 0.1
FAIRLY_CALIBRATED = 0.25
MIN_ROW_ATTEMPTS = 3
OVERCONFIDENCE = 0.15


@dataclass(frozen=True)
class CalibrationInWords:
    """What the calibration says, for a sentence: a verdict and the rating trusted most
    wrongly (the one whose graded results fall furthest below what it claims)."""

    verdict: str | None  # "well" | "fairly" | "poorly"; None before any pair
    overconfident: ReliabilityRow | None


def in_words(result: Calibration) -> CalibrationInWords:
    """Read a calibration for the learner: how well their ratings predict, and where they
    claim most above what they get (a rating with at least ``MIN_ROW_ATTEMPTS`` answers)."""
    if result.brier is None:
        return CalibrationInWords(None, None)
    verdict = ("well" if result.brier < WELL_CALIBRATED
               else "fairly" if result.brier < FAIRLY_CALIBRATED else "poorly")
    rows = [row for row in result.table if row.attempts >= MIN_ROW_ATTEMPTS
            and row.observed is not None and row.predicted - row.observed > OVERCONFIDENCE]
    worst = max(rows, key=lambda row: row.predicted - (row.observed or 0.0), default=None)
    return CalibrationInWords(verdict, worst)
