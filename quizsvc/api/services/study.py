"""Run the closed-book flow: start a session, serve variants, grade, explain, reveal, rate.

1. ``start_session`` picks due reviews first, then new questions (quiz mode then tops up with
   the questions due soonest; flashcards mode takes only flashcards).
2. ``next_question`` serves a fresh variant: its prompt, displayed parameters and answer
   shape, never its answer, seed or ledger scenario.
3. ``submit_attempt`` grades it once per ``Idempotency-Key``: a retry returns the first
   result and records nothing twice. A wrong graded answer is reviewed Again at once; a right
   one is reviewed Good until the learner picks Hard or Easy (``rate_attempt``).
4. After a wrong answer the correct answer, solution, misconception and lesson link stay
   withheld until ``explain_attempt`` records why it was wrong.
5. Every graded attempt re-runs the mastery policy for its question.

Each function is one use case and commits once.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from quizsvc.api.services import catalog
from quizsvc.api.services.context import Context, Identity
from quizsvc.bank.answer_key import AnswerKey
from quizsvc.bank.errors import BankError
from quizsvc.bank.model import (
    AnswerInput,
    Misconception,
    Question,
    QuestionKind,
    Text,
    Variant,
)
from quizsvc.errors import Conflict, Gone, Invalid, NotFound
from quizsvc.review import mastery as mastery_policy
from quizsvc.review import scheduling
from quizsvc.review.scheduling import CardState, ReviewRating
from quizsvc.store import answer_path, scheduler_settings
from quizsvc.store.driver import DriverConnection, StatementRunner
from quizsvc.store.models import (
    Attempt,
    Learner,
    Mastery,
    ReviewCard,
    ReviewLog,
    ServedVariant,
    SessionItem,
    StudySession,
)

log = logging.getLogger(__name__)

MODES = ("review", "quiz", "flashcards")
MAX_EXPLANATION = 4000
MAX_TEXT_ANSWER = 4000
MAX_IDEMPOTENCY_KEY = 200
SEED_BITS = 48
SEED_DRAWS = 8  # seeds tried for one served variant before a bank failure is reported
MAX_ROW_ID = 2**31 - 1  # integer primary keys; larger path ids cannot exist
SESSIONS, ITEMS, SERVED = StudySession.__table__, SessionItem.__table__, ServedVariant.__table__
ATTEMPTS, LEARNERS = Attempt.__table__, Learner.__table__
CARDS, LOGS, MASTERY = ReviewCard.__table__, ReviewLog.__table__, Mastery.__table__


def opaque_id(ctx: Context) -> str:
    """Return a new 128-bit url-safe id from the context's random source."""
    return base64.urlsafe_b64encode(ctx.rng.getrandbits(128).to_bytes(16, "big")
                                    ).rstrip(b"=").decode()


# ---------------------------------------------------------------- sessions


@dataclass(frozen=True)
class SessionView:
    """A study session as the client sees it."""

    id: str
    lesson: str
    mode: str
    size: int
    total: int
    answered: int
    due: int
    new: int
    practice: int
    created_at: datetime

    @property
    def done(self) -> bool:
        """Tell whether every question of the session has been answered."""
        return self.answered >= self.total


def start_session(ctx: Context, lesson: str, mode: str, size: int) -> SessionView:
    """Start a session of up to ``size`` questions of ``lesson``: due first, then new.

    Review mode serves every kind that is due or new (spaced repetition); flashcards mode
    does the same for flashcards alone (front, reveal, four self-ratings, nothing graded in
    between); quiz mode leaves out self-rated cards and, when short, adds the graded
    questions due soonest.
    """
    if mode not in MODES:
        raise Invalid("mode", f"must be one of {', '.join(MODES)}")
    max_size = int(ctx.config.get("MAX_SESSION_SIZE", 50))
    if not 1 <= size <= max_size:
        raise Invalid("size", f"must be between 1 and {max_size}")
    idx = catalog.index(ctx.bank)
    if lesson not in idx.lessons:
        raise Invalid("lesson", "unknown lesson")
    candidates = [q for q in idx.by_lesson[lesson] if wanted_in(mode, q.kind)]
    wanted = {q.id for q in candidates}
    cards = ctx.session.execute(
        select(ReviewCard.question_id, ReviewCard.due)
        .where(ReviewCard.learner_id == ctx.learner_id, ReviewCard.lesson == lesson)
        .order_by(ReviewCard.due, ReviewCard.id)
    ).all()
    known = {question_id for question_id, _ in cards}
    due = [qid for qid, due_at in cards if qid in wanted and due_at <= ctx.now]
    new = [q.id for q in candidates if q.id not in known]
    picked: list[tuple[str, str]] = [(qid, "due") for qid in due[:size]]
    picked += [(qid, "new") for qid in new[: size - len(picked)]]
    if mode == "quiz" and len(picked) < size:
        chosen = {qid for qid, _ in picked}
        later = [qid for qid, due_at in cards if qid in wanted and qid not in chosen]
        picked += [(qid, "practice") for qid in later[: size - len(picked)]]
    study = StudySession(id=opaque_id(ctx), learner_id=ctx.learner_id, lesson=lesson,
                         mode=mode, size=size, created_at=ctx.now)
    ctx.session.add(study)
    ctx.session.flush()  # no ORM relationships: parents are flushed before their children
    ctx.session.add_all(
        SessionItem(session_id=study.id, position=position, question_id=qid, reason=reason)
        for position, (qid, reason) in enumerate(picked, start=1))
    ctx.session.commit()
    reasons = [reason for _, reason in picked]
    return SessionView(study.id, lesson, mode, size, len(picked), 0, reasons.count("due"),
                       reasons.count("new"), reasons.count("practice"), ctx.now)


@dataclass(frozen=True)
class StartCounts:
    """What a session of one mode would find now, over every lesson: due and new questions."""

    mode: str
    due_now: int
    new: int


def start_counts(ctx: Context, mode: str) -> StartCounts:
    """Count the due and new questions of the kinds a session of ``mode`` serves.

    The start pages show it, so a flashcards page counts flashcards and a quiz page graded
    questions, as ``start_session`` picks them (two indexed counts over at most the bank's
    question ids, whatever the number of cards).
    """
    if mode not in MODES:
        raise Invalid("mode", f"must be one of {', '.join(MODES)}")
    idx = catalog.index(ctx.bank)
    wanted = sorted(q.id for questions in idx.by_lesson.values() for q in questions
                    if wanted_in(mode, q.kind))
    mine = (ReviewCard.learner_id == ctx.learner_id) & ReviewCard.question_id.in_(wanted)
    cards, due_now = ctx.session.execute(
        select(func.count(), func.count().filter(ReviewCard.due <= ctx.now)).where(mine)).one()
    ctx.session.commit()
    return StartCounts(mode, int(due_now), len(wanted) - int(cards))


def wanted_in(mode: str, kind: QuestionKind) -> bool:
    """Tell whether a session of ``mode`` serves questions of ``kind``."""
    if mode == "quiz":
        return kind in catalog.GRADED_KINDS
    if mode == "flashcards":
        return kind == QuestionKind.FLASHCARD
    return True


# The next-question path runs these on every request: built once (see CLAIM_VARIANT below).
SESSION_BY_ID = select(SESSIONS).where(SESSIONS.c.id == bindparam("b_session"))
SESSION_COUNTS = (
    select(ITEMS.c.reason, func.count(), func.count(SERVED.c.id))
    .select_from(ITEMS.outerjoin(SERVED,
                                 (SERVED.c.id == ITEMS.c.variant_id)
                                 & SERVED.c.answered.is_(True)))
    .where(ITEMS.c.session_id == bindparam("b_session")).group_by(ITEMS.c.reason))
NEXT_ITEM = (
    select(ITEMS.c.id, ITEMS.c.position, ITEMS.c.question_id,
           SERVED.c.id.label("vid"), SERVED.c.seed,
           SERVED.c.served_at)
    .select_from(ITEMS.outerjoin(SERVED,
                                 SERVED.c.id == ITEMS.c.variant_id))
    .where(ITEMS.c.session_id == bindparam("b_session"),
           ITEMS.c.variant_id.is_(None) | SERVED.c.answered.is_(False))
    .order_by(ITEMS.c.position)
    .limit(1))
INSERT_SERVED = insert(SERVED)
SERVE_ITEM = update(ITEMS).where(ITEMS.c.id == bindparam("b_item"))


def owned_session(ctx: Context, session_id: str) -> Any:
    """Return one of this learner's sessions (a row) or raise ``NotFound``."""
    study = ctx.session.connection().execute(SESSION_BY_ID, {"b_session": session_id}).first()
    if study is None or study.learner_id != ctx.learner_id:
        raise NotFound("No such session.")
    return study


def session_view(ctx: Context, study: Any) -> SessionView:
    """Count a session's items by reason, and its answers."""
    counts = {"due": 0, "new": 0, "practice": 0}
    total = answered = 0
    for reason, n, done in ctx.session.connection().execute(SESSION_COUNTS,
                                                             {"b_session": study.id}):
        counts[reason] = n
        total += n
        answered += done
    return SessionView(study.id, study.lesson, study.mode, study.size, total, answered,
                       counts["due"], counts["new"], counts["practice"], study.created_at)


def get_session(ctx: Context, session_id: str) -> SessionView:
    """Return one of this learner's sessions with its progress."""
    return session_view(ctx, owned_session(ctx, session_id))


# ---------------------------------------------------------------- serving


@dataclass(frozen=True)
class ServedQuestion:
    """A variant as served: what may be shown before answering, and nothing more."""

    variant_id: str
    question_id: str
    kind: str
    lesson: str
    section: str
    title: Text
    prompt: Text
    params: dict[str, Any]
    input: AnswerInput
    served_at: datetime


@dataclass(frozen=True)
class NextItem:
    """The session's next question, or ``question=None`` when the session is done."""

    session: SessionView
    position: int | None
    question: ServedQuestion | None

    @property
    def done(self) -> bool:
        """Tell whether the session has nothing left to serve."""
        return self.question is None


def serve(ctx: Context, variant_id: str, question_id: str, seed: int, served_at: datetime
          ) -> ServedQuestion:
    """Build the client's view of a served variant (prompt, displayed params, input)."""
    return served_view(catalog.question(ctx, question_id), variant_id,
                       ctx.bank.variant(question_id, seed), served_at)


def served_view(q: Question, variant_id: str, built: Variant, served_at: datetime
                ) -> ServedQuestion:
    """Return what the client may see of a built variant of ``q``."""
    return ServedQuestion(variant_id, q.id, str(q.kind), q.lesson, q.section, q.title,
                          built.prompt, dict(built.params), built.input, served_at)


def next_question(ctx: Context, session_id: str) -> NextItem:
    """Serve the session's first unanswered question (the same variant until it is answered).

    Each question gets a freshly drawn variant (a new seed) when first served, so a review of
    a numeric question never repeats the numbers of the last one.
    """
    study = owned_session(ctx, session_id)
    db = ctx.session.connection()
    row = db.execute(NEXT_ITEM, {"b_session": study.id}).first()
    if row is None or row.vid is not None:  # nothing new to serve: end the read at once
        view = session_view(ctx, study)
        ctx.session.commit()
        if row is None:
            return NextItem(view, None, None)
        return NextItem(view, row.position,
                        serve(ctx, row.vid, row.question_id, row.seed, row.served_at))
    q = catalog.index(ctx.bank).questions.get(row.question_id)
    if q is None:
        raise Gone("This session's next question is no longer in the bank; start a new "
                   "session.")
    variant_id = opaque_id(ctx)
    for draw in range(1, SEED_DRAWS + 1):
        seed = ctx.rng.getrandbits(SEED_BITS)
        try:
            built = ctx.bank.variant(q.id, seed)
            break
        except BankError as error:  # a template may find no usable numbers for one seed
            if draw == SEED_DRAWS:
                raise
            log.warning("question %s: seed %d gives no variant (%s); drawing another", q.id,
                        seed, error)
    question_view = served_view(q, variant_id, built, ctx.now)
    # Seal the answer key now, while the variant is built: grading then needs no rebuild.
    answer_key = AnswerKey.from_variant(built).to_json()
    db.execute(INSERT_SERVED, {
        "id": variant_id, "learner_id": ctx.learner_id, "question_id": q.id, "lesson": q.lesson,
        "kind": str(q.kind), "seed": seed, "bank_version": str(ctx.bank.version),
        "served_at": ctx.now, "answered": False, "open_book": False,
        "answer_key": answer_key})
    db.execute(SERVE_ITEM, {"b_item": row.id, "variant_id": variant_id})
    view = session_view(ctx, study)
    ctx.session.commit()
    return NextItem(view, row.position, question_view)


# ---------------------------------------------------------------- attempts


@dataclass(frozen=True)
class Reveal:
    """What a learner sees once they have earned it: answer, solution, feedback, lesson link."""

    correct_answer: Any
    solution: Text
    misconception: Misconception | None
    lesson_link: str
    explanation: str | None


@dataclass(frozen=True)
class AttemptView:
    """An attempt's result, with the reveal only when it has been earned."""

    id: int
    variant_id: str
    question_id: str
    kind: str
    graded: bool
    correct: bool | None
    score: float | None
    per_element: tuple[bool, ...]
    closed_book: bool
    submitted_at: datetime
    duration_ms: int
    explanation_required: bool
    rating: str | None
    rating_choices: tuple[str, ...]
    reveal: Reveal | None
    replayed: bool = False


def request_digest(variant_id: str, answer: Any) -> str:
    """Fingerprint an attempt request, to tell a retry from a reused key."""
    body = json.dumps({"variant_id": variant_id, "answer": answer}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(body.encode()).hexdigest()


def rating_choices(attempt: Any) -> tuple[str, ...]:
    """Return the ratings a learner may still give this attempt."""
    if not attempt.graded:
        return ("again", "hard", "good", "easy")
    return ("hard", "good", "easy") if attempt.correct else ()


RATING_UNKNOWN = -1  # attempt_view: look the rating up


def attempt_view(ctx: Context, attempt: Any, rating: int | None = RATING_UNKNOWN,
                 replayed: bool = False, per_element: tuple[bool, ...] | None = None,
                 key: AnswerKey | None = None) -> AttemptView:
    """Build the client's view of an attempt; the reveal only once it was earned.

    ``attempt`` is an ``Attempt`` or any object with its columns as attributes (the answer
    path passes the inserted values); ``rating`` is the fsrs rating of its review (None: not
    reviewed), looked up when not given. ``key`` is the variant's answer key when the caller
    has it (the answer path); otherwise the variant is rebuilt.
    """
    if rating == RATING_UNKNOWN:
        rating = ctx.session.scalar(select(LOGS.c.rating).where(LOGS.c.attempt_id == attempt.id))
    reveal = None
    built: AnswerKey | Variant | None = key if key is not None else variant_of(ctx, attempt)
    if per_element is None:
        grade = ctx.bank.grade_key if isinstance(built, AnswerKey) else ctx.bank.grade
        per_element = (grade(built, attempt.answer).per_element
                       if built is not None and attempt.graded else ())
    if attempt.revealed_at is not None and built is not None:
        hit = next((m for m in built.misconceptions if m.id == attempt.misconception_id), None)
        reveal = Reveal(built.answer, built.solution, hit, built.lesson_link,
                        attempt.explanation)
    return AttemptView(
        id=attempt.id, variant_id=attempt.variant_id, question_id=attempt.question_id,
        kind=attempt.kind, graded=attempt.graded, correct=attempt.correct,
        score=attempt.score, per_element=tuple(per_element), closed_book=attempt.closed_book,
        submitted_at=attempt.submitted_at, duration_ms=attempt.duration_ms,
        explanation_required=bool(attempt.graded and not attempt.correct
                                  and attempt.explanation is None),
        rating=ReviewRating(rating).name.lower() if rating is not None else None,
        rating_choices=rating_choices(attempt), reveal=reveal, replayed=replayed)


def check_answer_shape(kind: QuestionKind, answer: Any) -> Any:
    """Validate the answer of a self-rated question (a flashcard has none; free text is text)."""
    if kind is QuestionKind.FLASHCARD:
        if answer not in (None, ""):
            raise Invalid("answer", "a flashcard takes no answer: send null, then rate it")
        return None
    if not isinstance(answer, str) or not answer.strip():
        raise Invalid("answer", "expected your explanation as non-empty text")
    if len(answer) > MAX_TEXT_ANSWER:
        raise Invalid("answer", f"at most {MAX_TEXT_ANSWER} characters")
    return answer


# The statements the slow paths share (retries, conflicts, explanations, ratings).
LOCK_LEARNER = (update(LEARNERS).where(LEARNERS.c.id == bindparam("b_learner"))
                .values(review_seq=LEARNERS.c.review_seq + 1))
SERVED_BY_ID = select(SERVED.c.learner_id, SERVED.c.answered).where(
    SERVED.c.id == bindparam("b_variant"))
ATTEMPT_BY_KEY = select(ATTEMPTS.c.id, ATTEMPTS.c.request_digest).where(
    ATTEMPTS.c.learner_id == bindparam("b_learner"),
    ATTEMPTS.c.idempotency_key == bindparam("b_key"))
ANSWER_TRIES = 3  # a lock-free try, then locked ones (open-book marking takes no lock)


def submit_attempt(ctx: Context, variant_id: str, answer: Any, idempotency_key: str
                   ) -> AttemptView:
    """Grade one answer to a served variant, once per idempotency key.

    A retry with the same key and body returns the first result (``replayed``); the same key
    with another body is 422; a second answer to an answered variant is 409. An answer the
    bank cannot parse is 422 on ``answer`` and costs no attempt.

    This is the hot path of the service (``quizsvc/api/README.md``; ``answer_as_browser`` is
    the API's way in). It runs on a driver connection of its own
    (``store.driver.DriverConnection``), not on the session: see ``answer_variant``.
    """
    check_idempotency_key(idempotency_key)
    if ctx.session.in_transaction():  # on SQLite it would hold the writer lock meanwhile
        ctx.session.commit()
    with DriverConnection(ctx.session.get_bind()) as db:
        return answer_variant(ctx, db, variant_id, answer, idempotency_key)


def answer_as_browser(db: DriverConnection, known_browser: Callable[[Identity], Context],
                      token_hash: str, variant_id: str, answer: Any, idempotency_key: str
                      ) -> AttemptView | None:
    """``submit_attempt`` for the browser stored as ``token_hash``, found by the answer's read.

    The API's hot path: the browser lookup is part of the snapshot's query, so a plain answer
    costs two statements on PostgreSQL. None when that query finds nothing (an unknown
    browser, or a variant unknown or another learner's), having written nothing: the caller
    then goes the general way (``load_identity``, then ``submit_attempt``), which tells those
    cases apart. Otherwise ``known_browser`` is told the identity found (it returns the use
    case's ``Context``) before the answer goes on exactly as in ``submit_attempt``.
    """
    found = answer_path.read_snapshot_as_browser(db, token_hash, variant_id)
    if found is None:
        return None
    snapshot, browser_id = found
    ctx = known_browser(Identity(learner_id=snapshot.learner_id, browser_id=browser_id))
    check_idempotency_key(idempotency_key)
    return answer_variant(ctx, db, variant_id, answer, idempotency_key, snapshot)


def check_idempotency_key(idempotency_key: str) -> None:
    """Refuse a missing or overlong Idempotency-Key (422 on the header)."""
    if not idempotency_key or len(idempotency_key) > MAX_IDEMPOTENCY_KEY:
        raise Invalid("Idempotency-Key", f"required, 1..{MAX_IDEMPOTENCY_KEY} characters",
                      location="headers")


def answer_variant(ctx: Context, db: DriverConnection, variant_id: str, answer: Any,
                   idempotency_key: str, snapshot: answer_path.AnswerSnapshot | None = None
                   ) -> AttemptView:
    """Answer ``variant_id`` on ``db``: lock-free first, then under the learner lock.

    One query reads the variant with its sealed answer key, the learner's ``review_seq``, the
    question's card and mastery record (``store.answer_path``; the current run of graded
    attempts too when the mastery policy needs it), holding no lock (``snapshot``, when the
    caller has read it so already); the answer is graded, reviewed and judged by the mastery
    policy in Python; one write records it all, on condition that ``review_seq`` is unchanged
    and the variant still unanswered. If another transaction got in between, the answer is
    redone under the learner lock, where the snapshot cannot go stale. A variant that cannot
    be claimed (answered, someone else's, unknown, from an older bank) takes the slow path,
    which tells a retry from the other cases.
    """
    digest = request_digest(variant_id, answer)
    for try_number in range(ANSWER_TRIES):
        locked = try_number > 0
        if locked:
            db.begin()
            lock_learner_on(db, ctx.learner_id)
        if locked or snapshot is None:
            snapshot = answer_path.read_snapshot(db, variant_id)
        if snapshot is None or not claimable(ctx, snapshot):
            db.rollback()
            return unclaimable(ctx, variant_id, idempotency_key, digest)
        try:
            view = answer_snapshot(ctx, db, snapshot, answer, idempotency_key, digest, locked)
        except (Invalid, IntegrityError):
            # Unreadable (it costs nothing), or the key was used for another variant:
            # either way a retry of a used key gets the first result.
            earlier = find_by_key(ctx, idempotency_key)
            ctx.session.commit()
            if earlier is not None:
                return replay(ctx, earlier, digest)
            raise
        if view is not None:
            return view
    raise Conflict("This answer kept colliding with the learner's other answers; send it "
                   "again.")


def claimable(ctx: Context, snapshot: answer_path.AnswerSnapshot) -> bool:
    """Tell whether the snapshot is of this learner's unanswered variant from this bank."""
    return (snapshot.learner_id == ctx.learner_id and not snapshot.answered
            and snapshot.bank_version == str(ctx.bank.version))


def answer_snapshot(ctx: Context, db: DriverConnection, snapshot: answer_path.AnswerSnapshot,
                    answer: Any, idempotency_key: str, digest: str, locked: bool
                    ) -> AttemptView | None:
    """Grade, review and judge the answer from ``snapshot``, then write it on condition.

    ``locked``: ``db`` holds the learner lock (its transaction is open), so the write cannot
    find the snapshot stale; otherwise the write is a transaction of its own. Returns the
    view, or None when the snapshot went stale (nothing written). Raises ``Invalid`` for an
    unreadable answer and ``IntegrityError`` for a key used on another variant, with the
    transaction rolled back.
    """
    key = answer_key_of(ctx, snapshot)
    try:
        decided = decide_answer(ctx, db, snapshot, key, answer, idempotency_key, digest)
        if not locked:
            db.begin(one_statement=True)
        attempt_id = answer_path.write_answer(db, decided.write)
    except BaseException:
        db.rollback()
        raise
    if attempt_id is None:  # stale snapshot, or marked open-book meanwhile: redo
        db.rollback()
        return None
    db.commit()
    attempt = SimpleNamespace(id=attempt_id, **decided.write.attempt)
    return attempt_view(ctx, attempt, decided.rating, per_element=decided.per_element, key=key)


def answer_key_of(ctx: Context, snapshot: answer_path.AnswerSnapshot) -> AnswerKey:
    """Return the variant's sealed answer key: the stored one, else rebuilt from the bank.

    Variants served before keys were stored (or whose key format has changed since) are
    rebuilt, as every variant used to be.
    """
    if snapshot.answer_key is not None:
        try:
            return AnswerKey.from_json(snapshot.answer_key)
        except ValueError:
            log.warning("variant %s: unreadable answer key; rebuilding the variant",
                        snapshot.variant_id)
    return AnswerKey.from_variant(ctx.bank.variant(snapshot.question_id,
                                                  snapshot.seed))


@dataclass(frozen=True)
class DecidedAnswer:
    """An answer graded, reviewed and judged: the rows to write and what the view shows."""

    write: answer_path.AnswerWrite
    rating: int | None
    per_element: tuple[bool, ...]


def decide_answer(ctx: Context, db: StatementRunner, snapshot: answer_path.AnswerSnapshot,
                  key: AnswerKey, answer: Any, idempotency_key: str, digest: str
                  ) -> DecidedAnswer:
    """Grade ``answer`` and decide every row it writes (raises ``Invalid`` if unreadable).

    ``db`` is the snapshot's connection: the mastery policy may read the graded history.
    """
    kind = QuestionKind(snapshot.kind)
    graded = kind in catalog.GRADED_KINDS
    values: dict[str, Any] = {
        "learner_id": ctx.learner_id, "variant_id": snapshot.variant_id,
        "question_id": snapshot.question_id, "lesson": snapshot.lesson, "kind": snapshot.kind,
        "seed": snapshot.seed, "bank_version": snapshot.bank_version, "graded": graded,
        "correct": None, "score": None, "misconception_id": None,
        "served_at": snapshot.served_at, "submitted_at": ctx.now,
        "duration_ms": max(0, int((ctx.now - snapshot.served_at).total_seconds() * 1000)),
        "closed_book": not snapshot.open_book, "explanation": None, "explained_at": None,
        "idempotency_key": idempotency_key, "request_digest": digest}
    if not graded:
        values.update(answer=check_answer_shape(kind, answer), revealed_at=ctx.now)
        return DecidedAnswer(answer_path.AnswerWrite(
            ctx.learner_id, snapshot.review_seq, snapshot.variant_id, snapshot.open_book,
            values), None, ())
    grade = ctx.bank.grade_key(key, answer)
    if grade.parse_error:
        raise Invalid("answer", grade.parse_error)
    values.update(
        answer=answer, correct=bool(grade.correct), score=float(grade.score),
        misconception_id=grade.misconception.id if grade.misconception else None,
        revealed_at=ctx.now if grade.correct else None)
    rating = scheduling.rating_for_grade(bool(grade.correct))
    card_row = snapshot.card
    if card_row is None:
        before = scheduling.new_card(ctx.now)
    else:
        before = CardState(card_row.state, card_row.step, card_row.stability,
                           card_row.difficulty, card_row.due, card_row.last_review)
    after = scheduling.review(before, rating, ctx.now, snapshot.settings)
    card = state_columns(after)
    if card_row is None:
        card.update(learner_id=ctx.learner_id, question_id=snapshot.question_id,
                    lesson=snapshot.lesson, created_at=ctx.now)
    review = {
        "learner_id": ctx.learner_id, "rating": int(rating), "reviewed_at": ctx.now,
        "duration_ms": values["duration_ms"], "rated_by_learner": False,
        "state_before": before.state, "step_before": before.step,
        "stability_before": before.stability, "difficulty_before": before.difficulty,
        "due_before": before.due, "last_review_before": before.last_review}
    action, mastery = mastery_change(ctx, db, snapshot, values)
    return DecidedAnswer(answer_path.AnswerWrite(
        ctx.learner_id, snapshot.review_seq, snapshot.variant_id, snapshot.open_book, values,
        card_id=card_row.id if card_row else None, card=card, log=review,
        mastery_action=action, mastery_id=snapshot.mastery_id, mastery=mastery),
        int(rating), tuple(grade.per_element))


def lock_learner_on(db: DriverConnection, learner_id: int) -> None:
    """``lock_learner`` for the answer path's driver connection (its transaction open)."""
    answer_path.lock_learner(db, learner_id)


def lock_learner(ctx: Context) -> None:
    """Apply this learner's reviews one at a time: lock the learner row until the commit.

    Every use case that changes a learner's attempts, cards, review log or mastery calls it
    first. The row lock keeps two browsers of one learner from both creating a question's
    card or reviewing the same state (a lost update); bumping ``review_seq`` tells the
    lock-free answer path that what it read may be stale. An UPDATE of a non-key column
    takes PostgreSQL's ``FOR NO KEY UPDATE`` lock, so the learner's other inserts (foreign
    keys) are not blocked; on SQLite the writer lock already serialises transactions.
    """
    ctx.session.connection().execute(LOCK_LEARNER, {"b_learner": ctx.learner_id})


def unclaimable(ctx: Context, variant_id: str, idempotency_key: str, digest: str
                ) -> AttemptView:
    """Answer for a variant that could not be claimed: a retry gets the first result;
    otherwise 404 (unknown, or another learner's), 409 (answered) or 410 (older bank)."""
    earlier = find_by_key(ctx, idempotency_key)
    if earlier is not None:
        return replay(ctx, earlier, digest)
    served = ctx.session.connection().execute(SERVED_BY_ID, {"b_variant": variant_id}).first()
    if served is None or served.learner_id != ctx.learner_id:
        raise NotFound("No such variant.")
    if served.answered:
        raise Conflict("This variant was already answered; fetch the next question.")
    raise Gone("The question bank changed since this variant was served; fetch the next "
               "question again.")


def find_by_key(ctx: Context, idempotency_key: str) -> Any:
    """Return (id, request_digest) of this learner's attempt under ``idempotency_key``."""
    return ctx.session.connection().execute(
        ATTEMPT_BY_KEY, {"b_learner": ctx.learner_id, "b_key": idempotency_key}).first()


def replay(ctx: Context, earlier: Any, digest: str) -> AttemptView:
    """Answer a retried attempt request with the first result, or refuse a reused key."""
    if earlier.request_digest != digest:
        raise Invalid("Idempotency-Key", "already used for a different request",
                      location="headers")
    return attempt_view(ctx, owned_attempt(ctx, earlier.id), replayed=True)


def owned_attempt(ctx: Context, attempt_id: int) -> Attempt:
    """Return one of this learner's attempts or raise ``NotFound``."""
    if not 0 < attempt_id <= MAX_ROW_ID:
        raise NotFound("No such attempt.")
    attempt = ctx.session.get(Attempt, attempt_id)
    if attempt is None or attempt.learner_id != ctx.learner_id:
        raise NotFound("No such attempt.")
    return attempt


def get_attempt(ctx: Context, attempt_id: int) -> AttemptView:
    """Return one of this learner's attempts (with its reveal if earned)."""
    return attempt_view(ctx, owned_attempt(ctx, attempt_id))


def attempt_question(ctx: Context, attempt_id: int) -> ServedQuestion | None:
    """Return the question one of this learner's attempts answered, as it was served.

    Pages show it beside the result. Like ``next_question`` it carries the prompt, displayed
    parameters and answer shape only: the answer, solution and feedback stay in the
    attempt's reveal, which is earned. ``None`` when the bank has changed since, as the
    variant can then no longer be rebuilt.
    """
    attempt = owned_attempt(ctx, attempt_id)
    if attempt.bank_version != str(ctx.bank.version):
        return None
    return serve(ctx, attempt.variant_id, attempt.question_id, attempt.seed,
                 attempt.served_at)


def explain_attempt(ctx: Context, attempt_id: int, explanation: str) -> AttemptView:
    """Record why a wrong answer was wrong; this reveals the answer, solution and feedback."""
    lock_learner(ctx)
    attempt = owned_attempt(ctx, attempt_id)
    if not attempt.graded or attempt.correct:
        raise Conflict("Only a wrong graded answer takes an explanation.")
    if attempt.explanation is not None:
        raise Conflict("This attempt already has an explanation.")
    text = explanation.strip()
    if not text:
        raise Invalid("explanation", "write why the answer was wrong")
    if len(text) > MAX_EXPLANATION:
        raise Invalid("explanation", f"at most {MAX_EXPLANATION} characters")
    attempt.explanation = text
    attempt.explained_at = ctx.now
    attempt.revealed_at = ctx.now
    ctx.session.commit()
    return attempt_view(ctx, attempt)


# ---------------------------------------------------------------- reviews


CARD_OF_QUESTION = select(CARDS.c.id, CARDS.c.state, CARDS.c.step, CARDS.c.stability,
                          CARDS.c.difficulty, CARDS.c.due, CARDS.c.last_review).where(
    CARDS.c.learner_id == bindparam("b_learner"), CARDS.c.question_id == bindparam("b_question"))
INSERT_CARD = insert(CARDS).returning(CARDS.c.id)
UPDATE_CARD = update(CARDS).where(CARDS.c.id == bindparam("b_card"))
INSERT_LOG = insert(LOGS)


def record_review(ctx: Context, attempt: Any, rating: ReviewRating, reviewed_at: datetime,
                  by_learner: bool) -> None:
    """Review the attempt's card with ``rating`` (creating the card) and log it. The log
    keeps the card's state before the review so a rating can be redone."""
    db = ctx.session.connection()
    settings = scheduler_settings.read_settings(ctx.session, ctx.learner_id, attempt.lesson)
    row = db.execute(CARD_OF_QUESTION, {"b_learner": ctx.learner_id,
                                        "b_question": attempt.question_id}).first()
    if row is None:
        before = scheduling.new_card(ctx.now)
        after = scheduling.review(before, rating, reviewed_at, settings)
        card_id = db.execute(INSERT_CARD, {
            "learner_id": ctx.learner_id, "question_id": attempt.question_id,
            "lesson": attempt.lesson, "created_at": ctx.now, **state_columns(after)}
        ).scalar_one()
    else:
        card_id = row.id
        before = CardState(row.state, row.step, row.stability, row.difficulty, row.due,
                           row.last_review)
        after = scheduling.review(before, rating, reviewed_at, settings)
        db.execute(UPDATE_CARD, {"b_card": card_id, **state_columns(after)})
    db.execute(INSERT_LOG, {
        "card_id": card_id, "learner_id": ctx.learner_id, "attempt_id": attempt.id,
        "rating": int(rating), "reviewed_at": reviewed_at, "duration_ms": attempt.duration_ms,
        "rated_by_learner": by_learner, "state_before": before.state,
        "step_before": before.step, "stability_before": before.stability,
        "difficulty_before": before.difficulty, "due_before": before.due,
        "last_review_before": before.last_review})


def state_columns(state: CardState) -> dict[str, Any]:
    """Return fsrs state as ``review_card`` column values."""
    return {"state": state.state, "step": state.step, "stability": state.stability,
            "difficulty": state.difficulty, "due": state.due, "last_review": state.last_review}


def rate_attempt(ctx: Context, attempt_id: int, rating_name: str) -> AttemptView:
    """Rate an attempt's review: Hard/Good/Easy after a right answer, 4 buttons for cards.

    A right answer was already reviewed Good; choosing another rating redoes that review from
    the card's state before it, as long as it is still the card's latest review. A wrong
    answer stays Again.
    """
    try:
        rating = ReviewRating.from_name(rating_name)
    except KeyError:
        raise Invalid("rating", "must be one of again, hard, good, easy") from None
    lock_learner(ctx)
    attempt = owned_attempt(ctx, attempt_id)
    if rating.name.lower() not in rating_choices(attempt):
        if attempt.graded and not attempt.correct:
            if rating is ReviewRating.AGAIN:
                return attempt_view(ctx, attempt)
            raise Conflict("A wrong answer is reviewed Again; it cannot be rated higher.")
        raise Conflict("A right answer is rated Hard, Good or Easy.")
    log = ctx.session.scalars(select(ReviewLog).where(ReviewLog.attempt_id == attempt.id)
                              ).first()
    if log is None:
        record_review(ctx, attempt, rating, ctx.now, by_learner=True)
    else:
        latest = ctx.session.scalar(select(func.max(ReviewLog.id))
                                    .where(ReviewLog.card_id == log.card_id))
        if latest != log.id:
            raise Conflict("This card was reviewed again since; that rating can no longer "
                           "change.")
        before = CardState(log.state_before, log.step_before, log.stability_before,
                           log.difficulty_before, log.due_before, log.last_review_before)
        settings = scheduler_settings.read_settings(ctx.session, ctx.learner_id,
                                                    attempt.lesson)
        after = scheduling.review(before, rating, log.reviewed_at, settings)
        ctx.session.connection().execute(UPDATE_CARD, {"b_card": log.card_id,
                                                       **state_columns(after)})
        log.rating = int(rating)
        log.rated_by_learner = True
    ctx.session.commit()
    return attempt_view(ctx, attempt, int(rating))


# ---------------------------------------------------------------- mastery


def mastery_change(ctx: Context, db: StatementRunner, snapshot: answer_path.AnswerSnapshot,
                   attempt: dict[str, Any]) -> tuple[str | None, dict[str, Any] | None]:
    """Decide how one new graded attempt changes its question's mastery record.

    The only writer of ``mastery`` rows; returns the action ("insert", "update", "lapse" or
    None) and the columns to set. Incremental, and equal to re-running ``mastery.evaluate``
    over the whole history: a wrong answer lapses a mastered record; a right open-book
    answer changes nothing; a right closed-book answer can only turn "not mastered" into
    "mastered", which needs the current run of graded attempts (read only then, in the
    snapshot's transaction: ``review_seq`` covers it too; the verdict on the run is the
    verdict on the whole history, since a wrong answer resets it). A row exists once the
    question was ever mastered; ``evaluated_at`` is when its verdict last changed. The new
    attempt has no id yet: it takes part as ``answer_path.NEW_ATTEMPT_ID``, filled in when
    written.
    """
    if not attempt["correct"]:
        if snapshot.mastery_id is None or not snapshot.mastered:
            return None, None
        return "lapse", {"mastered": False, "mastered_at": None, "evidence": [],
                         "policy": mastery_policy.POLICY, "evaluated_at": ctx.now}
    if not attempt["closed_book"] or snapshot.mastered:
        return None, None
    if not mastery_policy.partner_possible(snapshot.right_closed_book_span,
                                           attempt["submitted_at"]):
        return None, None
    history = [mastery_policy.GradedAttempt(row.id, (row.seed, row.bank_version),
                                            row.submitted_at, row.correct, row.closed_book)
               for row in answer_path.read_run(db, ctx.learner_id, snapshot.question_id)]
    history.append(mastery_policy.GradedAttempt(
        answer_path.NEW_ATTEMPT_ID, (attempt["seed"], attempt["bank_version"]),
        attempt["submitted_at"], True, True))
    verdict = mastery_policy.evaluate(history)
    if not verdict.mastered:
        return None, None
    values: dict[str, Any] = {
        "mastered": True, "mastered_at": verdict.mastered_at, "evidence": list(verdict.evidence),
        "policy": mastery_policy.POLICY, "evaluated_at": ctx.now}
    if snapshot.mastery_id is not None:
        return "update", values
    values.update(learner_id=ctx.learner_id, question_id=snapshot.question_id,
                  lesson=snapshot.lesson)
    return "insert", values


def variant_of(ctx: Context, attempt: Any) -> Variant | None:
    """Rebuild the variant an attempt answered (None if the bank version moved on)."""
    if attempt.bank_version != str(ctx.bank.version):
        return None
    return ctx.bank.variant(attempt.question_id, attempt.seed)
