"""Serving the next question: one read, one write, and a race for one item lost cleanly."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc.store import sessions as store
from quizsvc.store.models import Learner, ServedVariant
from quizsvc.study import serving
from tests.support.browsers import Study
from tests.support.fake_bank import LESSON_ID


def served_count(db: Any) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(ServedVariant))


def learner_of(db: Any) -> int:
    """Return the one learner these tests store."""
    return db.scalar(select(Learner.id))


def test_a_request_that_loses_the_race_serves_what_the_winner_stored(
        study: Study, db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two requests read the item unserved; the second to write stores nothing and shows
    the first one's variant, so no variant is left open that no item points at."""
    session = study.start(LESSON_ID, mode="quiz", size=1)
    real_serve = store.serve_item
    winner: dict[str, str] = {}

    def first_served_elsewhere(db_session: Any, item_id: int, variant: dict[str, Any]) -> bool:
        if not winner:  # the concurrent request writes between this one's read and write
            other = {**variant, "id": "winner-variant-id", "seed": variant["seed"] ^ 1}
            assert real_serve(db_session, item_id, other)
            db_session.commit()  # the other request's own transaction
            winner["id"] = other["id"]
        return real_serve(db_session, item_id, variant)

    monkeypatch.setattr(store, "serve_item", first_served_elsewhere)
    shown = study.next(session["id"])
    assert shown["question"]["variant_id"] == "winner-variant-id"
    assert served_count(db) == 1
    monkeypatch.setattr(store, "serve_item", real_serve)
    assert study.next(session["id"])["question"]["variant_id"] == "winner-variant-id"


def test_serving_an_item_already_served_stores_nothing(study: Study, db: Any) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=1)
    first = study.next(session["id"])["question"]
    state = store.session_state(db, learner_of(db), session["id"])
    assert state is not None
    [item] = state.items
    assert item.variant_id == first["variant_id"]
    duplicate = {column.name: getattr(db.get(ServedVariant, first["variant_id"]), column.name)
                 for column in ServedVariant.__table__.columns}
    assert store.serve_item(db, item.id, {**duplicate, "id": "second"}) is False
    db.rollback()
    assert served_count(db) == 1


def test_the_session_state_counts_items_and_finds_the_next(study: Study, db: Any) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=2)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.right_answer(vid))
    state = store.session_state(db, learner_of(db), session["id"])
    assert state is not None
    counts = state.counts()
    assert (counts.total, counts.answered) == (2, 1)
    following = state.next_item()
    assert following is not None and following.position == 2 and following.variant_id is None
    assert store.session_state(db, learner_of(db) + 1, session["id"]) is None


def test_serve_tries_are_bounded() -> None:
    assert serving.SERVE_TRIES >= 2
