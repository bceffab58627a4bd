"""The mastery rule is written once: the answer path's shortcut and SQL, and the import, agree
with ``review.mastery.evaluate`` on every history.

An answer decides its mastery change incrementally: the snapshot's SQL reads when the
question's right closed-book answers were submitted and when a wrong one was last revealed,
``outcome.history_needed`` decides whether the current run must be read, the run's SQL reads
it, and ``outcome.mastery_change`` applies the policy to it. The import re-runs ``evaluate``
on the whole history. Hypothesis draws histories (right or wrong, open-book or not, which
content, how long after the last answer, whether a wrong answer was revealed); after every
answer the stored mastery row must say what ``evaluate`` says of the whole history so far.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert, select, update

from quizsvc.bank.model import Grade
from quizsvc.review import mastery
from quizsvc.store.models import Attempt, Learner, Mastery, ServedVariant
from quizsvc.study.answering import Graded, decide, run_needed
from tests.support.repos import repos

START = datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
QUESTION = "q"

answers = st.lists(st.fixed_dictionaries({
    "correct": st.booleans(),
    "open_book": st.booleans(),
    "content": st.integers(0, 2),
    # hours since the previous answer: same instant, within the spacing, a night, days
    "after_hours": st.sampled_from([0, 1, 6, 11, 12, 13, 23, 30, 49]),
    "revealed": st.booleans(),  # a wrong answer's reveal (the learner explained it)
}), min_size=1, max_size=9)


def said(correct: bool, content: int, after_hours: int, open_book: bool = False,
         revealed: bool = False) -> dict[str, Any]:
    """Write one drawn answer by hand (for the examples every run tries)."""
    return {"correct": correct, "open_book": open_book, "content": content,
            "after_hours": after_hours, "revealed": revealed}


# The partner of a mastering answer is not always the answer just before it: here the second
# answer repeats the first one's content, so the third pairs with the first.
PARTNER_BEFORE_THE_LAST = [said(True, 0, 0), said(True, 0, 23), said(True, 1, 1)]
# A wrong answer between two that would pair ends the run; a revealed one makes the next
# answer practice.
RESET_BY_A_WRONG_ONE = [said(True, 0, 0), said(False, 1, 13, revealed=True),
                        said(True, 1, 1), said(True, 2, 30)]


def serve(db: Any, learner_id: int, n: int, answer: dict[str, Any], now: datetime) -> str:
    """Store a served variant of the question asking content ``answer["content"]``."""
    variant_id = f"v{learner_id}-{n}"
    db.execute(insert(ServedVariant).values(
        id=variant_id, learner_id=learner_id, question_id=QUESTION, lesson="L", kind="numeric",
        seed=n, bank_version="b1", served_at=now - timedelta(minutes=1), answered=False,
        open_book=answer["open_book"], answer_key="{}", content_key=f"content-{answer['content']}"))
    return variant_id


def answer_through_the_store(db: Any, learner_id: int, history: list[dict[str, Any]]) -> None:
    """Answer each in turn as the answer path does, checking mastery against ``evaluate``."""
    now = START
    whole: list[mastery.GradedAttempt] = []
    for n, answer in enumerate(history):
        now += timedelta(hours=answer["after_hours"])
        variant_id = serve(db, learner_id, n, answer, now)
        snapshot = repos(db).answers.read_snapshot(variant_id)
        graded = Graded(None, answer["correct"], Grade(answer["correct"],  # type: ignore[arg-type]
                                                       1.0 if answer["correct"] else 0.0))
        run = (repos(db).answers.read_run(learner_id, QUESTION)
               if run_needed(snapshot, graded, now) else [])
        decided = decide(snapshot, graded, run, now, f"key-{n}", "digest")
        attempt_id = repos(db).answers.write_answer(decided.write)
        if not answer["correct"] and answer["revealed"]:
            db.execute(update(Attempt).where(Attempt.id == attempt_id)
                       .values(revealed_at=now + timedelta(minutes=2)))
        attempt = decided.write.attempt
        whole.append(mastery.graded_attempt(attempt_id, attempt.content_key, attempt.seed,
                                            attempt.bank_version, now, attempt.correct,
                                            attempt.closed_book))
        expected = mastery.evaluate(whole)
        stored = db.execute(select(Mastery.mastered, Mastery.mastered_at, Mastery.evidence)
                            .where(Mastery.learner_id == learner_id)).first()
        if not expected.ever_mastered:
            assert stored is None, (n, history)
        else:
            assert stored is not None, (n, history)
            assert (stored.mastered, list(stored.evidence)) == (
                expected.mastered, list(expected.evidence)), (n, history)
            if expected.mastered:
                assert stored.mastered_at.replace(tzinfo=UTC) == expected.mastered_at


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=answers)
@example(history=PARTNER_BEFORE_THE_LAST)
@example(history=RESET_BY_A_WRONG_ONE)
def test_the_answer_path_masters_as_the_policy_says(db, history) -> None:
    """Whatever the history, the incremental path stores the whole history's verdict."""
    learner_id = db.execute(insert(Learner).values(created_at=START)).inserted_primary_key[0]
    answer_through_the_store(db, learner_id, history)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=answers)
@example(history=PARTNER_BEFORE_THE_LAST)
def test_the_store_reads_the_graded_history_the_policy_reads(db, history) -> None:
    """What the import re-evaluates (``graded_history``, ``mastery.READ``) gives the verdict
    the answer path stored."""
    learner_id = db.execute(insert(Learner).values(created_at=START)).inserted_primary_key[0]
    answer_through_the_store(db, learner_id, history)
    read = [attempt for _, attempt in repos(db).answers.graded_history(learner_id)]
    verdict = mastery.evaluate(read)
    stored = db.execute(select(Mastery.mastered).where(Mastery.learner_id == learner_id)
                        ).scalar()
    assert (stored if stored is not None else False) == verdict.mastered


def test_the_rule_holds_on_rows_and_on_attempts_alike() -> None:
    """``holds`` reads a mapping (an imported attempt) as it reads a policy attempt."""
    row = {"graded": True, "correct": True, "closed_book": False}
    assert mastery.holds(mastery.READ, row) and not mastery.holds(mastery.EVIDENCE, row)
    attempt = mastery.graded_attempt(1, "c", 1, "b", START, True, True)
    assert mastery.holds(mastery.EVIDENCE, attempt)
    assert not mastery.holds(mastery.ENDS_RUN, attempt)
