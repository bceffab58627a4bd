"""Serve a session's questions: a fresh variant per question, its prompt and nothing more.

What a served question shows is its prompt, displayed parameters and answer shape, never its
answer, seed or ledger scenario. The variant's answer key is sealed beside it when served, so
grading never rebuilds the variant.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from quizsvc.bank.answer_key import AnswerKey
from quizsvc.bank.content import content_key
from quizsvc.bank.errors import BankError
from quizsvc.bank.model import AnswerInput, Question, Text, Variant
from quizsvc.bank.publication import SERVED_SEED_BITS
from quizsvc.errors import N_, Conflict, Gone
from quizsvc.store.repository import Stale
from quizsvc.store.sessions import ContentsToAvoid
from quizsvc.study.context import Context
from quizsvc.study.sessions import SessionView, opaque_id, owned_session, session_view

log = logging.getLogger(__name__)

SEED_DRAWS = 16  # seeds tried for one served variant before a bank failure is reported
SERVE_TRIES = 3  # reads of a session whose next item concurrent requests keep serving


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


def served_view(q: Question, variant_id: str, built: Variant, served_at: datetime
                ) -> ServedQuestion:
    """Return what the client may see of a built variant of ``q``."""
    return ServedQuestion(variant_id, q.id, str(q.kind), q.lesson, q.section, q.title,
                          built.prompt, dict(built.params), built.input, served_at)


def draw_variant(ctx: Context, q: Question, seen: tuple[str, ...] = (),
                 exported: frozenset[str] = frozenset()) -> tuple[int, Variant]:
    """Draw a seed for ``q`` and build its variant, one the service may serve closed-book.

    A content kept for decks and exports (``quizsvc.bank.publication``) is never served, nor
    one in ``exported``: the contents of ``q`` an LMS export took away (``exported_variant``),
    whose answers a class holds whatever today's partition says.
    ``seen`` lists the contents of the learner's revealed mistakes on ``q``, latest first:
    such a content is served only when no other turns up, and then the one revealed longest
    ago, so a question asked again after its reveal asks something new. A seed the bank
    cannot use is redrawn.
    """
    publication = ctx.index.publication
    best: tuple[int, int, Variant] | None = None  # (how long ago it was seen, seed, variant)
    failure: BankError | None = None
    for _ in range(SEED_DRAWS):
        seed = ctx.rng.getrandbits(SERVED_SEED_BITS)
        try:
            built = ctx.bank.variant(q.id, seed)
        except BankError as error:  # a template may find no usable numbers for one seed
            log.warning("question %s: seed %d gives no variant (%s); drawing another", q.id,
                        seed, error)
            failure = error
            continue
        if not publication.servable(q, built):
            continue
        key = content_key(built)
        if key in exported:
            continue
        if key not in seen:
            return seed, built
        age = seen.index(key)
        if best is None or age > best[0]:
            best = (age, seed, built)
    if best is not None:
        return best[1], best[2]
    raise failure or BankError("variant", "seed", f"no servable variant of {q.id} in "
                               f"{SEED_DRAWS} draws")


def next_question(ctx: Context, session_id: str) -> NextItem:
    """Serve the session's first unanswered question (the same variant until it is answered).

    Each question gets a freshly drawn variant (a new seed) when first served, so a review of
    a numeric question never repeats the numbers of the last one. One read of the session with
    its items, for a question not served yet a second of the contents to steer away from (its
    revealed mistakes and those an LMS export took away, in one statement), and one write
    that serves it unless a concurrent request did first; then this request serves what that
    one stored.
    """
    uow = ctx.uow
    for _ in range(SERVE_TRIES):
        with uow.read():
            state = owned_session(ctx, session_id)
            item = state.next_item()
            avoid = ContentsToAvoid((), frozenset())
            if item is not None and item.variant_id is None:
                avoid = uow.sessions.contents_to_avoid(ctx.learner_id, item.question_id)
        view = session_view(state)
        if item is None:
            return NextItem(view, None, None)
        if item.variant_id is not None:  # served already: the same variant until answered
            assert item.seed is not None and item.served_at is not None
            served = ctx.index.question(item.question_id)
            return NextItem(view, item.position, served_view(
                served, item.variant_id, ctx.bank.variant(served.id, item.seed),
                item.served_at))
        q = ctx.index.questions.get(item.question_id)
        if q is None:
            raise Gone(N_("This session's next question is no longer in the bank; start a new "
                          "session."), reason="question_gone")
        seed, built = draw_variant(ctx, q, avoid.revealed, avoid.exported)
        variant_id = opaque_id(ctx)
        try:
            with uow.statement():
                uow.sessions.serve_item(item.id, {
                    "id": variant_id, "learner_id": ctx.learner_id, "question_id": q.id,
                    "lesson": q.lesson, "kind": str(q.kind), "seed": seed,
                    "bank_version": str(ctx.bank.version), "served_at": ctx.now,
                    "answered": False, "open_book": False,
                    "answer_key": AnswerKey.from_variant(built).to_json(),
                    "content_key": content_key(built)})
        except Stale:  # another request served this item first: serve what it stored
            continue
        return NextItem(view, item.position, served_view(q, variant_id, built, ctx.now))
    raise Conflict(N_("This session's next question kept being served by other requests; "
                      "ask again."), reason="serve_collided")
