"""Build the one PostgreSQL statement that writes a decided answer, or nothing at all.

A graded answer writes up to five rows (the learner's ``review_seq``, the variant's claim, the
attempt, its card and review log, its mastery record). On PostgreSQL they are one statement of
data-modifying CTEs, each step selecting from the one before, so the write is atomic by itself
(it runs in autocommit) and a stale snapshot changes nothing. The statement's shape depends only
on which rows are written, so each shape is built once and its values passed as parameters.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from sqlalchemy import Select, and_, bindparam, cast, exists, func, insert, select, true, update

from quizsvc.review.outcome import NEW_ATTEMPT_ID
from quizsvc.store.answer_rows import (
    CARD_STATE,
    LOG_STATE,
    AnswerWrite,
    card_values,
    log_values,
    mastery_values,
    new_card_values,
)
from quizsvc.store.models import (
    Attempt,
    Learner,
    Mastery,
    ReviewCard,
    ReviewLog,
    ServedVariant,
    table,
)

ATTEMPTS, LEARNERS, SERVED = table(Attempt), table(Learner), table(ServedVariant)
CARDS, LOGS, MASTERY = table(ReviewCard), table(ReviewLog), table(Mastery)


def typed(table: Any, prefix: str, names: Iterable[str]) -> list[Any]:
    """Return a parameter per column, cast to its type: in a SELECT list PostgreSQL would
    otherwise take an untyped parameter (a NULL, say) for text."""
    return [cast(bindparam(prefix + name, type_=table.c[name].type), table.c[name].type)
            for name in names]


ATTEMPT_COLUMNS = tuple(column.name for column in ATTEMPTS.columns if column.name != "id")
NEW_CARD_COLUMNS = ("learner_id", "question_id", "lesson", *CARD_STATE, "created_at")
LOG_COLUMNS = ("learner_id", "rating", "reviewed_at", "duration_ms", "rated_by_learner",
               *LOG_STATE)
MASTERY_COLUMNS = ("mastered", "mastered_at", "policy", "evaluated_at")
NEW_MASTERY_COLUMNS = ("learner_id", "question_id", "lesson", *MASTERY_COLUMNS)


@cache
def postgresql_statement(card: str, log: bool, mastery: str, evidence: tuple[bool, ...]
                         ) -> Select[Any]:
    """Build the one data-modifying statement for a write of this shape (built once).

    ``seq`` bumps the learner's counter only if unchanged and the variant is claimable;
    ``claim`` marks the variant answered only if ``seq`` returned its row; every later step
    selects FROM the one before, so nothing is written unless both did. Every step of a WITH
    runs to completion, so only a change to the variant committed while this very statement
    runs can leave the counter bumped with nothing else written, which costs at most one
    locked retry of another answer. Foreign keys between the new rows are checked at the
    end of the statement, when all exist. The statement's value is the new attempt's id.
    """
    claimable = exists().where(SERVED.c.id == bindparam("b_variant"),
                               SERVED.c.answered.is_(False),
                               SERVED.c.open_book == bindparam("b_open_book"))
    seq = (update(LEARNERS)
           .where(LEARNERS.c.id == bindparam("b_learner"),
                  LEARNERS.c.review_seq == bindparam("b_seq"), claimable)
           .values(review_seq=LEARNERS.c.review_seq + 1)
           .returning(LEARNERS.c.id).cte("seq"))
    claim = (update(SERVED)
             .where(SERVED.c.id == bindparam("b_variant"), SERVED.c.answered.is_(False),
                    SERVED.c.open_book == bindparam("b_open_book"),
                    SERVED.c.learner_id == seq.c.id)
             .values(answered=True).returning(SERVED.c.id).cte("claim"))
    att = (insert(ATTEMPTS)
           .from_select(ATTEMPT_COLUMNS, select(*typed(ATTEMPTS, "a_", ATTEMPT_COLUMNS))
                        .select_from(claim))
           .returning(ATTEMPTS.c.id).cte("att"))
    steps = [att]
    card_step = None
    if card == "insert":
        card_step = (insert(CARDS)
                     .from_select(NEW_CARD_COLUMNS,
                                  select(*typed(CARDS, "c_", NEW_CARD_COLUMNS)).select_from(att))
                     .returning(CARDS.c.id).cte("card"))
    elif card == "update":
        card_step = (update(CARDS)
                     .where(CARDS.c.id == bindparam("b_card"), exists(select(att.c.id)))
                     .values({name: bindparam("c_" + name, type_=CARDS.c[name].type)
                              for name in CARD_STATE})
                     .returning(CARDS.c.id).cte("card"))
    if card_step is not None:
        steps.append(card_step)
    if log and card_step is not None:
        steps.append(
            insert(LOGS)
            .from_select(("card_id", "attempt_id", *LOG_COLUMNS),
                         select(card_step.c.id, att.c.id, *typed(LOGS, "l_", LOG_COLUMNS))
                         .select_from(card_step.join(att, true())))
            .returning(LOGS.c.id).cte("log"))
    if mastery != "none":
        # An UPDATE reads the new attempt's id through a subquery: a FROM att would be a
        # join with no condition.
        new_id = att.c.id if mastery == "insert" else select(att.c.id).scalar_subquery()
        entries = [new_id if new else cast(bindparam(f"m_ev{i}"), ATTEMPTS.c.id.type)
                   for i, new in enumerate(evidence)]
        evidence_value = cast(func.json_build_array(*entries), MASTERY.c.evidence.type)
        step: Any
        if mastery == "insert":
            step = (insert(MASTERY)
                    .from_select((*NEW_MASTERY_COLUMNS, "evidence"),
                                 select(*typed(MASTERY, "m_", NEW_MASTERY_COLUMNS),
                                        evidence_value).select_from(att)))
        else:
            condition = (MASTERY.c.id == bindparam("b_mastery") if mastery == "update" else
                         and_(MASTERY.c.learner_id == bindparam("b_learner"),
                              MASTERY.c.question_id == bindparam("b_question"),
                              MASTERY.c.mastered.is_(True)))
            step = (update(MASTERY).where(condition, exists(select(att.c.id)))
                    .values({**{name: bindparam("m_" + name, type_=MASTERY.c[name].type)
                                for name in MASTERY_COLUMNS}, "evidence": evidence_value}))
        steps.append(step.returning(MASTERY.c.id).cte("mastery_change"))
    return select(att.c.id).add_cte(*steps[1:])


def postgresql_write(write: AnswerWrite) -> tuple[Select[Any], dict[str, Any]]:
    """Return the one statement for ``write`` and its parameters."""
    card = "none" if write.review is None else ("insert" if write.card_id is None else "update")
    change = write.mastery
    evidence = tuple(entry == NEW_ATTEMPT_ID for entry in change.evidence) if change else ()
    statement = postgresql_statement(card, write.review is not None,
                                     change.action if change else "none", evidence)
    attempt = write.attempt
    columns = attempt.columns()
    params: dict[str, Any] = {
        "b_learner": write.learner_id, "b_seq": write.review_seq,
        "b_variant": attempt.variant_id, "b_open_book": write.open_book,
        "b_card": write.card_id, "b_question": attempt.question_id,
        **{"a_" + name: columns[name] for name in ATTEMPT_COLUMNS}}
    if write.review is not None:
        if write.card_id is None:
            params.update({"c_" + name: value for name, value in new_card_values(
                write.learner_id, attempt.question_id, attempt.lesson, write.review,
                attempt.submitted_at).items()})
        else:
            params.update({"c_" + name: value
                           for name, value in card_values(write.review.after).items()})
        params.update({"l_" + name: value for name, value in log_values(
            write.learner_id, write.review, attempt.duration_ms, False).items()})
    if change is not None:
        params["b_mastery"] = change.record_id
        params.update({"m_" + name: value for name, value in mastery_values(change, None)
                       .items() if name != "evidence"})
        params.update({"m_learner_id": write.learner_id,
                       "m_question_id": attempt.question_id, "m_lesson": attempt.lesson})
        params.update({f"m_ev{i}": entry for i, entry in enumerate(change.evidence)
                       if entry != NEW_ATTEMPT_ID})
    return statement, params
