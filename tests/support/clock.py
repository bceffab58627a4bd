"""A clock the tests move by hand: use cases never read the wall clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)  # a Monday morning, UTC


@dataclass
class FakeClock:
    """A clock the tests move by hand (services never read the wall clock)."""

    now: datetime = field(default_factory=lambda: START)

    def __call__(self) -> datetime:
        """Return the current fake time."""
        return self.now

    def advance(self, **delta: float) -> datetime:
        """Move the clock forward by ``timedelta(**delta)`` and return the new time."""
        self.now += timedelta(**delta)
        return self.now
