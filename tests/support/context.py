"""Build a use case's ``Context`` for a test browser, as a page of that browser would."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy.orm import Session

from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context, Identity
from quizsvc.study.limits import Limits
from tests.support.history import learner_and_browser


def context_of(browser: Any, db: Session, bank: Any, clock: Any) -> Context:
    """Return the context of the stored browser behind ``browser``'s cookie, its unit of work
    bound to the test's connection (``db``'s)."""
    learner_id, browser_id = learner_and_browser(db, browser)
    return Context(uow=UnitOfWork(bound=db.connection()), bank=bank, index=BankIndex.of(bank),
                   identity=Identity(learner_id=learner_id, browser_id=browser_id),
                   now=clock(), rng=random.Random(7), limits=Limits())
