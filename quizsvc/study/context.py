"""Carry what every use case needs: the unit of work, the bank, who asks, the clock, the dice.

Use cases take a ``Context`` instead of reading Flask globals, the wall clock or the global
random generator, so they run the same from a JSON view, a server-rendered page, the CLI or a
test with a fixed ``now`` and a seeded ``rng``. ``uow`` is the unit of work
(``quizsvc.store.unit_of_work``): its repositories, and the transaction shapes a use case
names; a use case never commits or rolls back.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from quizsvc.bank.teaching import Teaching
from quizsvc.memo import Memo
from quizsvc.pool import HEAVY, JobRuntime, WorkPool, run_inline
from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.limits import Limits

T = TypeVar("T")


@dataclass(frozen=True)
class Identity:
    """Name the browser making a request and the learner it belongs to."""

    learner_id: int
    browser_id: int


@dataclass(frozen=True)
class Context:
    """Hold one use case's collaborators (``quizsvc.http.context.current_context`` builds one).

    ``identity`` is None for a browser that has stored nothing yet: it is registered by its
    first state-changing request, so read-only use cases see an empty history for it. ``now``
    is timezone-aware UTC; ``rng`` draws variant seeds and opaque ids; ``secret_key`` signs
    and seals what this deployment vouches for (``quizsvc.study.seal``).
    """

    uow: UnitOfWork
    bank: Teaching
    index: BankIndex
    identity: Identity | None
    now: datetime
    rng: random.Random
    limits: Limits
    secret_key: str = ""
    pool: WorkPool | None = None  # where costly work runs (None: inline, on this thread)
    memo: Memo | None = None  # the app's kept values (None: keep nothing)

    def costly(self, timeout: float, job: Callable[..., T], *args: Any,
               lane: str = HEAVY) -> T:
        """Run ``job(*args)`` where costly work runs: the pool's ``lane``, else inline on
        this thread with this context's bank, unit of work and key lent to it
        (``quizsvc.pool``)."""
        if self.pool is not None:
            return self.pool.run(timeout, job, *args, lane=lane)
        runtime = JobRuntime(self.bank, self.index, self.uow.fresh, self.secret_key,
                             self.limits)
        return run_inline(runtime, timeout, job, *args)

    @property
    def learner_id(self) -> int:
        """Return the learner on whose behalf a writing use case runs."""
        return self.registered.learner_id

    @property
    def browser_id(self) -> int:
        """Return the browser making the request (self-assessments are per browser)."""
        return self.registered.browser_id

    @property
    def registered(self) -> Identity:
        """Return the identity, which every state-changing request has (the http layer
        registers the browser before any use case that writes)."""
        if self.identity is None:
            raise RuntimeError("this use case needs a registered browser")
        return self.identity
