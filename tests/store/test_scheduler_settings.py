"""Which settings schedule a learner's card: the newest fit of the most specific scope.

The table below is the rule: a learner's own fit for the card's lesson, else their own for
every lesson, else everyone's for the lesson, else everyone's for every lesson, else fsrs's
defaults; within one scope the newest fit. Another learner's fit, or a fit for another
lesson, never applies.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from quizsvc.review.optimizer import DEFAULT_PARAMETERS, Fit
from quizsvc.review.scheduling import DEFAULT_SETTINGS, SchedulerSettings
from quizsvc.store.models import Learner, LearnerSetting
from tests.support.repos import repos

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
# name: (whose, lesson, days after NOW it was fitted)
FITS = {
    "everyone": (None, None, 1),
    "everyone, later": (None, None, 2),
    "everyone for L": (None, "L", 1),
    "mine": ("me", None, 1),
    "mine for L": ("me", "L", 1),
    "another learner's for L": ("other", "L", 5),
    "everyone for M": (None, "M", 5),
}
NAMES = list(FITS)


def parameters_named(name: str) -> tuple[float, ...]:
    """Return default parameters with ``w0`` telling which fit they are."""
    return (0.3 + 0.05 * NAMES.index(name), *DEFAULT_PARAMETERS[1:])


@pytest.fixture
def learners(db) -> dict[str, int]:
    """Make two learners."""
    ids = {}
    for name in ("me", "other"):
        ids[name] = db.execute(insert(Learner).values(created_at=NOW)).inserted_primary_key[0]
    return ids


def add(db, learners: dict[str, int], name: str) -> None:
    """Store the fit called ``name``."""
    whose, lesson, day = FITS[name]
    repos(db).settings.add_fit(Fit(parameters_named(name), 500, 0.3, 0.35),
                               NOW + timedelta(days=day),
        learner_id=learners[whose] if whose else None, lesson=lesson)


@pytest.mark.parametrize(("stored", "chosen"), [
    ((), None),
    (("everyone",), "everyone"),
    (("everyone", "everyone, later"), "everyone, later"),
    (("everyone, later", "everyone for L"), "everyone for L"),
    (("everyone for L", "mine"), "mine"),
    (("everyone", "everyone for L", "mine", "mine for L"), "mine for L"),
    (("another learner's for L", "everyone for M"), None),
    (("everyone", "another learner's for L", "everyone for M"), "everyone"),
])
def test_the_most_specific_newest_fit_schedules_a_card(db, learners, stored, chosen):
    for name in stored:
        add(db, learners, name)
    settings = repos(db).settings.read_settings(learners["me"], "L")
    record = repos(db).settings.chosen_fit_record(learners["me"], "L")
    if chosen is None:
        assert settings == DEFAULT_SETTINGS
        assert record is None
    else:
        assert settings == SchedulerSettings(parameters=parameters_named(chosen))
        whose, lesson, day = FITS[chosen]
        assert record.learner_id == (learners[whose] if whose else None)
        assert (record.lesson, record.fitted_at) == (lesson, NOW + timedelta(days=day))
        assert (record.review_count, record.log_loss, record.default_log_loss) == (
            500, 0.3, 0.35)


def test_desired_retention_is_the_default_until_the_learner_sets_it(db, learners):
    me = learners["me"]
    assert repos(db).settings.retention_of(me) == 0.90
    repos(db).settings.put_retention(me, 0.8, NOW)
    assert repos(db).settings.retention_of(me) == 0.8
    repos(db).settings.put_retention(me, 0.95, NOW + timedelta(hours=1))
    assert repos(db).settings.retention_of(me) == 0.95
    assert repos(db).settings.retention_of(learners["other"]) == 0.90
    add(db, learners, "everyone")
    assert repos(db).settings.read_settings(me, "L") == SchedulerSettings(
        parameters=parameters_named("everyone"), desired_retention=0.95)


@pytest.mark.parametrize("retention", [0.5, 0.99])
def test_the_database_refuses_a_retention_out_of_range(db, learners, retention):
    with pytest.raises(IntegrityError):
        db.execute(insert(LearnerSetting).values(
            learner_id=learners["me"], desired_retention=retention, updated_at=NOW))
