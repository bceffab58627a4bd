"""Export a learner's own data as JSON and import it back losslessly; the review log as CSV.

The document (``quizsvc-export/1``) holds this browser's self-assessments and the learner's
attempts, fsrs cards, review log, mastery records and desired retention. Database ids are
left out: attempts are numbered ``n`` = 1, 2, ... and the review log and mastery evidence
refer to those numbers, so the document can be imported into any learner on any database.
Export -> import into a fresh browser -> export gives the same document (except
``exported_at``).

Import never trusts the file's mastery records: it re-runs the mastery policy over the
imported attempts and keeps the file's record only where the policy agrees with it.
Study sessions and unanswered variants are transient and not exported.

``revlog_csv`` writes the review log in the fsrs-optimizer's format
(``card_id,review_time,review_rating,review_state,review_duration``).
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, exists, insert, select

from quizsvc.api.services.context import Context
from quizsvc.api.services.study import lock_learner, opaque_id
from quizsvc.errors import Conflict, Invalid
from quizsvc.review import mastery as mastery_policy
from quizsvc.store import scheduler_settings
from quizsvc.store.models import (
    Attempt,
    Mastery,
    ReviewCard,
    ReviewLog,
    SelfAssessment,
    ServedVariant,
)

EXPORT_FORMAT = "quizsvc-export/1"
OPTIMIZER_COLUMNS = ("card_id", "review_time", "review_rating", "review_state",
                     "review_duration")
NEW_STATE = 0  # fsrs-optimizer's review_state for a card's first review


ATTEMPT_FIELDS = ("question_id", "lesson", "kind", "seed", "bank_version", "answer", "graded",
                  "correct", "score", "misconception_id", "served_at", "submitted_at",
                  "duration_ms", "closed_book", "explanation", "explained_at", "revealed_at",
                  "idempotency_key", "request_digest")
CARD_FIELDS = ("question_id", "lesson", "state", "step", "stability", "difficulty", "due",
               "last_review", "created_at")
LOG_FIELDS = ("rating", "reviewed_at", "duration_ms", "rated_by_learner", "state_before",
              "step_before", "stability_before", "difficulty_before", "due_before",
              "last_review_before")
SELF_ASSESSMENT_FIELDS = ("ref", "ref_kind", "rating", "note", "updated_at")
MASTERY_FIELDS = ("question_id", "lesson", "mastered", "mastered_at", "policy", "evaluated_at")


def pick(row: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """Copy the named attributes of a row into a dict."""
    return {name: getattr(row, name) for name in names}


def export_learner_data(ctx: Context) -> dict[str, Any]:
    """Return this learner's data (and this browser's self-assessments) as one document."""
    attempts = ctx.session.scalars(select(Attempt).where(Attempt.learner_id == ctx.learner_id)
                                   .order_by(Attempt.submitted_at, Attempt.id)).all()
    number = {attempt.id: n for n, attempt in enumerate(attempts, start=1)}
    cards = ctx.session.scalars(select(ReviewCard).where(
        ReviewCard.learner_id == ctx.learner_id).order_by(ReviewCard.question_id)).all()
    card_question = {card.id: card.question_id for card in cards}
    logs = ctx.session.scalars(select(ReviewLog).where(ReviewLog.learner_id == ctx.learner_id)
                               .order_by(ReviewLog.reviewed_at, ReviewLog.id)).all()
    records = ctx.session.scalars(select(Mastery).where(Mastery.learner_id == ctx.learner_id)
                                  .order_by(Mastery.question_id)).all()
    assessments = ctx.session.scalars(select(SelfAssessment).where(
        SelfAssessment.browser_id == ctx.browser_id).order_by(SelfAssessment.ref)).all()
    return {
        "format": EXPORT_FORMAT,
        "exported_at": ctx.now,
        "self_assessments": [pick(row, SELF_ASSESSMENT_FIELDS) for row in assessments],
        "attempts": [{"n": number[a.id], **pick(a, ATTEMPT_FIELDS)} for a in attempts],
        "cards": [pick(card, CARD_FIELDS) for card in cards],
        "review_log": [{"question_id": card_question[log.card_id],
                        "attempt": number.get(log.attempt_id) if log.attempt_id else None,
                        **pick(log, LOG_FIELDS)} for log in logs],
        "mastery": [{**pick(m, MASTERY_FIELDS),
                     "evidence": [number[i] for i in m.evidence if i in number]}
                    for m in records],
        "desired_retention": scheduler_settings.retention_of(ctx.session, ctx.learner_id),
    }


def has_data(ctx: Context) -> bool:
    """Tell whether this learner or browser already holds records an import would mix into."""
    for query in (
        select(exists().where(Attempt.learner_id == ctx.learner_id)),
        select(exists().where(ReviewCard.learner_id == ctx.learner_id)),
        select(exists().where(SelfAssessment.browser_id == ctx.browser_id)),
    ):
        if ctx.session.scalar(query):
            return True
    return False


def check_references(document: dict[str, Any]) -> None:
    """Refuse a document whose internal references do not line up (422 on the field)."""
    numbers = [a["n"] for a in document["attempts"]]
    if numbers != list(range(1, len(numbers) + 1)):
        raise Invalid("attempts", "attempts must be numbered n = 1, 2, ... in order")
    keys = [a["idempotency_key"] for a in document["attempts"]]
    if len(set(keys)) != len(keys):
        raise Invalid("attempts", "idempotency keys must be unique")
    questions = [c["question_id"] for c in document["cards"]]
    if len(set(questions)) != len(questions):
        raise Invalid("cards", "one card per question")
    refs = [s["ref"] for s in document["self_assessments"]]
    if len(set(refs)) != len(refs):
        raise Invalid("self_assessments", "one self-assessment per ref")
    known_cards = set(questions)
    for i, log in enumerate(document["review_log"]):
        if log["question_id"] not in known_cards:
            raise Invalid(f"review_log[{i}].question_id", "no card for this question")
        if log["attempt"] is not None and not 1 <= log["attempt"] <= len(numbers):
            raise Invalid(f"review_log[{i}].attempt", "no such attempt number")
    for i, record in enumerate(document["mastery"]):
        if any(not 1 <= n <= len(numbers) for n in record["evidence"]):
            raise Invalid(f"mastery[{i}].evidence", "no such attempt number")


def import_learner_data(ctx: Context, document: dict[str, Any]) -> dict[str, int]:
    """Load an exported document into this (empty) learner and browser; return row counts.

    ``document`` is the output of ``ExportSchema().load`` (datetimes parsed). The learner
    and browser must hold no attempts, cards or self-assessments yet (409 otherwise), so an
    import never merges two histories.
    """
    if document.get("format") != EXPORT_FORMAT:
        raise Invalid("format", f"expected {EXPORT_FORMAT!r}")
    check_references(document)
    lock_learner(ctx)  # an answer racing the import sees its snapshot go stale
    if has_data(ctx):
        raise Conflict("This learner already has data; import into a fresh browser.")
    # Bulk inserts (executemany; RETURNING in parameter order where the ids are needed): an
    # import of a long history was two round trips per attempt.
    db = ctx.session.connection()
    served_rows, attempt_rows = [], []
    for row in document["attempts"]:
        variant_id = opaque_id(ctx)
        served_rows.append({
            "id": variant_id, "learner_id": ctx.learner_id, "question_id": row["question_id"],
            "lesson": row["lesson"], "kind": row["kind"], "seed": row["seed"],
            "bank_version": row["bank_version"], "served_at": row["served_at"],
            "answered": True, "open_book": not row["closed_book"]})
        attempt_rows.append({"learner_id": ctx.learner_id, "variant_id": variant_id,
                             **{name: row[name] for name in ATTEMPT_FIELDS}})
    insert_rows(db, ServedVariant, served_rows)  # before the attempts that refer to them
    attempt_ids = dict(zip((row["n"] for row in document["attempts"]),
                           inserted_ids(db, Attempt, attempt_rows), strict=True))
    card_rows = [{"learner_id": ctx.learner_id, **{name: row[name] for name in CARD_FIELDS}}
                 for row in document["cards"]]
    card_ids = dict(zip((row["question_id"] for row in document["cards"]),
                        inserted_ids(db, ReviewCard, card_rows), strict=True))
    insert_rows(db, ReviewLog, [{
        "card_id": card_ids[row["question_id"]], "learner_id": ctx.learner_id,
        "attempt_id": attempt_ids[row["attempt"]] if row["attempt"] is not None else None,
        **{name: row[name] for name in LOG_FIELDS}} for row in document["review_log"]])
    insert_rows(db, SelfAssessment, [
        {"browser_id": ctx.browser_id, **{name: row[name] for name in SELF_ASSESSMENT_FIELDS}}
        for row in document["self_assessments"]])
    mastery_rows = restore_mastery(ctx, document, attempt_ids)
    if document.get("desired_retention") is not None:
        # The cards keep the due dates the file gives them, which this retention made.
        scheduler_settings.put_retention(ctx.session, ctx.learner_id,
                                         document["desired_retention"], ctx.now)
    ctx.session.commit()
    return {"attempts": len(attempt_ids), "cards": len(card_ids),
            "review_log": len(document["review_log"]),
            "self_assessments": len(document["self_assessments"]), "mastery": mastery_rows}


def insert_rows(db: Connection, model: Any, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` into ``model``'s table in one executemany (nothing when empty)."""
    if rows:
        db.execute(insert(model.__table__), rows)


def inserted_ids(db: Connection, model: Any, rows: list[dict[str, Any]]) -> list[int]:
    """Insert ``rows`` into ``model``'s table; return their new ids in the order of ``rows``."""
    if not rows:
        return []
    table = model.__table__
    return list(db.execute(insert(table).returning(table.c.id, sort_by_parameter_order=True),
                           rows).scalars())


def restore_mastery(ctx: Context, document: dict[str, Any], attempt_ids: dict[int, int]
                    ) -> int:
    """Re-run the mastery policy on the imported attempts; write what it decides.

    A record exists where the policy says the question was ever mastered, exactly as in
    ``study.mastery_change``. The file's ``evaluated_at`` is kept only where the file's
    record says what the policy says; a record the policy does not back is not imported.
    """
    claimed = {m["question_id"]: m for m in document["mastery"]}
    graded: dict[str, list[mastery_policy.GradedAttempt]] = {}
    lessons: dict[str, str] = {}
    for a in document["attempts"]:
        if a["graded"]:
            lessons[a["question_id"]] = a["lesson"]
            graded.setdefault(a["question_id"], []).append(mastery_policy.GradedAttempt(
                attempt_ids[a["n"]], (a["seed"], a["bank_version"]), a["submitted_at"],
                bool(a["correct"]), a["closed_book"]))
    rows: list[dict[str, Any]] = []
    for question_id in sorted(graded):
        verdict = mastery_policy.evaluate(graded[question_id])
        if not verdict.ever_mastered:
            continue
        record = claimed.get(question_id)
        agrees = (record is not None and record["policy"] == mastery_policy.POLICY
                  and record["mastered"] == verdict.mastered
                  and record["mastered_at"] == verdict.mastered_at
                  and [attempt_ids[n] for n in record["evidence"]] == list(verdict.evidence))
        rows.append({
            "learner_id": ctx.learner_id, "question_id": question_id,
            "lesson": lessons[question_id], "mastered": verdict.mastered,
            "mastered_at": verdict.mastered_at, "evidence": list(verdict.evidence),
            "policy": mastery_policy.POLICY,
            "evaluated_at": record["evaluated_at"] if agrees else ctx.now})
    insert_rows(ctx.session.connection(), Mastery, rows)
    return len(rows)


def epoch_ms(moment: datetime) -> int:
    """Return milliseconds since the Unix epoch."""
    return int(moment.timestamp() * 1000)


def revlog_csv(ctx: Context) -> str:
    """Return the review log in fsrs-optimizer's CSV format (one row per review)."""
    rows = ctx.session.execute(
        select(ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.rating,
               ReviewLog.state_before, ReviewLog.last_review_before, ReviewLog.duration_ms)
        .where(ReviewLog.learner_id == ctx.learner_id)
        .order_by(ReviewLog.card_id, ReviewLog.reviewed_at, ReviewLog.id)).all()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(OPTIMIZER_COLUMNS)
    for card_id, reviewed_at, rating, state_before, last_review_before, duration in rows:
        state = NEW_STATE if last_review_before is None else state_before
        writer.writerow((card_id, epoch_ms(reviewed_at), rating, state,
                         "" if duration is None else duration))
    return out.getvalue()

