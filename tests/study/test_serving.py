"""Serving the next question: one read, one write, and a race for one item lost cleanly."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc.store.models import Learner, ServedVariant
from quizsvc.store.repository import Stale
from quizsvc.study import serving
from tests.support.browsers import Study
from tests.support.fake_bank import LESSON_ID
from tests.support.repos import repos


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
    real_draw = serving.draw_variant
    winner: dict[str, str] = {}

    def draw_then_lose(ctx: Any, question: Any, *choices: Any) -> Any:
        seed, built = real_draw(ctx, question, *choices)
        if not winner:  # the concurrent request writes between this one's read and write
            with ctx.uow.write():  # the other request's own transaction
                state = ctx.uow.sessions.session_state(ctx.learner_id, session["id"])
                item = state.next_item()
                ctx.uow.sessions.serve_item(item.id, {
                    "id": "winner-variant-id", "learner_id": ctx.learner_id,
                    "question_id": question.id, "lesson": question.lesson,
                    "kind": str(question.kind), "seed": seed ^ 1,
                    "bank_version": str(ctx.bank.version), "served_at": ctx.now,
                    "answered": False, "open_book": False})
            winner["id"] = "winner-variant-id"
        return seed, built

    monkeypatch.setattr(serving, "draw_variant", draw_then_lose)
    shown = study.next(session["id"])
    assert shown["question"]["variant_id"] == "winner-variant-id"
    assert served_count(db) == 1
    monkeypatch.setattr(serving, "draw_variant", real_draw)
    assert study.next(session["id"])["question"]["variant_id"] == "winner-variant-id"


def test_serving_an_item_already_served_stores_nothing(study: Study, db: Any) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=1)
    first = study.next(session["id"])["question"]
    state = repos(db).sessions.session_state(learner_of(db), session["id"])
    assert state is not None
    [item] = state.items
    assert item.variant_id == first["variant_id"]
    duplicate = {column.name: getattr(db.get(ServedVariant, first["variant_id"]), column.name)
                 for column in ServedVariant.__table__.columns}
    with pytest.raises(Stale):
        repos(db).sessions.serve_item(item.id, {**duplicate, "id": "second"})
    assert served_count(db) == 1  # the write's shape rolled the second variant back


def test_the_session_state_counts_items_and_finds_the_next(study: Study, db: Any) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=2)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.right_answer(vid))
    state = repos(db).sessions.session_state(learner_of(db), session["id"])
    assert state is not None
    counts = state.counts()
    assert (counts.total, counts.answered) == (2, 1)
    following = state.next_item()
    assert following is not None and following.position == 2 and following.variant_id is None
    assert repos(db).sessions.session_state(learner_of(db) + 1, session["id"]) is None


def test_serve_tries_are_bounded() -> None:
    assert serving.SERVE_TRIES >= 2
