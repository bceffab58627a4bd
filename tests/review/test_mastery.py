"""The mastery policy: two right closed-book answers, different variants, different days."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizsvc.review.mastery import (
    POLICY,
    GradedAttempt,
    evaluate,
    partner_possible,
    variant_identity,
)

DAY1 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def attempt(n: int, *, seed: int = 0, at: datetime = DAY1, correct: bool = True,
            closed: bool = True) -> GradedAttempt:
    return GradedAttempt(n, f"content-{seed}", at, correct, closed)


NEXT_DAY = DAY1 + timedelta(days=1)

# (history, mastered, evidence) -- the table is the policy's documentation.
CASES = [
    ([], False, ()),
    ([attempt(1)], False, ()),
    ([attempt(1, seed=1), attempt(2, seed=2, at=NEXT_DAY)], True, (1, 2)),
    # the same variant twice is recall of one set of numbers
    ([attempt(1, seed=1), attempt(2, seed=1, at=NEXT_DAY)], False, ()),
    # the same day is not spaced
    ([attempt(1, seed=1), attempt(2, seed=2, at=DAY1 + timedelta(hours=10))], False, ()),
    # different UTC days but only two minutes apart across midnight
    ([attempt(1, seed=1, at=datetime(2026, 11, 2, 23, 59, tzinfo=UTC)),
      attempt(2, seed=2, at=datetime(2026, 11, 3, 0, 1, tzinfo=UTC))], False, ()),
    # open-book right answers count for nothing
    ([attempt(1, seed=1, closed=False), attempt(2, seed=2, at=NEXT_DAY)], False, ()),
    ([attempt(1, seed=1), attempt(2, seed=2, at=NEXT_DAY, closed=False)], False, ()),
    # ...but do not break a run either
    ([attempt(1, seed=1), attempt(2, seed=3, closed=False, at=DAY1 + timedelta(hours=1)),
      attempt(3, seed=2, at=NEXT_DAY)], True, (1, 3)),
    # a wrong answer in between resets the run
    ([attempt(1, seed=1), attempt(2, seed=3, correct=False, at=DAY1 + timedelta(hours=1)),
      attempt(3, seed=2, at=NEXT_DAY)], False, ()),
    # a wrong answer after mastery lapses it
    ([attempt(1, seed=1), attempt(2, seed=2, at=NEXT_DAY),
      attempt(3, seed=3, correct=False, at=NEXT_DAY + timedelta(days=3))], False, ()),
    # an open-book wrong answer resets too: a wrong answer is a wrong answer
    ([attempt(1, seed=1), attempt(2, seed=3, correct=False, closed=False,
                                  at=DAY1 + timedelta(hours=1)),
      attempt(3, seed=2, at=NEXT_DAY)], False, ()),
    # the evidence is the earliest partner of the completing answer
    ([attempt(1, seed=1), attempt(2, seed=2, at=DAY1 + timedelta(hours=1)),
      attempt(3, seed=3, at=NEXT_DAY)], True, (1, 3)),
]


@pytest.mark.parametrize(("history", "mastered", "evidence"), CASES)
def test_policy_table(history, mastered, evidence):
    verdict = evaluate(history)
    assert verdict.mastered is mastered
    assert verdict.evidence == evidence
    assert (verdict.mastered_at is not None) is mastered


def test_mastered_at_is_when_the_second_answer_was_given():
    verdict = evaluate([attempt(1, seed=1), attempt(2, seed=2, at=NEXT_DAY)])
    assert verdict.mastered_at == NEXT_DAY


def test_a_lapsed_question_remembers_it_was_mastered():
    verdict = evaluate([attempt(1, seed=1), attempt(2, seed=2, at=NEXT_DAY),
                        attempt(3, seed=3, correct=False, at=NEXT_DAY + timedelta(days=1))])
    assert not verdict.mastered and verdict.ever_mastered


def test_a_different_bank_version_is_a_different_variant_where_content_is_unknown():
    first = GradedAttempt(1, variant_identity(None, 7, "v1"), DAY1, True, True)
    second = GradedAttempt(2, variant_identity(None, 7, "v2"), NEXT_DAY, True, True)
    assert evaluate([first, second]).mastered


def test_two_seeds_that_ask_the_same_thing_are_one_variant():
    first = GradedAttempt(1, variant_identity("same-content", 7, "v1"), DAY1, True, True)
    second = GradedAttempt(2, variant_identity("same-content", 8, "v1"), NEXT_DAY, True, True)
    assert not evaluate([first, second]).mastered


def test_the_order_of_the_input_does_not_matter():
    history = [attempt(1, seed=1), attempt(2, seed=2, at=NEXT_DAY)]
    assert evaluate(list(reversed(history))) == evaluate(history)


def test_policy_has_a_name_for_the_records():
    assert POLICY == "spaced-closed-book/3"


histories = st.lists(
    st.builds(lambda n, seed, hours, correct, closed: GradedAttempt(
        n, f"content-{seed}", DAY1 + timedelta(hours=hours), correct, closed),
        st.integers(1, 10_000), st.integers(0, 3), st.integers(0, 24 * 6), st.booleans(),
        st.booleans()),
    max_size=12)


@given(histories)
def test_mastery_needs_two_spaced_right_closed_book_answers_after_the_last_wrong_one(history):
    verdict = evaluate(history)
    ordered = sorted(history, key=lambda a: (a.submitted_at, a.attempt_id))
    last_wrong = max((i for i, a in enumerate(ordered) if not a.correct), default=-1)
    run = [a for a in ordered[last_wrong + 1:] if a.closed_book]
    expected = any(a.variant != b.variant and a.submitted_at.date() != b.submitted_at.date()
                   and abs(a.submitted_at - b.submitted_at) >= timedelta(hours=12)
                   for i, a in enumerate(run) for b in run[i + 1:])
    assert verdict.mastered is expected
    if verdict.mastered:
        ids = {a.attempt_id for a in run}
        assert set(verdict.evidence) <= ids


def right_closed_book_span(history):
    """First and last submission of the history's right closed-book answers (None: none)."""
    times = [a.submitted_at for a in history if a.correct and a.closed_book]
    return (min(times), max(times)) if times else None


@given(histories, st.integers(0, 24 * 6), st.integers(0, 3))
def test_an_answer_with_no_possible_partner_cannot_master_the_question(history, hours, seed):
    """What lets the answer path skip reading the history: ``partner_possible`` False means
    a new right closed-book answer leaves an unmastered question unmastered."""
    if evaluate(history).mastered:
        return
    new = GradedAttempt(20_000, f"content-{seed}", DAY1 + timedelta(hours=hours), True, True)
    if not partner_possible(right_closed_book_span(history), new.submitted_at):
        assert not evaluate([*history, new]).mastered


def test_partner_possible_reads_the_spacing_both_ways():
    span = (DAY1, DAY1 + timedelta(hours=2))
    assert not partner_possible(None, DAY1)
    assert not partner_possible(span, DAY1 + timedelta(hours=11, minutes=59))
    assert partner_possible(span, DAY1 + timedelta(hours=12))
    # a clock set back: an earlier answer stamped 12 h after this one can still pair with it
    assert partner_possible(span, DAY1 - timedelta(hours=10))
    assert not partner_possible(span, DAY1 - timedelta(hours=9, minutes=59))
