"""Build a use case's ``Context`` for a test browser, as a page of that browser would."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy.orm import Session

from quizsvc.store import learners
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context, Identity
from quizsvc.study.limits import Limits
from quizsvc.study.linking import digest


def context_of(browser: Any, db: Session, bank: Any, clock: Any) -> Context:
    """Return the context of the stored browser behind ``browser``'s cookie."""
    row = learners.browser_by_hash(db, digest(browser.client.get_cookie("quizsvc_browser").value))
    assert row is not None, "the browser has stored nothing yet"
    return Context(db=db, bank=bank, index=BankIndex.of(bank),
                   identity=Identity(learner_id=row.learner_id, browser_id=row.id),
                   now=clock(), rng=random.Random(7), limits=Limits())
