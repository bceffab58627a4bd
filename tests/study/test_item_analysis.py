"""The item-analysis use case over a stored simulated class, on SQLite and PostgreSQL: the
query, the analysis and the report agree with the order the simulation made."""

from __future__ import annotations

import hashlib
import random
import statistics
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import insert

from quizsvc.bank import read_bank
from quizsvc.bank.catalog import DEFAULT_BANK_DIR
from quizsvc.memo import Memo
from quizsvc.store.models import Attempt, Learner, ServedVariant, table
from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study.bank_index import BankIndex
from quizsvc.study.context import Context
from quizsvc.study.item_analysis import item_analysis_report, scope_questions
from quizsvc.study.limits import Limits
from tests.support.population import CLASS_DIFFICULTIES, SimulatedItem, simulate_class

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
LESSON = "vllm-v1-ledger"


@pytest.fixture(scope="module")
def real_bank() -> Any:
    return read_bank(DEFAULT_BANK_DIR)


def simulated_items(question_ids: list[str]) -> list[SimulatedItem]:
    """Return the simulation's 20 items on the first 20 of ``question_ids``, easiest first."""
    return [SimulatedItem(q, difficulty, 2.0) for q, difficulty in zip(
        question_ids[:20], [d for d in CLASS_DIFFICULTIES for _ in range(4)], strict=True)]


def store_class(connection: Any, attempts: list[Any], lesson: str, prefix: str = "sim"
                ) -> dict[int, int]:
    """Store simulated first answers (a learner, a served variant and an attempt each);
    return the simulation's learner numbers -> stored learner ids."""
    learners = {}
    for number in sorted({a.learner_id for a in attempts}):
        learners[number] = connection.execute(
            insert(table(Learner)).values(created_at=T0).returning(table(Learner).c.id)
        ).scalar_one()
    variants, rows = [], []
    for n, a in enumerate(attempts):
        served = T0 + timedelta(minutes=n)
        common = {"learner_id": learners[a.learner_id], "question_id": a.question_id,
                  "lesson": lesson, "kind": "numeric", "seed": a.seed, "bank_version": "sim",
                  "content_key": hashlib.md5(a.variant.encode()).hexdigest()}
        variants.append({**common, "id": f"{prefix}{n}", "served_at": served, "answered": True,
                         "open_book": False})
        rows.append({**common, "variant_id": f"{prefix}{n}", "answer": 0, "graded": True,
                     "correct": a.correct, "score": float(a.correct), "served_at": served,
                     "submitted_at": served + timedelta(milliseconds=a.duration_ms),
                     "duration_ms": a.duration_ms, "closed_book": True,
                     "idempotency_key": f"{prefix}-k{n}", "request_digest": "0" * 64})
    connection.execute(insert(table(ServedVariant)), variants)
    connection.execute(insert(table(Attempt)), rows)
    return learners


def test_a_stored_simulated_class_comes_out_in_the_simulations_order(connection, real_bank):
    index = BankIndex.of(real_bank)
    questions = [q.id for q in scope_questions(index, LESSON)]
    items = simulated_items(questions)
    attempts = simulate_class(40, items, random.Random(11))
    learners = store_class(connection, attempts, LESSON)
    ctx = Context(uow=UnitOfWork(bound=connection), bank=real_bank, index=index,
                  identity=None, now=T0, rng=random.Random(1), limits=Limits(), memo=Memo())
    report = item_analysis_report(ctx, LESSON)
    assert (report.learners, report.answers) == (40, 800)
    stats = {row.stats.question_id: row.stats for row in report.items}
    by_level = [statistics.mean(stats[i.question_id].facility for i in items
                                if i.difficulty == level) for level in CLASS_DIFFICULTIES]
    assert by_level == sorted(by_level, reverse=True), by_level
    assert all(stats[i.question_id].discrimination.learners == 40 for i in items)
    assert all(stats[i.question_id].discrimination.index > 0 for i in items)
    # A cohort's scope: only its learners.
    half = frozenset(learners[n] for n in range(1, 21))
    assert item_analysis_report(ctx, LESSON, half).learners == 20
