"""A request's session is closed at teardown, after the response is made: a connection the
database dropped (an outage) is discarded there, never raised to the WSGI server, which would
answer its own bare 500 page in place of the service's 503."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from quizsvc.store.database import close_quietly


class DroppedConnectionSession:
    """A session whose close fails the way a rollback on a dropped connection does."""

    def __init__(self) -> None:
        self.invalidated = False

    def close(self) -> None:
        raise OperationalError("ROLLBACK", {}, Exception("the connection is closed"))

    def invalidate(self) -> None:
        self.invalidated = True


class HealthySession:
    """A session that closes."""

    closed = False

    def close(self) -> None:
        self.closed = True

    def invalidate(self) -> None:  # pragma: no cover - must not be called
        raise AssertionError("a healthy session is closed, not invalidated")


def test_a_session_whose_connection_dropped_is_discarded_not_raised(
        caplog: pytest.LogCaptureFixture) -> None:
    session: Any = DroppedConnectionSession()
    close_quietly(session)
    assert session.invalidated
    assert "discarding a database connection" in caplog.text


def test_a_healthy_session_is_simply_closed() -> None:
    session: Any = HealthySession()
    close_quietly(session)
    assert session.closed


def test_a_bug_at_close_is_not_swallowed() -> None:
    class Broken(HealthySession):
        def close(self) -> None:
            raise RuntimeError("a bug, not an outage")

    with pytest.raises(RuntimeError):
        close_quietly(Broken())
