"""Walk the closed-book flow through the use cases on the fake unit of work: no app, no database.

``FakeStudy`` is ``tests.support.browsers.Study`` one layer in: it calls the use cases
(``quizsvc.study``) with a ``Context`` at the test clock's time, on a ``FakeUnitOfWork``
whose rows a test reads back with ``rows``. Use-case tests run on it; what the repositories
do on a real database is ``tests/store``'s business (``test_fake_contract.py`` holds the
fake to it).
"""

from __future__ import annotations

import dataclasses
import zlib
from typing import Any

from quizsvc.review.ratings import ReviewRating
from quizsvc.study import answering, lessons, reviews, serving, sessions
from quizsvc.study.answering import AttemptView
from quizsvc.study.context import Context
from quizsvc.study.serving import NextItem
from quizsvc.study.sessions import Mode, SessionView
from tests.support.browsers import wrong_answer
from tests.support.context import registered_context
from tests.support.fake_tables import Row
from tests.support.fake_uow import FakeUnitOfWork


class FakeStudy:
    """One learner's browser, studying through the use cases on a fake unit of work."""

    def __init__(self, bank: Any, clock: Any, uow: FakeUnitOfWork | None = None,
                 token: str = "browser-1") -> None:
        """Register a new browser (``token``) on ``uow`` (a fresh fake if None); its random
        source is seeded from the token, so two browsers draw different ids."""
        self.bank = bank
        self.clock = clock
        self.uow = uow if uow is not None else FakeUnitOfWork()
        self.first = registered_context(self.uow, bank, clock, token=token,
                                        seed=zlib.crc32(token.encode()))
        self.keys = 0

    @property
    def ctx(self) -> Context:
        """Return the learner's context at the clock's time (its random source carries on)."""
        return dataclasses.replace(self.first, now=self.clock())

    @property
    def learner_id(self) -> int:
        """Return the learner's id."""
        return self.first.learner_id

    def another(self, token: str) -> FakeStudy:
        """Return another learner's browser on the same rows."""
        return FakeStudy(self.bank, self.clock, self.uow, token=token)

    def start(self, lesson: str, mode: Mode = "review", size: int = 10) -> SessionView:
        """Start a session."""
        return sessions.start_session(self.ctx, lesson, mode, size)

    def next(self, session_id: str) -> NextItem:
        """Serve the session's next question."""
        return serving.next_question(self.ctx, session_id)

    def variant(self, variant_id: str) -> Any:
        """Rebuild a served variant from its stored seed (the learner never sees it)."""
        served = self.row("served_variant", variant_id)
        return self.bank.variant(served["question_id"], served["seed"])

    def right_answer(self, variant_id: str) -> Any:
        """Return the correct answer of a served variant."""
        return self.variant(variant_id).answer

    def wrong_answer(self, variant_id: str) -> Any:
        """Return a parseable wrong answer of a served variant."""
        return wrong_answer(self.variant(variant_id))

    def answer(self, variant_id: str, answer: Any, key: str | None = None) -> AttemptView:
        """Answer a served variant with a fresh (or given) idempotency key."""
        self.keys += 1
        return answering.submit(self.ctx, variant_id, answer, key or f"key-{self.keys}")

    def explain(self, attempt_id: int, explanation: str, rule: str | None = None
                ) -> AttemptView:
        """Say why a wrong answer was wrong (which reveals it): a sentence and a rule the
        attempt offers (the first, unless given)."""
        if rule is None:
            offered = answering.get_attempt(self.ctx, attempt_id).diagnosis_options
            rule = offered[0].id if offered else None
        return answering.explain_attempt(self.ctx, attempt_id, explanation, rule)

    def rate(self, attempt_id: int, rating: str) -> AttemptView:
        """Rate an attempt's review."""
        return reviews.rate_attempt(self.ctx, attempt_id, ReviewRating.from_word(rating))

    def open_book(self, lesson: str | None) -> int:
        """Open the book (the lesson) while questions are open; return how many turned
        open-book."""
        return lessons.open_the_book(self.ctx, lesson)

    def row(self, table: str, key: Any) -> Row:
        """Return one stored row by primary key (a test's look behind the repositories)."""
        found = self.uow.tables.get(table, key)
        assert found is not None, (table, key)
        return found

    def rows(self, table: str, **equal: Any) -> list[Row]:
        """Return the stored rows of ``table`` whose columns equal ``equal``, by id."""
        return self.uow.tables.select(table, lambda row: all(row[name] == value
                                                             for name, value in equal.items()))
