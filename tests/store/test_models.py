"""Stored datetimes are timezone-aware UTC on both backends; naive ones are refused."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy.exc import StatementError

from quizsvc.store.models import Learner


def test_datetimes_come_back_as_utc(db):
    beijing = datetime(2026, 11, 2, 17, 0, tzinfo=timezone(timedelta(hours=8)))
    learner = Learner(created_at=beijing)
    db.add(learner)
    db.commit()
    db.expire_all()
    stored = db.get(Learner, learner.id).created_at
    assert stored == beijing
    assert stored.tzinfo == UTC and stored.hour == 9


def test_naive_datetimes_are_refused(db):
    db.add(Learner(created_at=datetime(2026, 11, 2, 9, 0)))
    with pytest.raises(StatementError, match="naive datetime"):
        db.flush()
