"""Use-case fixtures: a learner studying through the use cases on the fake unit of work.

``learner`` is a ``tests.support.fake_study.FakeStudy`` on a fresh ``FakeUnitOfWork`` with
the fake bank and the test clock: no app and no database, so these tests run once, not once
per backend. Tests that need the real repositories or the HTTP layer keep the shared fixtures
(``study``, ``browser``, ``db``) of ``tests/conftest.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.fake_study import FakeStudy


@pytest.fixture
def learner(bank: Any, clock: Any) -> FakeStudy:
    """Return a registered learner studying on a fresh fake unit of work."""
    return FakeStudy(bank, clock)
