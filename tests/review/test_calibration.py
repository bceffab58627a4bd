"""Calibration: self-assessments read as probabilities, scored against graded results."""

from __future__ import annotations

import pytest

from quizsvc.review.calibration import calibrate, predicted_probability


@pytest.mark.parametrize(("rating", "p"), [(1, 0.0), (2, 1 / 3), (3, 2 / 3), (4, 1.0)])
def test_ratings_map_to_probabilities(rating, p):
    assert predicted_probability(rating) == pytest.approx(p)


def test_rating_outside_one_to_four_is_refused():
    with pytest.raises(ValueError):
        predicted_probability(5)


def test_no_pairs_means_no_score():
    result = calibrate([])
    assert result.pairs == 0 and result.brier is None
    assert [row.observed for row in result.table] == [None, None, None, None]


def test_perfect_confidence_that_is_right_scores_zero():
    assert calibrate([(4, True), (1, False)]).brier == 0


def test_brier_is_the_mean_squared_gap():
    # (1 - 1)^2 + (1 - 0)^2 + (1/3 - 1)^2 = 0 + 1 + 4/9, over 3
    result = calibrate([(4, True), (4, False), (2, True)])
    assert result.brier == pytest.approx((1 + 4 / 9) / 3)
    by_rating = {row.rating: row for row in result.table}
    assert by_rating[4].attempts == 2 and by_rating[4].observed == 0.5
    assert by_rating[2].attempts == 1 and by_rating[2].observed == 1.0
    assert by_rating[3].attempts == 0 and by_rating[3].observed is None
