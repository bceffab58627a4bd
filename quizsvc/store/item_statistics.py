"""Read what item analysis needs: each learner's first closed-book answer to each variant.

One query (``review.item_analysis`` does the arithmetic). The attempts counted are those
``item_analysis.COUNTED`` names; of a learner's answers to one variant (what it asked:
``mastery.variant_identity``, the content key, else seed and bank version) the first
submitted is kept, by a window over ``(learner_id, question_id, variant)``. A cohort's scope
is a list of learners, read on the ``attempt (learner_id, question_id)`` index; everyone's is
every attempt, read once in a scan, which is what reading all of them costs anyway.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import and_, case, func, select

from quizsvc.review import mastery
from quizsvc.review.item_analysis import COUNTED, FirstAttempt
from quizsvc.store.answers import meets
from quizsvc.store.models import Attempt, table
from quizsvc.store.repository import Repository

ATTEMPTS = table(Attempt)

def scope_conditions(learner_ids: Collection[int] | None, question_ids: Sequence[str]
                     ) -> list[Any]:
    """Return the WHERE conditions of the analysed attempts of a scope."""
    where = [meets(ATTEMPTS, COUNTED), ATTEMPTS.c.question_id.in_(list(question_ids))]
    if learner_ids is not None:
        where.append(ATTEMPTS.c.learner_id.in_(sorted(learner_ids)))
    return where


class ItemStatisticsRepository(Repository):
    """Read first closed-book answers for item analysis."""

    def first_closed_book(self, learner_ids: Collection[int] | None,
                          question_ids: Sequence[str]) -> list[FirstAttempt]:
        """Return each learner's first counted answer to each variant of ``question_ids``
        (``learner_ids`` None: every learner), in one query."""
        if not question_ids or (learner_ids is not None and not learner_ids):
            return []
        no_key = ATTEMPTS.c.content_key.is_(None)
        ranked = (
            select(ATTEMPTS.c.learner_id, ATTEMPTS.c.question_id, ATTEMPTS.c.content_key,
                   ATTEMPTS.c.seed, ATTEMPTS.c.bank_version, ATTEMPTS.c.correct,
                   ATTEMPTS.c.duration_ms, ATTEMPTS.c.misconception_id,
                   ATTEMPTS.c.explained_at.is_not(None).label("explained"),
                   ATTEMPTS.c.diagnosed_rule,
                   func.row_number().over(
                       partition_by=(ATTEMPTS.c.learner_id, ATTEMPTS.c.question_id,
                                     ATTEMPTS.c.content_key,
                                     case((no_key, ATTEMPTS.c.seed)),
                                     case((no_key, ATTEMPTS.c.bank_version))),
                       order_by=(ATTEMPTS.c.submitted_at, ATTEMPTS.c.id)).label("nth"))
            .where(and_(*scope_conditions(learner_ids, question_ids)))
            .subquery())
        rows = self.connection.execute(
            select(ranked).where(ranked.c.nth == 1)
            .order_by(ranked.c.learner_id, ranked.c.question_id))
        return [FirstAttempt(
            learner_id=row.learner_id, question_id=row.question_id,
            variant=mastery.variant_identity(row.content_key, row.seed, row.bank_version),
            seed=row.seed, correct=bool(row.correct), duration_ms=row.duration_ms,
            misconception_id=row.misconception_id, explained=bool(row.explained),
            diagnosed_rule=row.diagnosed_rule) for row in rows]

    def latest(self, learner_ids: Collection[int] | None, question_ids: Sequence[str]
               ) -> tuple[int, int]:
        """Return the newest counted attempt's id and the count of counted attempts in scope:
        a new answer or an erased learner changes one of them (what a kept analysis is
        keyed by)."""
        if not question_ids or (learner_ids is not None and not learner_ids):
            return 0, 0
        newest, count = self.connection.execute(
            select(func.max(ATTEMPTS.c.id), func.count())
            .where(*scope_conditions(learner_ids, question_ids))).one()
        return int(newest or 0), int(count)
