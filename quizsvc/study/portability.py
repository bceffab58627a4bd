"""Export a learner's own data as JSON and import it back; the review log as CSV.

The document (``quizsvc-export/1``) holds this browser's self-assessments and the learner's
attempts, fsrs cards, review log, mastery records and desired retention. Database ids are
left out: attempts are numbered ``n`` = 1, 2, ... and the review log and mastery evidence
refer to those numbers, so the document can be imported into any learner on any database.

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

from quizsvc.errors import Conflict, Invalid
from quizsvc.review import mastery as mastery_policy
from quizsvc.review import scheduling
from quizsvc.store import answers, scheduler_settings
from quizsvc.store import self_assessments as self_assessment_store
from quizsvc.store.models import SelfAssessment, table
from quizsvc.study.context import Context
from quizsvc.study.sessions import opaque_id

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
    document: dict[str, Any] = {"format": EXPORT_FORMAT, "exported_at": ctx.now,
                                "self_assessments": [], "attempts": [], "cards": [],
                                "review_log": [], "mastery": [],
                                "desired_retention": scheduling.DEFAULT_RETENTION}
    if ctx.identity is None:
        return document
    attempts, cards, logs, records = answers.exported_rows(ctx.db, ctx.identity.learner_id)
    assessments = self_assessment_store.of_browser(ctx.db, ctx.identity.browser_id)
    ctx.db.commit()
    number = {attempt.id: n for n, attempt in enumerate(attempts, start=1)}
    card_question = {card.id: card.question_id for card in cards}
    document.update({
        "self_assessments": [pick(row, SELF_ASSESSMENT_FIELDS) for row in assessments],
        "attempts": [{"n": number[a.id], **pick(a, ATTEMPT_FIELDS)} for a in attempts],
        "cards": [pick(card, CARD_FIELDS) for card in cards],
        "review_log": [{"question_id": card_question[log.card_id],
                        "attempt": number.get(log.attempt_id) if log.attempt_id else None,
                        **pick(log, LOG_FIELDS)} for log in logs],
        "mastery": [{**pick(m, MASTERY_FIELDS),
                     "evidence": [number[i] for i in m.evidence if i in number]}
                    for m in records],
    })
    document["desired_retention"] = scheduler_settings.retention_of(ctx.db,
                                                                    ctx.identity.learner_id)
    return document


def check_references(document: dict[str, Any]) -> None:
    """Refuse a document whose internal references do not line up (422 on the field)."""
    numbers = [a["n"] for a in document["attempts"]]
    if numbers != list(range(1, len(numbers) + 1)):
        raise Invalid("attempts", "attempts must be numbered n = 1, 2, ... in order",
                      reason="attempts_numbering")
    keys = [a["idempotency_key"] for a in document["attempts"]]
    if len(set(keys)) != len(keys):
        raise Invalid("attempts", "idempotency keys must be unique", reason="duplicate_keys")
    questions = [c["question_id"] for c in document["cards"]]
    if len(set(questions)) != len(questions):
        raise Invalid("cards", "one card per question", reason="duplicate_cards")
    refs = [s["ref"] for s in document["self_assessments"]]
    if len(set(refs)) != len(refs):
        raise Invalid("self_assessments", "one self-assessment per ref",
                      reason="duplicate_self_assessments")
    known_cards = set(questions)
    for i, log in enumerate(document["review_log"]):
        if log["question_id"] not in known_cards:
            raise Invalid(f"review_log[{i}].question_id", "no card for this question",
                          reason="no_card")
        if log["attempt"] is not None and not 1 <= log["attempt"] <= len(numbers):
            raise Invalid(f"review_log[{i}].attempt", "no such attempt number",
                          reason="no_attempt")
    for i, record in enumerate(document["mastery"]):
        if any(not 1 <= n <= len(numbers) for n in record["evidence"]):
            raise Invalid(f"mastery[{i}].evidence", "no such attempt number",
                          reason="no_attempt")


def import_learner_data(ctx: Context, document: dict[str, Any]) -> dict[str, int]:
    """Load an exported document into this (empty) learner and browser; return row counts.

    ``document`` is the output of the export schema's ``load`` (datetimes parsed). The
    learner and browser must hold no attempts, cards or self-assessments yet (409
    otherwise), so an import never merges two histories.
    """
    if document.get("format") != EXPORT_FORMAT:
        raise Invalid("format", f"expected {EXPORT_FORMAT!r}", reason="export_format")
    check_references(document)
    answers.lock_learner(ctx.db, ctx.learner_id)  # an answer racing the import goes stale
    if (answers.has_history(ctx.db, ctx.learner_id)
            or self_assessment_store.of_browser(ctx.db, ctx.browser_id)):
        ctx.db.rollback()
        raise Conflict("This learner already has data; import into a fresh browser.",
                       reason="learner_has_data")
    variants, attempt_rows = [], []
    for row in document["attempts"]:
        variant_id = opaque_id(ctx)
        variants.append({
            "id": variant_id, "learner_id": ctx.learner_id, "question_id": row["question_id"],
            "lesson": row["lesson"], "kind": row["kind"], "seed": row["seed"],
            "bank_version": row["bank_version"], "served_at": row["served_at"],
            "answered": True, "open_book": not row["closed_book"]})
        attempt_rows.append({"learner_id": ctx.learner_id, "variant_id": variant_id,
                             **{name: row[name] for name in ATTEMPT_FIELDS}})
    card_rows = [{"learner_id": ctx.learner_id, **{name: row[name] for name in CARD_FIELDS}}
                 for row in document["cards"]]
    logs = [{"question_id": row["question_id"], "learner_id": ctx.learner_id,
             "attempt_index": None if row["attempt"] is None else row["attempt"] - 1,
             **{name: row[name] for name in LOG_FIELDS}} for row in document["review_log"]]
    attempt_ids, card_ids = answers.import_history(
        ctx.db, variants, attempt_rows, card_rows,
        [row["question_id"] for row in document["cards"]], logs)
    by_number = dict(zip((row["n"] for row in document["attempts"]), attempt_ids, strict=True))
    mastery_rows = restored_mastery(ctx, document, by_number)
    answers.insert_rows(ctx.db, answers.MASTERY, mastery_rows)
    answers.insert_rows(ctx.db, table(SelfAssessment), [
        {"browser_id": ctx.browser_id, **{name: row[name] for name in SELF_ASSESSMENT_FIELDS}}
        for row in document["self_assessments"]])
    if document.get("desired_retention") is not None:
        # The cards keep the due dates the file gives them, which this retention made.
        scheduler_settings.put_retention(ctx.db, ctx.learner_id, document["desired_retention"],
                                         ctx.now)
    ctx.db.commit()
    return {"attempts": len(attempt_ids), "cards": len(card_ids),
            "review_log": len(document["review_log"]),
            "self_assessments": len(document["self_assessments"]),
            "mastery": len(mastery_rows)}


def restored_mastery(ctx: Context, document: dict[str, Any], attempt_ids: dict[int, int]
                     ) -> list[dict[str, Any]]:
    """Re-run the mastery policy on the imported attempts; return the rows it decides.

    A record exists where the policy says the question was ever mastered, as an answer would
    have left it. The file's ``evaluated_at`` is kept only where the file's record says what
    the policy says; a record the policy does not back is not imported.
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
            "evaluated_at": record["evaluated_at"] if record is not None and agrees
            else ctx.now})
    return rows


def epoch_ms(moment: datetime) -> int:
    """Return milliseconds since the Unix epoch."""
    return int(moment.timestamp() * 1000)


def revlog_csv(ctx: Context) -> str:
    """Return the review log in fsrs-optimizer's CSV format (one row per review)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(OPTIMIZER_COLUMNS)
    if ctx.identity is None:
        return out.getvalue()
    for row in answers.optimizer_log(ctx.db, ctx.identity.learner_id):
        state = NEW_STATE if row.last_review_before is None else row.state_before
        writer.writerow((row.card_id, epoch_ms(row.reviewed_at), row.rating, state,
                         "" if row.duration_ms is None else row.duration_ms))
    ctx.db.commit()
    return out.getvalue()
