"""Registering a browser that is already stored yields nothing instead of failing.

Two first writes of one browser can both find no row; the second to insert must not fail on
the unique ``token_hash`` (``register_browser`` returns None, and the caller reads the row the
first stored). The live race is ``tests/reliability/test_first_write_race.py``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import func, select

from quizsvc.store.models import Browser
from tests.support.repos import repos

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)


def test_the_second_registration_of_one_token_stores_nothing_and_says_so(db) -> None:
    first = repos(db).learners.register_browser("a" * 64, NOW)
    assert first is not None
    assert repos(db).learners.register_browser("a" * 64, NOW) is None
    assert repos(db).learners.browser_by_hash("a" * 64) == first
    assert db.scalar(select(func.count()).select_from(Browser)
                     .where(Browser.token_hash == "a" * 64)) == 1


def test_another_token_is_another_browser_of_another_learner(db) -> None:
    one = repos(db).learners.register_browser("b" * 64, NOW)
    two = repos(db).learners.register_browser("c" * 64, NOW)
    assert one is not None and two is not None
    assert one.id != two.id and one.learner_id != two.learner_id
