"""Serving the next question: one read, one write, and a race for one item lost cleanly.

The serve itself (``sessions.serve_item``: a second serve of one item is ``Stale`` and stores
nothing) is the repository's promise, checked on both databases by
``tests/store/test_fake_contract.py``; here the use case is held to what it does with it.
"""

from __future__ import annotations

from typing import Any

import pytest

from quizsvc.errors import Conflict
from quizsvc.study import serving
from tests.support.fake_bank import LESSON_ID
from tests.support.fake_study import FakeStudy


def test_a_request_that_loses_the_race_serves_what_the_winner_stored(
        learner: FakeStudy, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two requests read the item unserved; the second to write stores nothing and shows
    the first one's variant, so no variant is left open that no item points at."""
    session = learner.start(LESSON_ID, mode="quiz", size=1)
    real_draw = serving.draw_variant
    winner: dict[str, str] = {}

    def draw_then_lose(ctx: Any, question: Any, *choices: Any) -> Any:
        seed, built = real_draw(ctx, question, *choices)
        if not winner:  # the concurrent request writes between this one's read and write
            other = ctx.uow.fresh()  # the other request's own unit of work and transaction
            with other.write():
                state = other.sessions.session_state(ctx.learner_id, session.id)
                item = state.next_item()
                other.sessions.serve_item(item.id, {
                    "id": "winner-variant-id", "learner_id": ctx.learner_id,
                    "question_id": question.id, "lesson": question.lesson,
                    "kind": str(question.kind), "seed": seed ^ 1,
                    "bank_version": str(ctx.bank.version), "served_at": ctx.now,
                    "answered": False, "open_book": False})
            winner["id"] = "winner-variant-id"
        return seed, built

    monkeypatch.setattr(serving, "draw_variant", draw_then_lose)
    shown = learner.next(session.id).question
    assert shown is not None and shown.variant_id == "winner-variant-id"
    assert [row["id"] for row in learner.rows("served_variant")] == ["winner-variant-id"]
    monkeypatch.setattr(serving, "draw_variant", real_draw)
    assert learner.next(session.id).question.variant_id == "winner-variant-id"


def test_a_request_that_keeps_losing_the_race_gives_up_with_a_conflict(
        learner: FakeStudy, monkeypatch: pytest.MonkeyPatch) -> None:
    session = learner.start(LESSON_ID, mode="quiz", size=1)
    real_serve = learner.uow.sessions.serve_item
    tries: list[int] = []

    def lose(item_id: int, variant: dict[str, Any]) -> None:
        tries.append(item_id)
        real_serve(item_id, variant)
        raise serving.Stale(item_id)  # another request got there first, every time

    monkeypatch.setattr(learner.uow.sessions, "serve_item", lose)
    with pytest.raises(Conflict):
        learner.next(session.id)
    assert len(tries) == serving.SERVE_TRIES
    assert learner.rows("served_variant") == []  # each lost write was undone


def test_serving_reads_once_and_writes_once_then_only_reads(learner: FakeStudy) -> None:
    session = learner.start(LESSON_ID, mode="quiz", size=1)
    learner.uow.shapes.clear()
    first = learner.next(session.id).question
    assert learner.uow.shapes == ["read", "statement"]
    assert learner.next(session.id).question == first  # the same variant until answered
    assert learner.uow.shapes == ["read", "statement", "read"]


def test_the_session_state_counts_items_and_finds_the_next(learner: FakeStudy) -> None:
    session = learner.start(LESSON_ID, mode="quiz", size=2)
    vid = learner.next(session.id).question.variant_id
    learner.answer(vid, learner.right_answer(vid))
    with learner.uow.read():
        state = learner.uow.sessions.session_state(learner.learner_id, session.id)
        assert state is not None
        counts = state.counts()
        assert (counts.total, counts.answered) == (2, 1)
        following = state.next_item()
        assert following is not None and following.position == 2
        assert following.variant_id is None
        assert learner.uow.sessions.session_state(learner.learner_id + 1, session.id) is None


def test_serve_tries_are_bounded() -> None:
    assert serving.SERVE_TRIES >= 2
