"""Two rating scales, each spelled once: fsrs's review ratings and the self-assessment levels."""

from __future__ import annotations

import pytest
from fsrs import Rating

from quizsvc.review.ratings import REVIEW_WORDS, ReviewRating, SelfRating


def test_a_review_rating_is_fsrs_rating_by_number_and_a_lowercase_word():
    assert [(int(r), r.word) for r in ReviewRating] == [
        (1, "again"), (2, "hard"), (3, "good"), (4, "easy")]
    assert [int(r) for r in ReviewRating] == [int(r) for r in Rating]
    assert REVIEW_WORDS == ("again", "hard", "good", "easy")


@pytest.mark.parametrize("rating", list(ReviewRating))
def test_a_review_ratings_word_reads_back_as_the_rating(rating):
    assert ReviewRating.from_word(rating.word) is rating
    assert ReviewRating.from_word(rating.word.title()) is rating


def test_a_self_rating_is_its_own_scale_with_its_own_words():
    assert [(int(r), r.word) for r in SelfRating] == [
        (1, "not yet"), (2, "shaky"), (3, "mostly"), (4, "solid")]
    assert not set(REVIEW_WORDS) & {r.word for r in SelfRating}


def test_every_rating_has_its_word_on_the_pages():
    from quizsvc.web import labels

    assert list(labels.RATINGS) == list(REVIEW_WORDS)
    assert {r.word: int(r) for r in ReviewRating} == labels.RATING_KEYS
    assert list(labels.SELF_RATINGS) == list(SelfRating)
