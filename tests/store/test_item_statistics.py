"""The item-analysis query: first counted answer per learner and variant, on both databases."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from quizsvc.store.models import Attempt, Learner, ServedVariant
from tests.support.repos import repos

T0 = datetime(2026, 3, 2, 9, tzinfo=UTC)
_ids = itertools.count(1)


def learner(db: Any) -> int:
    row = Learner(created_at=T0)
    db.add(row)
    db.flush()
    return row.id


def answered(db: Any, learner_id: int, question: str, correct: bool, minute: int,
             content: str | None = "c1", seed: int = 1, closed_book: bool = True,
             graded: bool = True, practice: bool = False, misconception: str | None = None,
             explained: bool = False) -> None:
    n = next(_ids)
    served = T0 + timedelta(minutes=minute)
    db.add(ServedVariant(id=f"v{n}", learner_id=learner_id, question_id=question, lesson="l",
                         kind="numeric", seed=seed, bank_version="b1", served_at=served,
                         answered=True, open_book=not closed_book, content_key=content))
    db.flush()
    db.add(Attempt(learner_id=learner_id, variant_id=f"v{n}", question_id=question, lesson="l",
                   kind="numeric", seed=seed, bank_version="b1", answer=1, graded=graded,
                   correct=correct, score=float(correct), misconception_id=misconception,
                   served_at=served, submitted_at=served + timedelta(seconds=30),
                   duration_ms=30_000, closed_book=closed_book,
                   explanation="because" if explained else None,
                   explained_at=served if explained else None, idempotency_key=f"k{n}",
                   request_digest="0" * 64, practice=practice,
                   origin="graded" if graded else "unverified", content_key=content))
    db.flush()


def test_only_the_first_closed_book_graded_answer_to_each_variant_counts(db):
    one = learner(db)
    answered(db, one, "qa", False, 0, misconception="m1", explained=True)
    answered(db, one, "qa", True, 10)  # the same content again: recalls, not counted
    answered(db, one, "qa", True, 20, content="c2", seed=2)  # another content: counted
    answered(db, one, "qa", True, 30, content="c3", closed_book=False)  # open book
    answered(db, one, "qa", True, 40, content="c4", closed_book=False, practice=True)
    answered(db, one, "qa", False, 50, content="c5", graded=False)  # unverified import
    answered(db, one, "qz", True, 60)  # out of scope
    found = repos(db).item_statistics.first_closed_book(None, ["qa"])
    assert sorted((a.variant, a.correct) for a in found) == [("c1", False), ("c2", True)]
    first = next(a for a in found if a.variant == "c1")
    assert (first.misconception_id, first.explained, first.duration_ms) == ("m1", True, 30_000)
    assert first.diagnosed_rule is None


def test_variants_without_content_keys_are_told_apart_by_seed(db):
    one = learner(db)
    answered(db, one, "qa", True, 0, content=None, seed=5)
    answered(db, one, "qa", False, 10, content=None, seed=5)
    answered(db, one, "qa", False, 20, content=None, seed=6)
    found = repos(db).item_statistics.first_closed_book(None, ["qa"])
    assert sorted((a.variant, a.correct) for a in found) == [
        ("seed:5@b1", True), ("seed:6@b1", False)]


def test_a_group_scope_reads_only_its_learners(db):
    one, two = learner(db), learner(db)
    answered(db, one, "qa", True, 0)
    answered(db, two, "qa", False, 0)
    statistics = repos(db).item_statistics
    assert [a.learner_id for a in statistics.first_closed_book(frozenset({two}), ["qa"])] == [two]
    assert statistics.first_closed_book(frozenset(), ["qa"]) == []
    assert len(statistics.first_closed_book(None, ["qa"])) == 2


def test_latest_changes_with_a_new_answer_and_with_an_erased_one(db):
    one, two = learner(db), learner(db)
    statistics = repos(db).item_statistics
    assert statistics.latest(None, ["qa"]) == (0, 0)
    answered(db, one, "qa", True, 0)
    answered(db, two, "qa", True, 0)
    newest, count = statistics.latest(None, ["qa"])
    assert count == 2
    db.query(Attempt).filter(Attempt.learner_id == one).delete()
    db.flush()
    assert statistics.latest(None, ["qa"]) == (newest, 1)
    assert statistics.latest(frozenset({one}), ["qa"]) == (0, 0)
