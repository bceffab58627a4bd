"""Hold a stored mastery record to the mastery policy over the question's whole history.

The record a fast path wrote (``store.answers.write_answer``, one answer at a time, reading
only the current run) must be what ``review.mastery.evaluate`` says of every graded attempt.
Rows come from a database (ORM objects) or from the fake unit of work (dicts) alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from quizsvc.review import mastery as mastery_policy
from quizsvc.review import outcome


def column(row: Any, name: str) -> Any:
    """Return one column of a row, an ORM object's attribute or a dict's item."""
    return row[name] if isinstance(row, Mapping) else getattr(row, name)


def graded_history(attempts: Iterable[Any]) -> list[mastery_policy.GradedAttempt]:
    """Return a question's graded attempts as the mastery policy reads them."""
    return [mastery_policy.GradedAttempt(
                column(a, "id"), mastery_policy.variant_identity(
                    column(a, "content_key"), column(a, "seed"), column(a, "bank_version")),
                column(a, "submitted_at"), bool(column(a, "correct")), column(a, "closed_book"))
            for a in attempts if column(a, "graded")]


def last_change(history: list[mastery_policy.GradedAttempt]) -> datetime | None:
    """Return when the verdict last turned (mastered or lapsed): the record's evaluated_at."""
    ordered = sorted(history, key=lambda a: (a.submitted_at, a.attempt_id))
    changed, mastered = None, False
    for n in range(1, len(ordered) + 1):
        now_mastered = mastery_policy.evaluate(ordered[:n]).mastered
        if now_mastered != mastered:
            changed, mastered = ordered[n - 1].submitted_at, now_mastered
    return changed


def assert_record_is_the_policy_s(attempts: Iterable[Any], record: Any, lesson: str) -> Any:
    """Assert ``record`` (None: no row) is what ``mastery.evaluate`` says of ``attempts``, a
    question's whole history; return it."""
    history = graded_history(attempts)
    verdict = mastery_policy.evaluate(history)
    assert (record is not None) is verdict.ever_mastered
    if record is None:
        return None
    assert (column(record, "mastered"), column(record, "mastered_at"),
            column(record, "evidence")) == (verdict.mastered, verdict.mastered_at,
                                            list(verdict.evidence))
    assert outcome.NEW_ATTEMPT_ID not in column(record, "evidence")
    assert set(column(record, "evidence")) <= {a.attempt_id for a in history}
    assert (column(record, "policy"), column(record, "lesson")) == (mastery_policy.POLICY,
                                                                    lesson)
    assert column(record, "evaluated_at") == last_change(history)
    return record
