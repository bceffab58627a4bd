"""Export a learner's own data as JSON and import it back; the review log as CSV.

The document (``quizsvc-export/3``) holds this browser's self-assessments and the learner's
attempts, fsrs cards, review log, mastery records and desired retention. Database ids are
left out: attempts are numbered ``n`` = 1, 2, ... and the review log and mastery evidence
refer to those numbers.

An import can never vouch for itself, nor for someone else. The whole document is signed
(``quizsvc.study.seal``) and names the deployment and the learner it came from, so a
signature vouches for one learner only: a document is restored as it was graded (reveals,
mastery evidence, reviews that may teach the pooled FSRS fit) only when this deployment
signed it, for the very learner importing it, unaltered (the same learner after its data was
lost, say after a database restore). Anywhere else, and for any document unsigned or altered,
it is kept as history that counts for nothing: attempts ungraded and unrevealed (a diagnosed
rule kept as the learner named it, graded against nothing), reviews kept for the learner's
own schedule but never taught to the pooled fit. What a learner has not
earned yet (the seed, content key and matched misconception of an attempt whose reveal is
withheld) is exported sealed, under a fresh nonce each time, so the file gives nothing of the
answer away. Mastery is never read from the file: the policy is re-run over the restored
attempts. Study sessions and unanswered variants are transient and not exported.

``revlog_csv`` writes the review log in the fsrs-optimizer's format
(``card_id,review_time,review_rating,review_state,review_duration``).
"""

from __future__ import annotations

import csv
import io
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from quizsvc.errors import N_, Conflict, Invalid
from quizsvc.review import diagnosis, scheduling
from quizsvc.review import mastery as mastery_policy
from quizsvc.store.database import first_line
from quizsvc.study import seal
from quizsvc.study.context import Context, Identity
from quizsvc.study.sessions import opaque_id

log = logging.getLogger(__name__)

EXPORT_FORMAT = "quizsvc-export/3"
# /1 and /2 (attempts signed one by one, bound to no learner) import as history only.
IMPORT_FORMATS = ("quizsvc-export/1", "quizsvc-export/2", EXPORT_FORMAT)
DOCUMENT_PURPOSE = "export-document/3"
ORIGINS = ("graded", "regraded", "unverified")
OPTIMIZER_COLUMNS = ("card_id", "review_time", "review_rating", "review_state",
                     "review_duration")
NEW_STATE = 0  # fsrs-optimizer's review_state for a card's first review

ATTEMPT_FIELDS = ("question_id", "lesson", "kind", "seed", "bank_version", "answer", "graded",
                  "correct", "score", "misconception_id", "served_at", "submitted_at",
                  "duration_ms", "closed_book", "explanation", "explained_at", "revealed_at",
                  "idempotency_key", "request_digest", "origin", "content_key", "practice",
                  "diagnosed_rule")
SEALED_FIELDS = ("seed", "misconception_id", "content_key")  # withheld with the reveal
CARD_FIELDS = ("question_id", "lesson", "state", "step", "stability", "difficulty", "due",
               "last_review", "created_at")
LOG_FIELDS = ("rating", "reviewed_at", "duration_ms", "rated_by_learner", "state_before",
              "step_before", "stability_before", "difficulty_before", "due_before",
              "last_review_before")
SELF_ASSESSMENT_FIELDS = ("ref", "ref_kind", "rating", "note", "updated_at")
MASTERY_FIELDS = ("question_id", "lesson", "mastered", "mastered_at", "policy", "evaluated_at")
# What the signature covers: every field of the document, as exported, but the signature.
SIGNED_FIELDS = {
    "attempts": ("n", *ATTEMPT_FIELDS, "sealed"),
    "cards": CARD_FIELDS,
    "review_log": ("question_id", "attempt", *LOG_FIELDS),
    "self_assessments": SELF_ASSESSMENT_FIELDS,
    "mastery": (*MASTERY_FIELDS, "evidence"),
}
SIGNED_SCALARS = ("format", "exported_at", "deployment", "learner", "desired_retention")
LATER_FIELDS = frozenset({"diagnosed_rule"})  # signed only when set (0011)


def pick(row: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """Copy the named attributes of a row into a dict."""
    return {name: getattr(row, name) for name in names}


def deployment_id(secret_key: str) -> str:
    """Name this deployment in its exports (derived from its key: same key, same name)."""
    return seal.sign(secret_key, "deployment", "quizsvc")[:16]


def learner_ref(secret_key: str, learner_id: int) -> str:
    """Name a learner in its exports without giving its row id away."""
    return seal.sign(secret_key, "export-learner", learner_id)[:32]


def signed_view(document: dict[str, Any]) -> dict[str, Any]:
    """Return exactly what a document's signature covers (the fields it was exported with).

    A field added later (``LATER_FIELDS``) is covered only where it holds a value, so an
    export signed before it existed still verifies.
    """
    view = {name: document.get(name) for name in SIGNED_SCALARS}
    for name, fields in SIGNED_FIELDS.items():
        view[name] = [{field: record.get(field) for field in fields
                       if field not in LATER_FIELDS or record.get(field) is not None}
                      for record in document.get(name) or ()]
    return view


def export_learner_data(ctx: Context) -> dict[str, Any]:
    """Return this learner's data (and this browser's self-assessments) as one signed document."""
    document: dict[str, Any] = {"format": EXPORT_FORMAT, "exported_at": ctx.now,
                                "deployment": deployment_id(ctx.secret_key), "learner": None,
                                "self_assessments": [], "attempts": [], "cards": [],
                                "review_log": [], "mastery": [],
                                "desired_retention": scheduling.DEFAULT_RETENTION}
    if ctx.identity is not None:
        learner_id = ctx.identity.learner_id
        with ctx.uow.read():
            history = ctx.uow.history.of_learner(learner_id)
            assessments = ctx.uow.self_assessments.of_browser(ctx.identity.browser_id)
            retention = ctx.uow.settings.retention_of(learner_id)
            exported_as = ctx.uow.learners.exported_as(learner_id)
        attempts, cards, logs, records = (history.attempts, history.cards, history.logs,
                                          history.mastery)
        number = {attempt.id: n for n, attempt in enumerate(attempts, start=1)}
        card_question = {card.id: card.question_id for card in cards}
        document.update({
            "learner": learner_ref(ctx.secret_key, exported_as),
            "self_assessments": [pick(row, SELF_ASSESSMENT_FIELDS) for row in assessments],
            "attempts": [{"n": number[a.id], **exported_attempt(ctx, a)} for a in attempts],
            "cards": [pick(card, CARD_FIELDS) for card in cards],
            "review_log": [{"question_id": card_question[log.card_id],
                            "attempt": number.get(log.attempt_id) if log.attempt_id else None,
                            **pick(log, LOG_FIELDS)} for log in logs],
            "mastery": [{**pick(m, MASTERY_FIELDS),
                         "evidence": [number[i] for i in m.evidence if i in number]}
                        for m in records],
            "desired_retention": retention,
        })
    document["signature"] = seal.sign(ctx.secret_key, DOCUMENT_PURPOSE, signed_view(document))
    return document


def exported_attempt(ctx: Context, attempt: Any) -> dict[str, Any]:
    """Return an attempt as exported, with what is not yet earned sealed.

    ``diagnosis_matched`` (whether the diagnosed rule is the one the matched wrong model
    breaks) is worked out for the reader, unsigned: an import works it out again.
    """
    record = pick(attempt, ATTEMPT_FIELDS)
    info = (ctx.bank.misconception_info(attempt.lesson, attempt.misconception_id)
            if attempt.misconception_id is not None and attempt.revealed_at is not None
            else None)
    record["diagnosis_matched"] = diagnosis.diagnosis_matched(
        attempt.diagnosed_rule, info.breaks if info else None)
    record["sealed"] = None
    if attempt.revealed_at is None:
        nonce = ctx.rng.getrandbits(8 * seal.NONCE_BYTES).to_bytes(seal.NONCE_BYTES, "big")
        record["sealed"] = seal.seal(ctx.secret_key, {name: record[name]
                                                      for name in SEALED_FIELDS}, nonce)
        record.update({name: None for name in SEALED_FIELDS})
    return record


@dataclass(frozen=True)
class Provenance:
    """Whether an imported document is restored as evidence, and why (a reason code).

    ``own_signed_export``: signed here, for this learner, unaltered. Otherwise history only:
    ``another_learner`` (signed here for someone else), ``another_deployment``, or
    ``not_signed_here`` (unsigned, altered, or an older format bound to no learner).
    """

    vouched: bool
    reason: str


def provenance(ctx: Context, document: dict[str, Any], exported_as: int) -> Provenance:
    """Tell whether this deployment vouches for ``document`` as this learner's own
    (``exported_as``: the learner id its exports name)."""
    if document.get("deployment") not in (None, deployment_id(ctx.secret_key)):
        return Provenance(False, "another_deployment")
    if (document.get("format") != EXPORT_FORMAT
            or not seal.signed_by(ctx.secret_key, DOCUMENT_PURPOSE, signed_view(document),
                                  document.get("signature"))):
        return Provenance(False, "not_signed_here")
    if document.get("learner") != learner_ref(ctx.secret_key, exported_as):
        return Provenance(False, "another_learner")
    return Provenance(True, "own_signed_export")


def restored_attempt(ctx: Context, index: int, record: dict[str, Any], vouched: bool
                     ) -> dict[str, Any]:
    """Return the ``attempt`` columns an imported attempt is stored with.

    Vouched for: as it was (its sealed seed, content and misconception restored). Otherwise
    history that counts for nothing.
    """
    question = ctx.index.questions.get(record["question_id"])
    if question is None:
        raise Invalid(f"attempts[{index}].question_id", N_("no such question in this bank"),
                      reason="unknown_question")
    row = {name: record.get(name) for name in ATTEMPT_FIELDS}
    row["practice"] = bool(row["practice"])
    if not vouched:
        return unverified(row)
    if record.get("sealed") is not None:
        hidden = seal.unseal(ctx.secret_key, record["sealed"])
        if isinstance(hidden, dict):
            row.update({name: hidden.get(name) for name in SEALED_FIELDS})
    return row


def unverified(row: dict[str, Any]) -> dict[str, Any]:
    """Keep an attempt no one can vouch for as history that counts for nothing.

    Ungraded and unrevealed, so it can be neither explained nor revealed nor rated: it shows
    the learner's own answer and when it was given, nothing the server would have to stand by.
    """
    return {**row, "graded": False, "correct": None, "score": None, "misconception_id": None,
            "closed_book": False, "revealed_at": None, "origin": "unverified",
            "content_key": None, "practice": False,
            "seed": row["seed"] if isinstance(row["seed"], int) else 0}


def check_references(document: dict[str, Any]) -> None:
    """Refuse a document whose internal references do not line up (422 on the field)."""
    numbers = [a["n"] for a in document["attempts"]]
    if numbers != list(range(1, len(numbers) + 1)):
        raise Invalid("attempts", N_("attempts must be numbered n = 1, 2, ... in order"),
                      reason="attempts_numbering")
    keys = [a["idempotency_key"] for a in document["attempts"]]
    if len(set(keys)) != len(keys):
        raise Invalid("attempts", N_("idempotency keys must be unique"), reason="duplicate_keys")
    questions = [c["question_id"] for c in document["cards"]]
    if len(set(questions)) != len(questions):
        raise Invalid("cards", N_("one card per question"), reason="duplicate_cards")
    refs = [s["ref"] for s in document["self_assessments"]]
    if len(set(refs)) != len(refs):
        raise Invalid("self_assessments", N_("one self-assessment per ref"),
                      reason="duplicate_self_assessments")
    known_cards = set(questions)
    for i, log in enumerate(document["review_log"]):
        if log["question_id"] not in known_cards:
            raise Invalid(f"review_log[{i}].question_id", N_("no card for this question"),
                          reason="no_card")
        if log["attempt"] is not None and not 1 <= log["attempt"] <= len(numbers):
            raise Invalid(f"review_log[{i}].attempt", N_("no such attempt number"),
                          reason="no_attempt")
    for i, record in enumerate(document["mastery"]):
        if any(not 1 <= n <= len(numbers) for n in record["evidence"]):
            raise Invalid(f"mastery[{i}].evidence", N_("no such attempt number"),
                          reason="no_attempt")


@dataclass(frozen=True)
class ImportResult:
    """Rows imported, and whether they were restored as evidence or as history only."""

    attempts: int
    cards: int
    review_log: int
    self_assessments: int
    mastery: int
    vouched: bool
    reason: str


@dataclass(frozen=True)
class Imported:
    """A finished import: what it brought, and the browser's identity from now on (the
    learner the import was written into)."""

    result: ImportResult
    identity: Identity


@dataclass(frozen=True)
class ImportRows:
    """The rows an import writes into the learner it stages, made from the document before
    anything is written: only the database ids (and the mastery the policy reads from them)
    are left to the writing."""

    variants: list[dict[str, Any]]
    attempts: list[dict[str, Any]]
    cards: list[dict[str, Any]]
    review_log: list[dict[str, Any]]
    self_assessments: list[dict[str, Any]]


def import_learner_data(ctx: Context, document: dict[str, Any]) -> Imported:
    """Load an exported document for this (empty) learner and browser; return row counts and
    the identity the browser has from now on.

    ``document`` is the output of the export schema's ``load`` (datetimes parsed). The
    learner must hold no attempts or cards and the browser no self-assessments yet, and the
    learner must have no other browser (409 otherwise), so an import never merges two
    histories.

    A large import is many thousand rows, and on SQLite every other learner's write waits
    while one transaction writes. So the rows are written in short steps
    (``UnitOfWork.step_rows`` each, the unit of work giving way between them) into a new
    learner that no browser reaches (``stage_import``), and one small last step, under the
    learner's lock, hands that learner to this browser with whatever the old one held
    (``adopt_import``). Nobody sees a half-written import; one that fails is erased, and one
    the process never finished is deleted by ``quizsvc db prune``.
    """
    if document.get("format") not in IMPORT_FORMATS:
        raise Invalid("format", N_("expected %(format)s"), reason="export_format",
                      params={"format": repr(EXPORT_FORMAT)})
    check_references(document)
    with ctx.uow.read():
        refuse_unless_empty(ctx)  # before any writing, which the last step checks again
        exported_as = ctx.uow.learners.exported_as(ctx.learner_id)
    source = provenance(ctx, document, exported_as)
    with ctx.uow.write():
        staged = ctx.uow.learners.stage_import(ctx.now)
    try:
        return staged_import(ctx, document, source, staged)
    except BaseException:
        erase_staged(ctx, staged)
        raise


def erase_staged(ctx: Context, staged: int) -> None:
    """Erase what a failed import wrote (past its deadline too: a unit of work of its own).

    If even that fails (the database is gone), ``quizsvc db prune`` deletes it later; the
    import's own error is the one the learner is told.
    """
    try:
        with ctx.uow.fresh() as cleanup, cleanup.write():
            cleanup.erasure.erase(staged)
    except SQLAlchemyError as error:
        log.warning("could not erase the staged learner %s of a failed import: %s", staged,
                    first_line(error))


def refuse_unless_empty(ctx: Context) -> None:
    """Refuse (409) an import into a learner with data or with another browser."""
    uow = ctx.uow
    if (uow.history.has_history(ctx.learner_id)
            or uow.self_assessments.of_browser(ctx.browser_id)):
        raise Conflict(N_("This learner already has data; import into a fresh browser."),
                       reason="learner_has_data")
    if uow.learners.browsers_of(ctx.learner_id) > 1:
        raise Conflict(N_("This learner is shared with another browser; import into a fresh "
                          "browser."), reason="learner_has_browsers")


def staged_import(ctx: Context, document: dict[str, Any], source: Provenance,
                  staged: int) -> Imported:
    """Write an import into the staged learner step by step, then hand it to this browser."""
    rows = import_rows(ctx, document, source, staged)
    write_in_steps(ctx, "variants", rows.variants)  # before the attempts that refer to them
    write_in_steps(ctx, "attempts", rows.attempts)
    write_in_steps(ctx, "cards", rows.cards)
    with ctx.uow.read():
        by_variant, card_ids = ctx.uow.history.imported_ids(staged)
    attempt_ids = [by_variant[row["variant_id"]] for row in rows.attempts]
    write_in_steps(ctx, "review_log", [
        {**{key: value for key, value in log.items()
            if key not in ("question_id", "attempt_index")},
         "card_id": card_ids[log["question_id"]],
         "attempt_id": None if log["attempt_index"] is None
         else attempt_ids[log["attempt_index"]]} for log in rows.review_log])
    by_number = dict(zip((row["n"] for row in document["attempts"]), attempt_ids, strict=True))
    mastery_rows = restored_mastery(ctx, document, rows.attempts, by_number, staged)
    write_in_steps(ctx, "mastery", mastery_rows)
    with ctx.uow.locked(ctx.learner_id):  # an answer racing the import goes stale
        refuse_unless_empty(ctx)
        if not ctx.uow.learners.adopt_import(staged, ctx.learner_id, ctx.browser_id):
            raise Conflict(N_("This browser imported another file meanwhile; nothing of this "
                              "one was kept."), reason="learner_has_data")
        ctx.uow.self_assessments.add_many(ctx.browser_id, rows.self_assessments)
        if document.get("desired_retention") is not None:
            # The cards keep the due dates the file gives them, which this retention made.
            ctx.uow.settings.put_retention(staged, document["desired_retention"], ctx.now)
    result = ImportResult(len(attempt_ids), len(card_ids), len(rows.review_log),
                          len(rows.self_assessments), len(mastery_rows), source.vouched,
                          source.reason)
    return Imported(result, Identity(learner_id=staged, browser_id=ctx.browser_id))


def write_in_steps(ctx: Context, part: str, rows: list[dict[str, Any]]) -> None:
    """Insert one part of an import, ``UnitOfWork.step_rows`` rows to a transaction."""
    step = ctx.uow.step_rows
    for start in range(0, len(rows), step):
        with ctx.uow.write():
            ctx.uow.history.insert_imported(part, rows[start:start + step])
        ctx.uow.give_way()


def import_rows(ctx: Context, document: dict[str, Any], source: Provenance, learner_id: int
                ) -> ImportRows:
    """Return the rows of an import, as ``learner_id``'s (see ``import_learner_data``)."""
    variants, attempt_rows = [], []
    for index, record in enumerate(document["attempts"]):
        row = restored_attempt(ctx, index, record, source.vouched)
        variant_id = opaque_id(ctx)
        variants.append({
            "id": variant_id, "learner_id": learner_id, "question_id": row["question_id"],
            "lesson": row["lesson"], "kind": row["kind"], "seed": row["seed"],
            "bank_version": row["bank_version"], "served_at": row["served_at"],
            "answered": True, "open_book": not row["closed_book"]})
        attempt_rows.append({"learner_id": learner_id, "variant_id": variant_id, **row})
    return ImportRows(
        variants=variants, attempts=attempt_rows,
        cards=[{"learner_id": learner_id, **{name: row[name] for name in CARD_FIELDS}}
               for row in document["cards"]],
        review_log=[{"question_id": row["question_id"], "learner_id": learner_id,
                     "attempt_index": None if row["attempt"] is None else row["attempt"] - 1,
                     "vouched": source.vouched, **{name: row[name] for name in LOG_FIELDS}}
                    for row in document["review_log"]],
        self_assessments=[{name: row[name] for name in SELF_ASSESSMENT_FIELDS}
                          for row in document["self_assessments"]])


def restored_mastery(ctx: Context, document: dict[str, Any], attempts: list[dict[str, Any]],
                     attempt_ids: dict[int, int], learner_id: int) -> list[dict[str, Any]]:
    """Re-run the mastery policy on the imported attempts; return the rows it decides.

    A record exists where the policy says the question was ever mastered, as an answer would
    have left it. The file's ``evaluated_at`` is kept only where the file's record says what
    the policy says; a record the policy does not back is not imported.
    """
    claimed = {m["question_id"]: m for m in document["mastery"]}
    graded: dict[str, list[mastery_policy.GradedAttempt]] = {}
    lessons: dict[str, str] = {}
    for record, a in zip(document["attempts"], attempts, strict=True):
        if mastery_policy.holds(mastery_policy.READ, a):
            lessons[a["question_id"]] = a["lesson"]
            graded.setdefault(a["question_id"], []).append(mastery_policy.graded_attempt(
                attempt_ids[record["n"]], a["content_key"], a["seed"], a["bank_version"],
                a["submitted_at"], a["correct"], a["closed_book"]))
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
            "learner_id": learner_id, "question_id": question_id,
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
    with ctx.uow.read():
        rows = ctx.uow.history.optimizer_log(ctx.identity.learner_id)
    for row in rows:
        state = NEW_STATE if row.last_review_before is None else row.state_before
        writer.writerow((row.card_id, epoch_ms(row.reviewed_at), row.rating, state,
                         "" if row.duration_ms is None else row.duration_ms))
    return out.getvalue()
