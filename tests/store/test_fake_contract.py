"""The fake unit of work answers as the real one does, on SQLite and PostgreSQL alike.

Use-case tests (``tests/study``) run on ``tests.support.fake_uow.FakeUnitOfWork``; this file
keeps that fake honest. Each scenario drives a unit of work through its shapes and
repositories (directly, or through the use cases that call them), asserts what the
repositories promise, and returns a transcript of everything they answered. Each runs on the
real unit of work (bound to the test's rolled-back connection, both databases) and on a fresh
fake, and the two transcripts must be equal. Row ids are replaced by the order in which they
first appear, since a database's sequences need not start at 1.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError

from quizsvc.errors import Busy, Conflict
from quizsvc.review.optimizer import DEFAULT_PARAMETERS, Fit
from quizsvc.review.ratings import ReviewRating
from quizsvc.store.exports import Exported
from quizsvc.store.repository import NoTransaction, Stale
from quizsvc.store.sessions import StoredSession
from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study import answering, holds, lessons, reviews, serving, sessions, variants
from quizsvc.study.linking import digest
from tests.support.clock import FakeClock
from tests.support.context import registered_context
from tests.support.fake_bank import LESSON_ID, FakeBank
from tests.support.fake_uow import FakeUnitOfWork

Transcript = list[Any]


class Boom(Exception):
    """What a block raises to see its shape undone."""


class Ids:
    """Name row ids by the order they first appear in (per kind)."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, Any], int] = {}

    def __call__(self, kind: str, value: Any) -> Any:
        if value is None:
            return None
        return self.seen.setdefault((kind, value), len(
            [k for k in self.seen if k[0] == kind]) + 1)


def plain(value: Any, ids: Ids) -> Any:
    """Return a transcript entry: dataclasses as dicts, every row id (an ``id`` field, or an
    integer ``*_id`` one) by the order it first appeared in."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        entry = {}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if f.name == "id" and isinstance(item, int):
                entry[f.name] = ids(type(value).__name__, item)
            elif f.name.endswith("_id") and isinstance(item, int):
                entry[f.name] = ids(f.name, item)
            else:
                entry[f.name] = plain(item, ids)
        return entry
    if isinstance(value, list | tuple):
        return [plain(item, ids) for item in value]
    if isinstance(value, dict):
        return {key: plain(item, ids) for key, item in value.items()}
    return value


# ---------------------------------------------------------------- scenarios


def explain(ctx: Any, attempt_id: int, sentence: str) -> Any:
    """Explain a wrong attempt with the first rule it offers, as a learner picks one."""
    offered = answering.get_attempt(ctx, attempt_id).diagnosis_options
    return answering.explain_attempt(ctx, attempt_id, sentence,
                                     offered[0].id if offered else None)


def shapes(uow: Any) -> Transcript:
    """Repositories need a shape; shapes do not nest; a failed write leaves nothing behind;
    ``locked`` takes the lock; a read is rolled back."""
    clock = FakeClock()
    with pytest.raises(NoTransaction):
        uow.answers.variant_state("nothing")
    with uow.read(), pytest.raises(RuntimeError, match="do not nest"), uow.write():
        pass
    for shape in (uow.write, uow.statement):
        with pytest.raises(Boom), shape():
            assert uow.learners.register_browser(digest("undone"), clock()) is not None
            raise Boom
        with uow.read():
            assert uow.learners.browser_by_hash(digest("undone")) is None
    with uow.write():
        row = uow.learners.register_browser(digest("kept"), clock())
    assert row is not None
    with uow.write():  # the same browser again: None, and the caller rolls its learner back
        assert uow.learners.register_browser(digest("kept"), clock()) is None
    versions = []
    with uow.read():
        assert uow.learners.browser_by_hash(digest("kept")) == row
        versions.append(uow.answers.review_version(row.learner_id))
    with uow.locked(row.learner_id):
        versions.append(uow.answers.review_version(row.learner_id))
    with pytest.raises(Boom), uow.locked(row.learner_id):
        raise Boom
    with uow.read():
        versions.append(uow.answers.review_version(row.learner_id))
        assert uow.answers.review_version(row.learner_id + 1000) == (0, None)
    assert [seq for seq, _ in versions] == [0, 1, 1]
    return [versions]


def variant_row(learner_id: int, variant_id: str, question_id: str, clock: FakeClock
                ) -> dict[str, Any]:
    """Return a ``served_variant`` row as serving stores it (no key: graded by rebuilding)."""
    return {"id": variant_id, "learner_id": learner_id, "question_id": question_id,
            "lesson": LESSON_ID, "kind": "choice", "seed": 5, "bank_version": "fake-1",
            "served_at": clock(), "answered": False, "open_book": False,
            "answer_key": None, "content_key": f"content-{variant_id}"}


def sessions_and_serving(uow: Any) -> Transcript:
    """Sessions, their items and served variants: serving an item twice is ``Stale`` and
    undone; open variants are counted and marked open-book; old unfinished sessions go."""
    ids, clock = Ids(), FakeClock()
    transcript: Transcript = []
    with uow.write():
        me = uow.learners.register_browser(digest("me"), clock())
        other = uow.learners.register_browser(digest("other"), clock())
        uow.sessions.create_session(StoredSession("s1", me.learner_id, LESSON_ID, "quiz", 3,
                                                  clock()),
                                    [("running-first", "new"), ("budget-split", "due"),
                                     ("computed-card", "practice")])
    with uow.read():
        state = uow.sessions.session_state(me.learner_id, "s1")
        assert uow.sessions.session_state(other.learner_id, "s1") is None
        assert uow.sessions.session_of(other.learner_id, "s1") is None
        transcript += [plain(state, ids), plain(state.counts(), ids),
                       plain(state.next_item(), ids),
                       plain(uow.sessions.session_of(me.learner_id, "s1"), ids)]
    first = state.items[0].id
    clock.advance(minutes=1)
    with uow.statement():
        uow.sessions.serve_item(first, variant_row(me.learner_id, "v1", "running-first", clock))
    with pytest.raises(Stale), uow.statement():
        uow.sessions.serve_item(first, variant_row(me.learner_id, "v2", "running-first", clock))
    with pytest.raises(Stale), uow.statement():
        uow.sessions.serve_item(10**6, variant_row(me.learner_id, "v3", "running-first", clock))
    with uow.read():
        assert uow.answers.variant_state("v2") is None  # the losing write was undone
        assert uow.answers.variant_state("v3") is None
        state = uow.sessions.session_state(me.learner_id, "s1")
        transcript += [plain(state, ids), plain(state.next_item(), ids),
                       plain(uow.answers.variant_state("v1"), ids),
                       uow.sessions.open_variants(me.learner_id),
                       uow.sessions.open_variants(me.learner_id, "another-lesson"),
                       uow.sessions.open_variants(other.learner_id),
                       uow.sessions.session_of_open_variant(me.learner_id),
                       uow.sessions.session_of_open_variant(me.learner_id, LESSON_ID),
                       uow.sessions.session_of_open_variant(other.learner_id),
                       plain(uow.sessions.session_outcomes(me.learner_id, "s1"), ids),
                       plain(uow.sessions.session_outcomes(other.learner_id, "s1"), ids)]
    with uow.write():
        transcript += [uow.sessions.mark_open_book(me.learner_id, "another-lesson"),
                       uow.sessions.mark_open_book(me.learner_id, LESSON_ID),
                       uow.sessions.mark_open_book(me.learner_id)]
    with uow.read():
        transcript += [uow.sessions.open_variants(me.learner_id),
                       plain(uow.answers.read_snapshot("v1"), ids)]
    clock.advance(minutes=1)
    with uow.write():
        uow.sessions.create_session(StoredSession("s2", me.learner_id, LESSON_ID, "review", 1,
                                                  clock()), [("why-rollback", "new")])
        uow.sessions.create_session(StoredSession("s0", other.learner_id, LESSON_ID, "quiz", 0,
                                                  clock()), [])
        transcript += [uow.sessions.drop_oldest_unfinished(me.learner_id, keep=1),
                       uow.sessions.drop_oldest_unfinished(me.learner_id, keep=1)]
    with uow.read():
        assert uow.sessions.session_state(me.learner_id, "s1") is None  # the older one went
        assert uow.answers.variant_state("v1") is None  # with its unanswered variant
        transcript += [plain(uow.sessions.session_state(me.learner_id, "s2"), ids),
                       plain(uow.sessions.session_state(other.learner_id, "s0"), ids)]
    return transcript


def study_flow(uow: Any) -> Transcript:
    """The use cases over the repositories: serve, answer right and wrong across days (so
    mastery is won, lost and counted), explain, rate, undo, reuse a key; every read the
    repositories offer recorded along the way."""
    ids, clock, bank = Ids(), FakeClock(), FakeBank()
    ctx = registered_context(uow, bank, clock, token="flow")
    transcript: Transcript = []

    def now() -> Any:
        return dataclasses.replace(ctx, now=clock())

    def answer_next(session_id: str, right: bool, key: str) -> answering.AttemptView:
        item = serving.next_question(now(), session_id)
        assert item.question is not None
        variant = bank.variant(item.question.question_id, seed_of(item.question.variant_id))
        clock.advance(seconds=30)
        reply = variant.answer if right else wrong_of(variant)
        return answering.submit(now(), item.question.variant_id, reply, key)

    def seed_of(variant_id: str) -> int:
        with uow.read():
            snapshot = uow.answers.read_snapshot(variant_id)
        return snapshot.seed

    for day, right in enumerate([True, True, False, True, True]):
        session = sessions.start_session(now(), LESSON_ID, "quiz", 1)
        view = answer_next(session.id, right, f"day-{day}")
        transcript.append(plain(view, ids))
        if not right:
            transcript.append(plain(explain(now(), view.id, "I misread the budget"), ids))
        elif day == 1:
            transcript.append(plain(reviews.rating_intervals(now(), view.id), ids))
            transcript.append(plain(reviews.rate_attempt(now(), view.id, ReviewRating.EASY),
                                    ids))
            transcript.append(plain(reviews.undo_rating(now(), view.id), ids))
        with uow.read():
            question = view.question_id
            transcript += [
                plain(uow.answers.card_of(ctx.learner_id, question), ids),
                plain(uow.answers.review_of_attempt(view.id), ids),
                uow.answers.rating_of(view.id),
                plain(uow.answers.read_run(ctx.learner_id, question), ids),
                uow.sessions.contents_to_avoid(ctx.learner_id, question),
                plain(uow.sessions.session_outcomes(ctx.learner_id, session.id), ids),
                plain(uow.progress.card_dues(ctx.learner_id, LESSON_ID, clock()), ids),
                uow.progress.card_counts(ctx.learner_id, [question, "budget-split"], clock()),
                plain(uow.answers.attempt(ctx.learner_id, view.id), ids),
                plain(uow.answers.find_by_key(ctx.learner_id, f"day-{day}"), ids)]
        clock.advance(days=2)
    replayed = answering.submit(now(), view.variant_id, view.submitted_answer, "day-4")
    assert replayed.replayed and replayed.id == view.id
    with pytest.raises(Conflict):  # an answered variant, under a new key
        answering.submit(now(), view.variant_id, view.submitted_answer, "again")
    # a self-rated card, rated by the learner; then the book opened on an open question
    session = sessions.start_session(now(), LESSON_ID, "review", 4)
    while (item := serving.next_question(now(), session.id)).question is not None:
        if item.question.kind == "flashcard":
            card = answering.submit(now(), item.question.variant_id, None, "card")
            transcript.append(plain(reviews.rating_intervals(now(), card.id), ids))
            transcript.append(plain(reviews.rate_attempt(now(), card.id, ReviewRating.HARD),
                                    ids))
            with uow.read():
                transcript.append(plain(uow.answers.review_of_attempt(card.id), ids))
            transcript.append(plain(reviews.undo_rating(now(), card.id), ids))
            with uow.read():
                assert uow.answers.card_of(ctx.learner_id, "computed-card") is None
            continue
        transcript.append(lessons.open_the_book(now(), LESSON_ID))
        view = answering.submit(now(), item.question.variant_id,
                                "because" if item.question.kind == "explain" else
                                bank.variant(item.question.question_id,
                                             seed_of(item.question.variant_id)).answer,
                                f"open-{item.position}")
        transcript.append(plain(view, ids))
    transcript.append(plain(sessions.session_summary(now(), session.id), ids))
    with uow.read():
        transcript.append(plain(uow.sessions.session_outcomes(ctx.learner_id, session.id), ids))
    return transcript


def wrong_of(variant: Any) -> Any:
    """Return a wrong answer of the fake bank's numeric or choice variant."""
    if variant.input.type == "choice":
        return next(o.id for o in variant.input.options if o.id != variant.answer)
    return [n + 1 for n in variant.answer]


def stale_writes(uow: Any) -> Transcript:
    """A write from a stale snapshot raises ``Stale`` and writes nothing; a reused key raises
    ``IntegrityError`` and its shape is undone."""
    ids, clock, bank = Ids(), FakeClock(), FakeBank()
    ctx = registered_context(uow, bank, clock, token="stale")
    transcript: Transcript = []
    session = sessions.start_session(ctx, LESSON_ID, "quiz", 2)
    first = serving.next_question(ctx, session.id).question
    with uow.read():
        snapshot = uow.answers.read_snapshot(first.variant_id)
        graded = answering.grade_answer(bank, snapshot, bank.variant(
            snapshot.question_id, snapshot.seed).answer)
        decided = answering.decide(snapshot, graded, [], clock(), "k1", "digest")
    with uow.locked(ctx.learner_id):  # another change of the learner's meanwhile
        pass
    with pytest.raises(Stale), uow.statement():
        uow.answers.write_answer(decided.write)
    with uow.read():
        assert uow.answers.find_by_key(ctx.learner_id, "k1") is None
        assert not uow.answers.variant_state(first.variant_id).answered
        snapshot = uow.answers.read_snapshot(first.variant_id)
    fresh = dataclasses.replace(decided.write, review_seq=snapshot.review_seq)
    with uow.statement():
        attempt_id = uow.answers.write_answer(fresh)
    with pytest.raises(Stale), uow.statement():  # answered: claimed already
        uow.answers.write_answer(dataclasses.replace(fresh, review_seq=snapshot.review_seq + 1))
    second = serving.next_question(ctx, session.id).question
    with uow.read():
        snapshot = uow.answers.read_snapshot(second.variant_id)
        graded = answering.grade_answer(bank, snapshot, wrong_of(bank.variant(
            snapshot.question_id, snapshot.seed)))
        reused = answering.decide(snapshot, graded, [], clock(), "k1", "other digest")
    with pytest.raises(IntegrityError), uow.statement():
        uow.answers.write_answer(reused.write)
    with uow.read():
        assert not uow.answers.variant_state(second.variant_id).answered  # undone
        transcript += [plain(uow.answers.read_snapshot(second.variant_id), ids),
                       plain(uow.answers.attempt(ctx.learner_id, attempt_id), ids),
                       uow.answers.attempt(ctx.learner_id + 1, attempt_id),
                       uow.answers.attempt(ctx.learner_id, attempt_id + 1000)]
    return transcript


def mistakes_and_dues(uow: Any) -> Transcript:
    """Revealed mistakes come latest first (ties by id), each content once, eight at most,
    and steer serving; a card due at the instant asked about counts as due."""
    ids, clock, bank = Ids(), FakeClock(), FakeBank()
    ctx = registered_context(uow, bank, clock, token="mistakes")
    transcript: Transcript = []
    for n in range(11):
        ctx = dataclasses.replace(ctx, now=clock())
        with uow.write():
            uow.sessions.create_session(StoredSession(f"m{n}", ctx.learner_id, LESSON_ID,
                                                      "quiz", 1, clock()),
                                        [("running-first", "practice")])
        served = serving.next_question(ctx, f"m{n}").question
        assert served is not None
        transcript.append(served.prompt.en)
        view = answering.submit(ctx, served.variant_id, "waiting", f"wrong-{n}")
        if n % 4 != 3:  # one in four is never explained: never revealed
            explain(ctx, view.id, "I served the waiting queue first")
        with uow.read():
            transcript.append(uow.sessions.contents_to_avoid(ctx.learner_id, "running-first"))
        if n % 3 != 0:  # sometimes two reveals at one instant: the later id first
            clock.advance(minutes=n)
    with uow.read():
        card = uow.answers.card_of(ctx.learner_id, "running-first")
        due = card.state.due
        tiny = timedelta(microseconds=1)
        transcript += [uow.progress.card_counts(ctx.learner_id, ["running-first"], at)
                       for at in (due - tiny, due, due + tiny)]
        transcript.append(uow.progress.card_counts(ctx.learner_id, [], due))
        transcript.append(plain(uow.answers.read_run(ctx.learner_id, "running-first"), ids))
    return transcript


def mastery_changes(uow: Any) -> Transcript:
    """A question's mastery row is inserted when first mastered, lapsed by a wrong answer and
    updated when mastered again: each change as the policy decides it, on every store."""
    ids, clock, bank = Ids(), FakeClock(), FakeBank()
    ctx = registered_context(uow, bank, clock, token="mastery")
    transcript: Transcript = []
    mastered = []
    for n, right in enumerate([True, True, False, True, True]):
        ctx = dataclasses.replace(ctx, now=clock())
        with uow.write():
            uow.sessions.create_session(StoredSession(f"q{n}", ctx.learner_id, LESSON_ID,
                                                      "quiz", 1, clock()),
                                        [("budget-split", "practice")])
        served = serving.next_question(ctx, f"q{n}").question
        assert served is not None
        with uow.read():
            seed = uow.answers.read_snapshot(served.variant_id).seed
        variant = bank.variant("budget-split", seed)
        view = answering.submit(ctx, served.variant_id,
                                variant.answer if right else wrong_of(variant), f"answer-{n}")
        if not right:
            explain(ctx, view.id, "I split the budget evenly")
        with uow.read():
            [outcome] = uow.sessions.session_outcomes(ctx.learner_id, f"q{n}")
            snapshot = uow.answers.read_snapshot(served.variant_id)
            transcript += [plain(snapshot.mastery, ids), plain(outcome, ids),
                           snapshot.right_closed_book_span, snapshot.last_wrong_reveal]
        mastered.append(outcome.mastered)
        clock.advance(days=1)
    assert mastered == [None, True, False, False, True]  # insert, lapse, then update
    return transcript


def settings(uow: Any) -> Transcript:
    """The fit that schedules a card is the most specific scope's newest; retention's default."""
    clock = FakeClock()
    with uow.write():
        me = uow.learners.register_browser(digest("fits"), clock())
    transcript: Transcript = []

    def read() -> None:
        with uow.read():
            transcript.append([uow.settings.read_settings(me.learner_id, lesson)
                               for lesson in (LESSON_ID, "other")])
            transcript.append(uow.settings.retention_of(me.learner_id))

    def fit(first: float) -> Fit:
        return Fit((first, *DEFAULT_PARAMETERS[1:]), 500, 0.3, 0.4)

    read()
    for learner, lesson, first in [(None, None, 0.1), (None, LESSON_ID, 0.2),
                                   (me.learner_id, None, 0.3), (None, None, 0.4),
                                   (me.learner_id, LESSON_ID, 0.5)]:
        clock.advance(days=1)
        with uow.write():
            uow.settings.add_fit(fit(first), clock(), learner, lesson)
        read()
    return transcript


def holds_and_dues(uow: Any) -> Transcript:
    """Suspend and bury through the use case: the session start and the due counts leave the
    held items out, a burial ends when the next day starts, and an item not served yet
    leaves the sessions that picked it."""
    clock, bank = FakeClock(), FakeBank()
    ctx = registered_context(uow, bank, clock, token="holds")
    transcript: Transcript = []

    def now() -> Any:
        return dataclasses.replace(ctx, now=clock())

    def read() -> None:
        with uow.read():
            transcript.append(uow.progress.card_dues(ctx.learner_id, LESSON_ID, clock()))
            transcript.append(uow.progress.card_counts(
                ctx.learner_id, ["budget-split", "running-first", "why-rollback"], clock()))
            transcript.append(uow.holds.holds_in(ctx.learner_id, LESSON_ID))
            transcript.append(uow.holds.hold_of(ctx.learner_id, "why-rollback"))

    first = sessions.start_session(now(), LESSON_ID, "quiz", 2)
    for _ in range(2):
        served = serving.next_question(now(), first.id).question
        assert served is not None
        answering.submit(now(), served.variant_id, None if served.kind == "flashcard" else
                         bank.variant(served.question_id, 0).answer, f"h-{served.question_id}")
    clock.advance(days=200)
    waiting = sessions.start_session(now(), LESSON_ID, "review", 4)
    read()
    transcript.append(dataclasses.asdict(holds.suspend(now(), "budget-split", True)))
    transcript.append(dataclasses.asdict(holds.bury(now(), "why-rollback", True)))
    transcript.append(sessions.get_session(now(), waiting.id).total)
    read()
    clock.advance(days=1)
    read()
    transcript.append(dataclasses.asdict(holds.suspend(now(), "budget-split", False)))
    read()
    return transcript


def new_variants(uow: Any) -> Transcript:
    """A new variant of a revealed numeric answer is served as practice, one open at a time,
    never a closed-book question for the open-book warning; its answer is practice."""
    ids, clock, bank = Ids(), FakeClock(), FakeBank()
    ctx = registered_context(uow, bank, clock, token="variants")
    started = sessions.start_session(ctx, LESSON_ID, "quiz", 1)
    served = serving.next_question(ctx, started.id).question
    assert served is not None and served.question_id == "budget-split"

    def right(variant_id: str) -> Any:
        with uow.read():
            snapshot = uow.answers.read_snapshot(variant_id)
        assert snapshot is not None
        return bank.variant(snapshot.question_id, snapshot.seed).answer

    first = answering.submit(ctx, served.variant_id, right(served.variant_id), "first")
    transcript: Transcript = []
    tried = [variants.new_variant(ctx, first.id) for _ in range(3)]
    with uow.read():
        transcript.append(uow.sessions.open_variants(ctx.learner_id))
        transcript.append(uow.sessions.session_of_open_variant(ctx.learner_id))
        found = [uow.sessions.practice_variant(ctx.learner_id, t.variant_id) for t in tried]
        transcript.append([None if f is None else (f.question_id, f.attempt_id) for f in found])
        snapshot = uow.answers.read_snapshot(tried[-1].variant_id)
        assert snapshot is not None
        transcript.append(snapshot.practice)
    practice = answering.submit(ctx, tried[-1].variant_id, right(tried[-1].variant_id),
                                "practice")
    transcript.append((practice.practice, practice.closed_book))
    with uow.read():
        answered = uow.sessions.practice_variant(ctx.learner_id, tried[-1].variant_id)
        assert answered is not None
        transcript.append(ids("attempt", answered.attempt_id))
        transcript.append(uow.sessions.practice_variant(ctx.learner_id + 1,
                                                        tried[-1].variant_id))
def exports(uow: Any) -> Transcript:
    """Exported variants are recorded once each; their contents are read back per question."""
    clock = FakeClock()
    transcript: Transcript = []
    batch = [Exported("running-first", "c1", 7, "b1"), Exported("running-first", "c2", 8, "b1"),
             Exported("budget-split", "c3", 9, "b1")]
    for exported in (batch, [*batch[:1], Exported("running-first", "c1", 10, "b1")]):
        with uow.write():
            transcript.append(uow.exports.record(exported, "moodle", clock()))
    with uow.read():
        for question in ("running-first", "nothing-exported"):
            avoid = uow.sessions.contents_to_avoid(1, question)
            transcript.append((avoid.revealed, sorted(avoid.exported)))
    return transcript


SCENARIOS: dict[str, Callable[[Any], Transcript]] = {
    "shapes": shapes, "sessions and serving": sessions_and_serving, "study flow": study_flow,
    "stale writes": stale_writes, "mistakes and dues": mistakes_and_dues,
    "mastery changes": mastery_changes, "settings": settings,
    "holds and dues": holds_and_dues, "new variants": new_variants, "exports": exports}


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_the_fake_unit_of_work_answers_as_the_database_does(
        uow: UnitOfWork, scenario: Callable[[Any], Transcript]) -> None:
    on_the_database = scenario(uow)
    assert scenario(FakeUnitOfWork()) == on_the_database


def test_a_fake_read_refuses_a_write() -> None:
    """The real read is rolled back, so a use case writing in one would lose the write."""
    uow = FakeUnitOfWork()
    with uow.read(), pytest.raises(RuntimeError, match="writes nothing"):
        uow.learners.register_browser(digest("x"), FakeClock()())


def test_a_fake_write_past_its_deadline_is_undone() -> None:
    uow = FakeUnitOfWork()
    uow.deadline = 0.0
    with pytest.raises(Busy), uow.write():
        uow.learners.register_browser(digest("late"), FakeClock()())
    with uow.fresh().read() as other:
        assert other.learners.browser_by_hash(digest("late")) is None


def test_the_fake_shares_its_rows_with_a_fresh_unit_of_work() -> None:
    uow, clock = FakeUnitOfWork(), FakeClock()
    with uow.write():
        row = uow.learners.register_browser(digest("shared"), clock())
    with uow.fresh() as job, job.read():
        assert job.learners.browser_by_hash(digest("shared")) == row
    assert job.closed
