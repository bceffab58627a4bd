"""Name the two rating scales once each: a review's fsrs rating and a learner's self-assessment.

They are different scales and never mix. A ``ReviewRating`` is what one review of a card says
(fsrs's four buttons; the review log stores its number, the API, forms and pages its word). A
``SelfRating`` is how sure a learner says they are of a question or a lesson section, 1 "not
yet" .. 4 "solid"; calibration compares it with their graded answers, and neither it nor
anything it says ever reaches mastery. Each is an ``IntEnum`` with its lowercase words, as
py-fsrs's ``Rating`` is an ``IntEnum``: everything that spells a rating reads it from here.
"""

from __future__ import annotations

from enum import IntEnum


class ReviewRating(IntEnum):
    """The four fsrs buttons, with the numbers fsrs and its optimizer use."""

    AGAIN = 1
    HARD = 2
    GOOD = 3
    EASY = 4

    @property
    def word(self) -> str:
        """Return the rating's word: ``again``, ``hard``, ``good`` or ``easy``."""
        return self.name.lower()

    @classmethod
    def from_word(cls, word: str) -> ReviewRating:
        """Read ``again`` / ``hard`` / ``good`` / ``easy`` (any case; ``KeyError`` else)."""
        return cls[word.upper()]


# Every rating's word, in fsrs's order (the argument schemas accept exactly these).
REVIEW_WORDS: tuple[str, ...] = tuple(rating.word for rating in ReviewRating)


class SelfRating(IntEnum):
    """A learner's own rating of a question or section: how likely they think a right answer
    is, from 1 "not yet" to 4 "solid"."""

    NOT_YET = 1
    SHAKY = 2
    MOSTLY = 3
    SOLID = 4

    @property
    def word(self) -> str:
        """Return the level's word: ``not yet``, ``shaky``, ``mostly`` or ``solid``."""
        return self.name.lower().replace("_", " ")
