"""Build a use case's ``Context`` for a test browser, as a page of that browser would, or for
a browser registered straight through a unit of work (a real one, or the fake)."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy.orm import Session

from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context, Identity
from quizsvc.study.limits import Limits
from quizsvc.study.linking import digest
from tests.support.history import learner_and_browser


def context_of(browser: Any, db: Session, bank: Any, clock: Any) -> Context:
    """Return the context of the stored browser behind ``browser``'s cookie, its unit of work
    bound to the test's connection (``db``'s)."""
    learner_id, browser_id = learner_and_browser(db, browser)
    return Context(uow=UnitOfWork(bound=db.connection()), bank=bank, index=BankIndex.of(bank),
                   identity=Identity(learner_id=learner_id, browser_id=browser_id),
                   now=clock(), rng=random.Random(7), limits=Limits())


def registered_context(uow: Any, bank: Any, clock: Any, token: str = "browser-1",
                       seed: int = 7) -> Context:
    """Register a new browser through ``uow``'s learners repository (its first write) and
    return its context at ``clock``'s time; ``replace(ctx, now=clock())`` moves it on."""
    with uow.write():
        row = uow.learners.register_browser(digest(token), clock())
    assert row is not None, "that browser is stored already"
    return Context(uow=uow, bank=bank, index=BankIndex.of(bank),
                   identity=Identity(learner_id=row.learner_id, browser_id=row.id),
                   now=clock(), rng=random.Random(seed), limits=Limits())
