"""Carry what every use case needs: the session, the bank, who is asking, the clock, the dice.

Service functions take a ``Context`` instead of reading Flask globals, the wall clock or the
global random generator, so they run the same from a JSON view, a server-rendered page, the
CLI or a test with a fixed ``now`` and a seeded ``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session


@dataclass(frozen=True)
class Identity:
    """Name the browser making a request and the learner it belongs to."""

    learner_id: int
    browser_id: int


@dataclass(frozen=True)
class Context:
    """Hold one use case's collaborators; build it with ``quizsvc.api.identity.current_context``.

    ``now`` is timezone-aware UTC; ``rng`` draws variant seeds; ``bank_source`` returns the
    loaded ``quizsvc.bank.Bank`` (or any object with the same methods), called only by the
    use cases that need questions; ``session_source`` returns the request's ORM session,
    called only by the use cases that use one (a plain graded answer runs on a driver
    connection and never opens a session).
    """

    session_source: Callable[[], Session]
    bank_source: Callable[[], Any]
    identity: Identity
    now: datetime
    rng: random.Random
    config: Mapping[str, Any] = field(default_factory=dict)

    @property
    def session(self) -> Session:
        """Return the ORM session (the same one on every call)."""
        return self.session_source()

    @property
    def bank(self) -> Any:
        """Return the question bank."""
        return self.bank_source()

    @property
    def learner_id(self) -> int:
        """Return the learner on whose behalf this use case runs."""
        return self.identity.learner_id

    @property
    def browser_id(self) -> int:
        """Return the browser making the request (self-assessments are per browser)."""
        return self.identity.browser_id
