"""fsrs scheduling: explicit review times, no fuzz, state that round-trips through columns."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from quizsvc.review import scheduling
from quizsvc.review.scheduling import CardState, ReviewRating

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def test_a_new_card_is_due_at_once_in_learning_step_zero():
    card = scheduling.new_card(T0)
    assert card == CardState(state=1, step=0, stability=None, difficulty=None, due=T0,
                             last_review=None)


@pytest.mark.parametrize(("rating", "due_after", "state"), [
    (ReviewRating.AGAIN, timedelta(minutes=1), 1),   # first learning step
    (ReviewRating.HARD, timedelta(minutes=5, seconds=30), 1),  # halfway between the steps
    (ReviewRating.GOOD, timedelta(minutes=10), 1),  # second learning step
    (ReviewRating.EASY, timedelta(days=8), 2),  # straight to Review
])
def test_first_review_schedules_by_rating(rating, due_after, state):
    card = scheduling.review(scheduling.new_card(T0), rating, T0)
    assert card.due - T0 == due_after
    assert card.state == state
    assert card.last_review == T0


def test_good_good_good_follows_the_pinned_schedule():
    card = scheduling.new_card(T0)
    dues = []
    for _ in range(3):
        card = scheduling.review(card, ReviewRating.GOOD, card.due)
        dues.append(card.due)
    assert dues == [T0 + timedelta(minutes=10), T0 + timedelta(days=2, minutes=10),
                    T0 + timedelta(days=13, minutes=10)]


def test_the_same_history_always_gives_the_same_schedule():
    """No fuzz: two replays of one history agree exactly (fsrs would otherwise jitter)."""
    history = [ReviewRating.GOOD, ReviewRating.GOOD, ReviewRating.EASY, ReviewRating.GOOD,
               ReviewRating.AGAIN, ReviewRating.GOOD, ReviewRating.GOOD]

    def replay() -> list[CardState]:
        card, states = scheduling.new_card(T0), []
        for rating in history:
            card = scheduling.review(card, rating, card.due)
            states.append(card)
        return states

    assert replay() == replay()
    assert not scheduling.SCHEDULER.enable_fuzzing


def test_review_times_must_be_aware_utc():
    card = scheduling.new_card(T0)
    with pytest.raises(ValueError, match="UTC"):
        scheduling.review(card, ReviewRating.GOOD, datetime(2026, 11, 2, 9, 0))
    with pytest.raises(ValueError, match="UTC"):
        scheduling.new_card(datetime(2026, 11, 2, 9, 0, tzinfo=timezone(timedelta(hours=8))))


@pytest.mark.parametrize(("correct", "choice", "expected"), [
    (False, None, ReviewRating.AGAIN),
    (False, ReviewRating.AGAIN, ReviewRating.AGAIN),
    (True, None, ReviewRating.GOOD),
    (True, ReviewRating.HARD, ReviewRating.HARD),
    (True, ReviewRating.EASY, ReviewRating.EASY),
])
def test_graded_answers_map_to_ratings(correct, choice, expected):
    assert scheduling.rating_for_grade(correct, choice) is expected


@pytest.mark.parametrize(("correct", "choice"), [
    (False, ReviewRating.GOOD), (False, ReviewRating.EASY), (True, ReviewRating.AGAIN)])
def test_graded_answers_cannot_be_rated_against_their_grade(correct, choice):
    with pytest.raises(ValueError):
        scheduling.rating_for_grade(correct, choice)


def test_rating_names_parse_in_any_case():
    assert ReviewRating.from_word("Hard") is ReviewRating.HARD
    with pytest.raises(KeyError):
        ReviewRating.from_word("perfect")


def test_forecast_counts_overdue_cards_today_and_ignores_the_far_future():
    now = T0
    dues = [now - timedelta(days=3), now, now + timedelta(hours=20),
            now + timedelta(days=29), now + timedelta(days=30)]
    days = scheduling.forecast(dues, now)
    assert len(days) == 30
    assert days[0].day == now.date()
    assert [d.count for d in days[:2]] == [2, 1]
    assert days[29].count == 1
    assert sum(d.count for d in days) == 4


def test_retrievability_is_zero_before_the_first_review_and_falls_with_time():
    card = scheduling.new_card(T0)
    assert scheduling.retrievability(card, T0) == 0
    reviewed = scheduling.review(card, ReviewRating.EASY, T0)
    soon = scheduling.retrievability(reviewed, T0 + timedelta(days=1))
    late = scheduling.retrievability(reviewed, T0 + timedelta(days=30))
    assert 1 > soon > late > 0


# ---------------------------------------------------------------- settings and rescheduling

HISTORY = [(ReviewRating.GOOD, T0), (ReviewRating.GOOD, T0 + timedelta(minutes=10)),
           (ReviewRating.GOOD, T0 + timedelta(days=2, minutes=10)),
           (ReviewRating.AGAIN, T0 + timedelta(days=15)),
           (ReviewRating.GOOD, T0 + timedelta(days=15, minutes=10)),
           (ReviewRating.EASY, T0 + timedelta(days=19))]
# Slower forgetting than fsrs's defaults: larger initial stabilities.
SLOW = scheduling.SchedulerSettings(parameters=(
    1.0, 2.5, 6.0, 20.0, *scheduling.DEFAULT_SETTINGS.parameters[4:]))


def reviewed_one_by_one(settings: scheduling.SchedulerSettings
                        ) -> tuple[list[CardState], CardState]:
    """Review HISTORY the way the service does, one answer at a time."""
    card, before = scheduling.new_card(HISTORY[0][1]), []
    for rating, at in HISTORY:
        before.append(card)
        card = scheduling.review(card, rating, at, settings)
    return before, card


@pytest.mark.parametrize("settings", [scheduling.DEFAULT_SETTINGS, SLOW,
                                      scheduling.SchedulerSettings(desired_retention=0.8)])
def test_rescheduling_a_log_gives_what_reviewing_it_one_by_one_gave(settings):
    before, after = reviewed_one_by_one(settings)
    replayed = scheduling.reschedule(HISTORY, settings)
    assert list(replayed.before) == before
    assert replayed.after == after


def test_new_parameters_reschedule_the_same_log_to_other_states():
    default = scheduling.reschedule(HISTORY, scheduling.DEFAULT_SETTINGS)
    slow = scheduling.reschedule(HISTORY, SLOW)
    assert slow.after.stability > default.after.stability
    assert slow.after.last_review == default.after.last_review == HISTORY[-1][1]
    # The third review (two days in) came while the slow model still put the card ahead.
    assert slow.before[3].due > default.before[3].due


@pytest.mark.parametrize(("retention", "later"), [(0.80, True), (0.97, False)])
def test_desired_retention_moves_only_the_due_date(retention, later):
    at_default = scheduling.reschedule(HISTORY, scheduling.DEFAULT_SETTINGS).after
    other = scheduling.reschedule(
        HISTORY, scheduling.SchedulerSettings(desired_retention=retention)).after
    assert (other.stability, other.difficulty, other.state) == (
        at_default.stability, at_default.difficulty, at_default.state)
    assert (other.due > at_default.due) is later
    assert other.due != at_default.due


def test_settings_are_the_default_ones_unless_told_otherwise():
    card = scheduling.new_card(T0)
    assert (scheduling.review(card, ReviewRating.EASY, T0)
            == scheduling.review(card, ReviewRating.EASY, T0, scheduling.SchedulerSettings()))
    assert scheduling.DEFAULT_SETTINGS.desired_retention == 0.90
    assert scheduling.scheduler_for(SLOW) is scheduling.scheduler_for(
        scheduling.SchedulerSettings(parameters=SLOW.parameters))
    assert not scheduling.scheduler_for(SLOW).enable_fuzzing


@pytest.mark.parametrize("retention", [0.70, 0.85, 0.97])
def test_a_desired_retention_in_range_is_accepted(retention):
    assert scheduling.check_retention(retention) == retention


@pytest.mark.parametrize("retention", [0.69, 0.975, 1.0, 0, -0.9, True, "0.9", None])
def test_a_desired_retention_out_of_range_or_not_a_number_is_refused(retention):
    with pytest.raises(ValueError, match="desired retention"):
        scheduling.check_retention(retention)
    with pytest.raises(ValueError):
        scheduling.SchedulerSettings(desired_retention=retention)


@pytest.mark.parametrize("parameters", [
    (1.0,) * 20, (-1.0, *scheduling.DEFAULT_SETTINGS.parameters[1:])])
def test_parameters_fsrs_would_refuse_are_refused_at_once(parameters):
    with pytest.raises(ValueError):
        scheduling.SchedulerSettings(parameters=parameters)


def test_an_empty_log_has_nothing_to_reschedule():
    with pytest.raises(ValueError, match="no reviews"):
        scheduling.reschedule([], scheduling.DEFAULT_SETTINGS)
