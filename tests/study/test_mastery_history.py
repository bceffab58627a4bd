"""Mastery written one answer at a time is the policy over the whole history, however the
history goes: right, wrong, open- and closed-book, practice, explained, rated, across days.

The answer path reads only what the policy needs of the current run (``answers.read_run``)
and writes one change; this random walk through the use cases holds every record it wrote
to ``mastery.evaluate`` over all the question's graded attempts. It runs on the fake unit of
work; the rows the real repositories write for one answer are checked on both databases in
``tests/study/test_answering.py`` and ``tests/store/test_fake_contract.py``.
"""

from __future__ import annotations

import random
from datetime import datetime
from typing import Any

import pytest

from quizsvc.review.mastery import FRESH_REVEAL
from tests.support.fake_bank import LESSON_ID
from tests.support.fake_study import FakeStudy
from tests.support.mastery_check import assert_record_is_the_policy_s


def assert_mastery_is_the_policy_s(learner: FakeStudy, question_id: str) -> Any:
    """Assert the stored record is what the policy says of the question's whole history."""
    mine = {"learner_id": learner.learner_id, "question_id": question_id}
    [record] = learner.rows("mastery", **mine) or [None]
    return assert_record_is_the_policy_s(learner.rows("attempt", **mine), record, LESSON_ID)


@pytest.mark.parametrize("seed", [13, 21, 2026])
def test_mastery_written_by_the_fast_path_is_the_policy_over_the_whole_history(
        learner: FakeStudy, clock: Any, seed: int) -> None:
    """Each round is a two-question quiz (both graded questions of the fake bank); opening
    the book while a question is open makes that one answer open-book. The clock sometimes
    stands still, so that a question is answered twice at one instant: the policy then
    orders by attempt id, and so must the fast path's read of the current run.
    """
    rng = random.Random(seed)
    seen = {"mastered": 0, "lapsed": 0, "open-book": 0, "remastered": 0, "same instant": 0,
            "practice": 0}
    ever_lapsed: set[str] = set()
    answered_at: dict[str, datetime] = {}
    wrong_revealed_at: dict[str, datetime] = {}
    for _ in range(18):
        session = learner.start(LESSON_ID, mode="quiz", size=2)
        while (question := learner.next(session.id).question) is not None:
            vid, qid = question.variant_id, question.question_id
            open_book = rng.random() < 0.2
            if open_book:
                assert learner.open_book(LESSON_ID) == 1
                seen["open-book"] += 1
            right = rng.random() < 0.75
            [before] = [r["mastered"] for r in learner.rows(
                "mastery", learner_id=learner.learner_id, question_id=qid)] or [None]
            view = learner.answer(vid, learner.right_answer(vid) if right
                                  else learner.wrong_answer(vid))
            practice = (qid in wrong_revealed_at
                        and clock.now - wrong_revealed_at[qid] < FRESH_REVEAL)
            seen["practice"] += practice
            assert (view.correct, view.closed_book, view.practice) == (
                right, not open_book and not practice, practice)
            seen["same instant"] += answered_at.get(qid) == clock.now  # a tie, broken by id
            answered_at[qid] = clock.now
            record = assert_mastery_is_the_policy_s(learner, qid)
            after = record["mastered"] if record is not None else None
            if after and not before:
                seen["remastered" if qid in ever_lapsed else "mastered"] += 1
            if before and not after:
                seen["lapsed"] += 1
                ever_lapsed.add(qid)
            if not right and rng.random() < 0.5:
                learner.explain(view.id, "misread the budget")
                wrong_revealed_at[qid] = clock.now
            elif right and rng.random() < 0.3:
                learner.rate(view.id, rng.choice(["hard", "easy"]))
            clock.advance(minutes=rng.choice([0, 0, 1, 7, 30]))
        clock.advance(hours=rng.choice([0, 0, 3, 8, 14, 20, 26, 30, 50]))
    assert all(seen.values()), seen  # the sequence went through every kind of change
