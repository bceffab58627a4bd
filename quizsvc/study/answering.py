"""Grade answers once per Idempotency-Key, explain wrong ones, and show what was earned.

1. ``submit`` grades an answer to a served variant: one read (the answers repository's
   snapshot), the decisions in pure functions (``grade_answer``, then ``decide``, which calls
   ``review.outcome`` to review and judge mastery), one conditional write. If another
   transaction of the learner's got in between (``Stale``), the same steps run again under
   the learner's lock. A retry with the same key and body returns the first result
   (``replayed``); a wrong graded answer is reviewed Again at once, a right one Good until
   the learner picks Hard or Easy (``quizsvc.study.reviews``).
2. After a wrong answer the correct answer, solution, misconception and lesson link stay
   withheld until ``explain_attempt`` records why it was wrong: the rule the learner thinks
   they broke, picked from the offered ones, and a sentence. Where a wrong model matched,
   the reveal grades that diagnosis against the rule the model breaks
   (``quizsvc.review.diagnosis``).

Each function is one use case; it names its transactions' shapes (``ctx.uow``) and never
commits or rolls back.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError

from quizsvc.bank.answer_key import AnswerKey
from quizsvc.bank.catalog import ModelStep
from quizsvc.bank.kinds import KINDS
from quizsvc.bank.model import Grade, Misconception, QuestionKind, Rule, Text
from quizsvc.bank.teaching import Teaching
from quizsvc.errors import N_, Conflict, Gone, Invalid, NotFound
from quizsvc.review import diagnosis, outcome
from quizsvc.review.mastery import GradedAttempt, graded_attempt, practice_after_reveal
from quizsvc.review.ratings import ReviewRating
from quizsvc.review.scheduling import GRADED_CHOICES
from quizsvc.store.answer_rows import AnswerWrite, NewAttempt
from quizsvc.store.answers import AnswerSnapshot, KeyedAttempt, StoredAttempt
from quizsvc.store.repository import Stale
from quizsvc.study.context import Context
from quizsvc.study.serving import ServedQuestion, served_view

log = logging.getLogger(__name__)

ANSWER_TRIES = 3  # a lock-free try, then locked ones (open-book marking takes no lock)
MAX_ROW_ID = 2**31 - 1  # integer primary keys; larger path ids cannot exist


@dataclass(frozen=True)
class WrongModel:
    """The named wrong model a wrong answer matched: the rule it follows instead of the real
    one, and the lesson's rule it breaks with the link to where that rule is taught."""

    id: str
    name: Text
    believes: Text
    breaks: str
    breaks_title: Text
    taught_at: str


@dataclass(frozen=True)
class Reveal:
    """What a learner sees once they have earned it: answer, solution, feedback, lesson link."""

    correct_answer: Any
    solution: Text
    misconception: Misconception | None
    lesson_link: str
    explanation: str | None
    wrong_model: WrongModel | None = None
    diagnosis: Diagnosis | None = None


@dataclass(frozen=True)
class Diagnosis:
    """The rule a learner named as the one their wrong answer broke, and where it is taught.

    ``matched``: whether it is the rule the matched wrong model breaks (None: no wrong model
    matched, so there is nothing to grade it against). ``title`` and ``taught_at`` are None
    once the lesson no longer has the rule.
    """

    rule: str
    title: Text | None
    taught_at: str | None
    matched: bool | None


def diagnosis_of(ctx: Context, lesson_id: str, rule_id: str | None,
                 wrong_model: WrongModel | None) -> Diagnosis | None:
    """Return a stored diagnosis as the reveal shows it (None: the learner named no rule)."""
    if rule_id is None:
        return None
    lesson = ctx.index.lessons.get(lesson_id)
    rule = lesson.rule(rule_id) if lesson else None
    return Diagnosis(rule_id, rule.title if rule else None,
                     lesson.rule_link(rule) if lesson and rule else None,
                     diagnosis.diagnosis_matched(rule_id,
                                                 wrong_model.breaks if wrong_model else None))


def offered_rules(ctx: Context, attempt: Any) -> tuple[Rule, ...]:
    """Return the rules a learner may name as broken by a wrong answer (empty once the bank
    no longer has its question or lesson)."""
    question = ctx.index.questions.get(attempt.question_id)
    lesson = ctx.index.lessons.get(attempt.lesson)
    if question is None or lesson is None:
        return ()
    infos = (ctx.bank.misconception_info(lesson.id, mid) for mid in question.misconceptions)
    return diagnosis.offered_rules(lesson, question, (i.breaks for i in infos if i))


def wrong_model_of(ctx: Context, lesson_id: str, misconception: Misconception | None
                   ) -> WrongModel | None:
    """Look up the lesson's entry for a matched misconception (None: none matched, or the
    bank's catalogue no longer has it)."""
    if misconception is None:
        return None
    info = ctx.bank.misconception_info(lesson_id, misconception.id)
    lesson = ctx.index.lessons.get(lesson_id)
    rule = lesson.rule(info.breaks) if info and lesson else None
    if info is None or lesson is None or rule is None:
        return None
    return WrongModel(info.id, info.name, info.rule, rule.id, rule.title, lesson.rule_link(rule))


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
    submitted_answer: Any = None  # the learner's own answer, as sent
    replayed: bool = False
    practice: bool = False  # given soon after this question's answer was revealed
    diagnosis_options: tuple[Rule, ...] = ()  # while the explanation is awaited


def request_digest(variant_id: str, answer: Any) -> str:
    """Fingerprint an attempt request, to tell a retry from a reused key."""
    body = json.dumps({"variant_id": variant_id, "answer": answer}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(body.encode()).hexdigest()


def rating_choices(graded: bool, correct: bool | None, origin: str = "graded"
                   ) -> tuple[str, ...]:
    """Return the ratings a learner may still give an attempt (none for unverified history)."""
    if origin == "unverified":
        return ()
    if not graded:
        return tuple(rating.word for rating in ReviewRating)
    return tuple(rating.word for rating in sorted(GRADED_CHOICES)) if correct else ()


def answer_key_of(bank: Teaching, question_id: str, seed: int, sealed: str | None
                  ) -> AnswerKey:
    """Return a variant's sealed answer key: the stored one, else rebuilt from the bank.

    Variants served before keys were stored (or whose key format has changed since) are
    rebuilt, as every variant used to be.
    """
    if sealed is not None:
        try:
            return AnswerKey.from_json(sealed)
        except ValueError:
            log.warning("question %s: unreadable answer key; rebuilding the variant",
                        question_id)
    return AnswerKey.from_variant(bank.variant(question_id, seed))


def marks_of(bank: Teaching, key: AnswerKey, answer: Any) -> tuple[bool, ...]:
    """Mark a stored answer's elements right or wrong again; none for an answer no grader
    reads (as an old import let in), which still shows."""
    try:
        return bank.grade_key(key, answer).per_element
    except Invalid:
        return ()


def attempt_view(ctx: Context, attempt: Any, key: AnswerKey | None, rating: int | None,
                 per_element: tuple[bool, ...] | None = None, replayed: bool = False
                 ) -> AttemptView:
    """Build the client's view of an attempt; the reveal only once it was earned.

    ``attempt`` is an ``Attempt`` or any object with its columns as attributes; ``key`` the
    variant's answer key (None: the bank no longer has the variant, so nothing can be shown
    beyond the stored grade).
    """
    if per_element is None:
        per_element = (marks_of(ctx.bank, key, attempt.answer)
                       if key is not None and attempt.graded else ())
    reveal = None
    if attempt.revealed_at is not None and key is not None:
        hit = next((m for m in key.misconceptions if m.id == attempt.misconception_id), None)
        model = wrong_model_of(ctx, attempt.lesson, hit)
        reveal = Reveal(key.answer, key.solution, hit, key.lesson_link, attempt.explanation,
                        model, diagnosis_of(ctx, attempt.lesson,
                                            getattr(attempt, "diagnosed_rule", None), model))
    waiting = explainable(attempt)
    return AttemptView(
        id=attempt.id, variant_id=attempt.variant_id, question_id=attempt.question_id,
        kind=attempt.kind, graded=attempt.graded, correct=attempt.correct,
        score=attempt.score, per_element=tuple(per_element), closed_book=attempt.closed_book,
        submitted_at=attempt.submitted_at, duration_ms=attempt.duration_ms,
        explanation_required=waiting,
        rating=ReviewRating(rating).word if rating is not None else None,
        rating_choices=rating_choices(attempt.graded, attempt.correct,
                                      getattr(attempt, "origin", "graded")), reveal=reveal,
        submitted_answer=attempt.answer, replayed=replayed,
        practice=bool(getattr(attempt, "practice", False)),
        diagnosis_options=offered_rules(ctx, attempt) if waiting else ())


def explainable(attempt: Any) -> bool:
    """Tell whether an attempt still waits for the explanation that reveals its answer.

    Only a wrong answer this server graded does: an imported attempt no one can vouch for
    is never explained, so it can never reveal the answer of a seed its file chose.
    """
    return bool(attempt.graded and not attempt.correct and attempt.explanation is None
                and getattr(attempt, "origin", "graded") == "graded")


def stored_key(ctx: Context, attempt: StoredAttempt) -> AnswerKey | None:
    """Return the answer key of a stored attempt's variant (None once the bank moved on)."""
    if attempt.bank_version != str(ctx.bank.version):
        return None
    if attempt.question_id not in ctx.index.questions:
        return None
    return AnswerKey.from_variant(ctx.bank.variant(attempt.question_id, attempt.seed))


@dataclass(frozen=True)
class Graded:
    """An answer read against its variant's key: the grade (None for a self-rated card, whose
    ``answer`` is then the checked text, or None for a flashcard)."""

    key: AnswerKey
    answer: Any
    grade: Grade | None


def grade_answer(bank: Teaching, snapshot: AnswerSnapshot, answer: Any) -> Graded:
    """Read ``answer`` against the snapshot's variant (raises ``Invalid`` if unreadable)."""
    key = answer_key_of(bank, snapshot.question_id, snapshot.seed, snapshot.answer_key)
    kind = KINDS[snapshot.kind]
    if not kind.graded:
        return Graded(key, kind.check_answer(answer), None)
    return Graded(key, answer, bank.grade_key(key, answer))


def closed_book_of(snapshot: AnswerSnapshot, graded: Graded, now: datetime) -> bool:
    """Tell whether the answer counts as closed-book: served closed-book, and not practice
    (a variant served as practice, or an answer right after its question's reveal)."""
    return not snapshot.open_book and not practice_of(snapshot, graded, now)


def practice_of(snapshot: AnswerSnapshot, graded: Graded, now: datetime) -> bool:
    """Tell whether a graded answer is practice, not evidence: its variant was served as
    practice (a new variant tried after a reveal), or it comes too soon after a wrong
    answer's reveal to count."""
    return graded.grade is not None and (
        snapshot.practice or practice_after_reveal(snapshot.last_wrong_reveal, now))


def run_needed(snapshot: AnswerSnapshot, graded: Graded, now: datetime) -> bool:
    """Tell whether deciding the answer's mastery change needs the question's current run."""
    return graded.grade is not None and outcome.history_needed(
        snapshot.mastery, bool(graded.grade.correct), closed_book_of(snapshot, graded, now),
        snapshot.right_closed_book_span, now)


@dataclass(frozen=True)
class Decided:
    """An answer graded, reviewed and judged: the rows to write and what the view shows."""

    write: AnswerWrite
    key: AnswerKey
    rating: int | None
    per_element: tuple[bool, ...]


def decide(snapshot: AnswerSnapshot, graded: Graded, run: Sequence[GradedAttempt],
           now: datetime, idempotency_key: str, digest: str) -> Decided:
    """Decide every row one answer writes: a pure function of what was read and the answer.

    ``run`` is the question's current run of graded attempts when ``run_needed`` says so
    (empty otherwise).
    """
    grade = graded.grade
    correct = None if grade is None else bool(grade.correct)
    practice = practice_of(snapshot, graded, now)
    attempt = NewAttempt(
        learner_id=snapshot.learner_id, variant_id=snapshot.variant_id,
        question_id=snapshot.question_id, lesson=snapshot.lesson, kind=snapshot.kind,
        seed=snapshot.seed, bank_version=snapshot.bank_version,
        content_key=snapshot.content_key, served_at=snapshot.served_at, submitted_at=now,
        duration_ms=max(0, int((now - snapshot.served_at).total_seconds() * 1000)),
        answer=graded.answer, graded=grade is not None, correct=correct,
        score=None if grade is None else float(grade.score),
        misconception_id=grade.misconception.id if grade and grade.misconception else None,
        closed_book=not snapshot.open_book and not practice, practice=practice,
        revealed_at=now if grade is None or correct else None,
        idempotency_key=idempotency_key, request_digest=digest)
    if grade is None:  # a self-rated card is reviewed when rated
        return Decided(AnswerWrite(snapshot.review_seq, snapshot.open_book, attempt),
                       graded.key, None, ())
    card = snapshot.card
    review = outcome.review_graded(card.state if card else None, bool(correct), now,
                                   snapshot.settings)
    this_answer = graded_attempt(outcome.NEW_ATTEMPT_ID, snapshot.content_key, snapshot.seed,
                                 snapshot.bank_version, now, correct, attempt.closed_book)
    change = outcome.mastery_change(snapshot.mastery, this_answer, run, now)
    return Decided(AnswerWrite(snapshot.review_seq, snapshot.open_book, attempt,
                               card_id=card.id if card else None, review=review,
                               mastery=change),
                   graded.key, int(review.rating), tuple(grade.per_element))


def claimable(ctx: Context, snapshot: AnswerSnapshot) -> bool:
    """Tell whether the snapshot is of this learner's unanswered variant from this bank."""
    return (snapshot.learner_id == ctx.learner_id and not snapshot.answered
            and snapshot.bank_version == str(ctx.bank.version))


def submit(ctx: Context, variant_id: str, answer: Any, idempotency_key: str) -> AttemptView:
    """Grade one answer to a served variant, once per idempotency key.

    A retry with the same key and body returns the first result (``replayed``); the same key
    with another body is 422; a second answer to an answered variant is 409. An answer the
    bank cannot parse is 422 on ``answer`` and costs no attempt.

    Lock-free first: the snapshot is read holding no lock and the write (one statement on
    PostgreSQL) is conditional on ``review_seq``. A write that finds the snapshot stale writes
    nothing, and the answer is redone under the learner's lock, where it cannot go stale.
    """
    digest = request_digest(variant_id, answer)
    uow = ctx.uow
    for try_number in range(ANSWER_TRIES):
        try:
            if try_number == 0:
                with uow.read():
                    found = prepared(ctx, variant_id, answer, idempotency_key, digest)
                if isinstance(found, AttemptView):
                    return found
                with uow.statement():
                    return written(ctx, found)
            with uow.locked(ctx.learner_id):
                found = prepared(ctx, variant_id, answer, idempotency_key, digest)
                return found if isinstance(found, AttemptView) else written(ctx, found)
        except Stale:  # another change of the learner's got in between: redo, locked
            continue
        except IntegrityError:  # the key was used for another variant
            with uow.read():
                return replay_or_raise(ctx, idempotency_key, digest, Invalid(
                    "Idempotency-Key", N_("already used for a different request"),
                    location="headers", reason="idempotency_key_reused"))
    raise Conflict(N_("This answer kept colliding with the learner's other answers; send it "
                      "again."), reason="answer_collided")


def prepared(ctx: Context, variant_id: str, answer: Any, idempotency_key: str, digest: str
             ) -> Decided | AttemptView:
    """Read and decide one answer, in the open transaction: what to write, or the answer a
    request that cannot claim the variant gets (a replay; otherwise this raises)."""
    snapshot = ctx.uow.answers.read_snapshot(variant_id)
    if snapshot is None or not claimable(ctx, snapshot):
        return unclaimable(ctx, variant_id, idempotency_key, digest)
    try:
        graded = grade_answer(ctx.bank, snapshot, answer)
    except Invalid as unreadable:  # costs nothing; a retry of a used key is not unread
        return replay_or_raise(ctx, idempotency_key, digest, unreadable)
    run = (ctx.uow.answers.read_run(snapshot.learner_id, snapshot.question_id)
           if run_needed(snapshot, graded, ctx.now) else [])
    return decide(snapshot, graded, run, ctx.now, idempotency_key, digest)


def written(ctx: Context, decided: Decided) -> AttemptView:
    """Write a decided answer (``Stale`` if its snapshot was) and return its view."""
    attempt_id = ctx.uow.answers.write_answer(decided.write)
    stored = StoredAttempt(id=attempt_id, **decided.write.attempt.columns())
    return attempt_view(ctx, stored, decided.key, decided.rating, decided.per_element)


def replay_or_raise(ctx: Context, idempotency_key: str, digest: str, failure: Invalid
                    ) -> AttemptView:
    """Answer with the attempt stored under ``idempotency_key``, else raise ``failure``."""
    earlier = ctx.uow.answers.find_by_key(ctx.learner_id, idempotency_key)
    if earlier is not None:
        return replay(ctx, earlier, digest)
    raise failure


def unclaimable(ctx: Context, variant_id: str, idempotency_key: str, digest: str
                ) -> AttemptView:
    """Answer for a variant that could not be claimed: a retry gets the first result;
    otherwise 404 (unknown, or another learner's), 409 (answered) or 410 (older bank)."""
    earlier = ctx.uow.answers.find_by_key(ctx.learner_id, idempotency_key)
    if earlier is not None:
        return replay(ctx, earlier, digest)
    served = ctx.uow.answers.variant_state(variant_id)
    if served is None or served.learner_id != ctx.learner_id:
        raise NotFound(N_("No such variant."), reason="unknown_variant")
    if served.answered:
        raise Conflict(N_("This variant was already answered; fetch the next question."),
                       reason="already_answered")
    raise Gone(N_("The question bank changed since this variant was served; fetch the next "
                  "question again."), reason="bank_changed")


def replay(ctx: Context, earlier: KeyedAttempt, digest: str) -> AttemptView:
    """Answer a retried attempt request with the first result, or refuse a reused key."""
    if earlier.request_digest != digest:
        raise Invalid("Idempotency-Key", N_("already used for a different request"),
                      location="headers", reason="idempotency_key_reused")
    view = stored_view(ctx, owned_attempt(ctx, earlier.id))
    return AttemptView(**{**view.__dict__, "replayed": True})


def attempt_by_key(ctx: Context, idempotency_key: str) -> int | None:
    """Return the id of this learner's attempt sent under ``idempotency_key`` (None: none).

    A page posted twice (a second tab, Back then submit) goes on to the first post's result.
    """
    if ctx.identity is None or not idempotency_key:
        return None
    with ctx.uow.read():
        earlier = ctx.uow.answers.find_by_key(ctx.identity.learner_id, idempotency_key)
    return None if earlier is None else earlier.id


def owned_attempt(ctx: Context, attempt_id: int) -> StoredAttempt:
    """Return one of this learner's attempts or raise ``NotFound`` (in the open transaction)."""
    found = None
    if ctx.identity is not None and 0 < attempt_id <= MAX_ROW_ID:
        found = ctx.uow.answers.attempt(ctx.identity.learner_id, attempt_id)
    if found is None:
        raise NotFound(N_("No such attempt."), reason="unknown_attempt")
    return found


def stored_view(ctx: Context, attempt: StoredAttempt, rating: int | None = None
                ) -> AttemptView:
    """Return the view of a stored attempt (its rating read unless given)."""
    if rating is None:
        rating = ctx.uow.answers.rating_of(attempt.id)
    return attempt_view(ctx, attempt, stored_key(ctx, attempt), rating)


def get_attempt(ctx: Context, attempt_id: int) -> AttemptView:
    """Return one of this learner's attempts (with its reveal if earned)."""
    with ctx.uow.read():
        return stored_view(ctx, owned_attempt(ctx, attempt_id))


def attempt_question(ctx: Context, attempt_id: int) -> ServedQuestion | None:
    """Return the question one of this learner's attempts answered, as it was served.

    Pages show it beside the result. Like ``serving.next_question`` it carries the prompt,
    displayed parameters and answer shape only: the answer, solution and feedback stay in the
    attempt's reveal, which is earned. ``None`` when the bank has changed since (the variant
    can then no longer be rebuilt) or no longer has the question.
    """
    with ctx.uow.read():
        answered = owned_attempt(ctx, attempt_id)
    return question_of(ctx, answered)


def question_of(ctx: Context, answered: StoredAttempt) -> ServedQuestion | None:
    """Return the question a stored attempt answered, as it was served (no reads)."""
    q = ctx.index.questions.get(answered.question_id)
    if answered.bank_version != str(ctx.bank.version) or q is None:
        return None
    return served_view(q, answered.variant_id, ctx.bank.variant(q.id, answered.seed),
                       answered.served_at)


def model_step_of(ctx: Context, answered: StoredAttempt, lang: str) -> ModelStep | None:
    """Return the asked step as it ran and as the wrong model the answer matched replays it.

    Only once the reveal is earned, and only for a wrong model the ledger replays (a model
    computed by formula has no step to show); ``None`` otherwise, or once the bank has moved
    on. The tables are the worked solution's, in ``lang``. No reads: the bank replays.
    """
    if answered.revealed_at is None or answered.misconception_id is None:
        return None
    key = stored_key(ctx, answered)
    if key is None or key.kind is not QuestionKind.NUMERIC:
        return None
    return ctx.bank.model_step(answered.question_id, answered.seed, answered.misconception_id,
                               lang, key.answer)


def explain_attempt(ctx: Context, attempt_id: int, explanation: str, rule: str | None
                    ) -> AttemptView:
    """Record why a wrong answer was wrong: a sentence and the rule the learner thinks they
    broke, one of the offered ones (``rule`` None only when none is offered). This reveals
    the answer, solution and feedback, and grades the diagnosis where a wrong model matched.
    """
    text = explanation.strip()
    with ctx.uow.locked(ctx.learner_id):
        attempt = owned_attempt(ctx, attempt_id)
        if attempt.explanation is not None:
            raise Conflict(N_("This attempt already has an explanation."),
                           reason="already_explained")
        if not explainable(attempt):
            raise Conflict(N_("Only a wrong answer graded on this server takes an "
                              "explanation."), reason="explanation_not_needed")
        if not diagnosis.written_enough(text):  # the schema bounds the length
            raise Invalid("explanation", N_("write a sentence of at least %(words)s words "
                                            "(or %(han)s Chinese characters) on why the answer "
                                            "was wrong"),
                          params={"words": diagnosis.MIN_WORDS, "han": diagnosis.MIN_HAN},
                          reason="explanation_too_short")
        offered = {option.id for option in offered_rules(ctx, attempt)}
        if rule not in offered and (offered or rule is not None):
            raise Invalid("rule", N_("pick one of the rules offered for this attempt: the one "
                                     "you think you broke"), reason="unknown_rule")
        ctx.uow.answers.record_explanation(attempt.id, text, rule, ctx.now)
        return stored_view(ctx, replace(attempt, explanation=text, diagnosed_rule=rule,
                                        explained_at=ctx.now, revealed_at=ctx.now))
