"""A graded answer writes what the definitions say, and nothing else, on both databases.

``answering.submit`` reads one snapshot (``store.answers.read_snapshot``), decides in pure
functions (``bank`` grading, ``review.outcome``) and writes once, on condition
(``store.answers.write_answer``). These tests hold the answers repository and the use case to
the definitions, as contract tests on SQLite and PostgreSQL:

- one attempt, one review log row holding the card's state *before* the review, and the card
  as ``scheduling.review`` leaves it;
- a mastery record equal to ``mastery.evaluate`` over the question's whole graded history
  (the long random walk across days is a use-case test on the fake unit of work,
  ``tests/study/test_mastery_history.py``; the rows it relies on are checked here);
- ``learner.review_seq`` bumped by every change to a learner's reviews (that is how the
  lock-free path notices it read something stale);
- grading from the stored answer key, or from the rebuilt variant when the key is missing
  or unreadable, with the same result; the key itself never sent to a client;
- the request's connection going back to the pool with nothing open or locked, however the
  request ends.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.orm import Session

from quizsvc import create_app
from quizsvc.bank.answer_key import AnswerKey
from quizsvc.http import browser as http_browser
from quizsvc.http.browser import sign_csrf
from quizsvc.review import scheduling
from quizsvc.review.scheduling import CardState, ReviewRating
from quizsvc.store.answer_rows import AnswerWrite
from quizsvc.store.answers import AnswerRepository
from quizsvc.store.models import (
    Attempt,
    Browser,
    Learner,
    Mastery,
    ReviewCard,
    ReviewLog,
    ServedVariant,
)
from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study import answering
from quizsvc.study.linking import digest
from tests.support.browsers import ApiBrowser, Study
from tests.support.databases import committed_database
from tests.support.fake_bank import LESSON_ID
from tests.support.mastery_check import assert_record_is_the_policy_s

NUMERIC_SOLUTION = ("Running requests are served first.", "running 先分配。")


# ---------------------------------------------------------------- helpers


def learner_of(db: Session, browser: ApiBrowser) -> int:
    """Return the id of the learner behind ``browser``'s cookie."""
    token = browser.client.get_cookie("quizsvc_browser").value
    return db.scalar(select(Browser.learner_id).where(
        Browser.token_hash == digest(token)))


def review_seq(db: Session, learner_id: int) -> int:
    """Return the learner's ``review_seq`` as committed by the app's requests."""
    db.expire_all()
    return db.scalar(select(Learner.review_seq).where(Learner.id == learner_id))


def card_state(card: ReviewCard | None, now: datetime) -> CardState:
    """Return a stored card's fsrs state (a new card's when there is none yet)."""
    if card is None:
        return scheduling.new_card(now)
    return CardState(card.state, card.step, card.stability, card.difficulty, card.due,
                     card.last_review)


def card_of(db: Session, learner_id: int, question_id: str) -> ReviewCard | None:
    """Return the learner's card for a question, freshly read."""
    db.expire_all()
    return db.scalars(select(ReviewCard).where(ReviewCard.learner_id == learner_id,
                                               ReviewCard.question_id == question_id)
                      ).one_or_none()


def serve_quiz_question(study: Study) -> dict:
    """Start a one-question quiz and return the served question's JSON."""
    session = study.start(LESSON_ID, mode="quiz", size=1)
    return study.next(session["id"])["question"]


def count(db: Session, model: Any, *where: Any) -> int:
    """Count a table's rows matching ``where``."""
    return db.scalar(select(func.count()).select_from(model).where(*where))


# ---------------------------------------------------------------- the rows of one answer


@pytest.mark.parametrize("right", [True, False], ids=["right", "wrong"])
def test_an_answer_writes_one_attempt_one_log_row_of_the_state_before_and_the_reviewed_card(
        study: Study, db: Session, clock: Any, right: bool) -> None:
    """Twice: the question's first answer (a new card) and a later one (a stored card)."""
    rating = ReviewRating.GOOD if right else ReviewRating.AGAIN
    first_question = None
    for round_number in range(2):
        question = serve_quiz_question(study)
        vid, qid = question["variant_id"], question["question_id"]
        assert qid == (first_question or qid)  # the second time the card is due: first
        clock.advance(seconds=17)
        learner_id = learner_of(db, study.browser)
        card_before = card_of(db, learner_id, qid)
        assert (card_before is None) is (round_number == 0)
        before = card_state(card_before, clock.now)
        answer = study.right_answer(vid) if right else study.wrong_answer(vid)
        attempts, logs = count(db, Attempt), count(db, ReviewLog)

        response = study.answer(vid, answer, key=f"rows-{round_number}")
        assert response.status_code == 201, response.json
        body = response.json

        assert count(db, Attempt) == attempts + 1 and count(db, ReviewLog) == logs + 1
        attempt = db.get(Attempt, body["id"])
        served = db.get(ServedVariant, vid)
        grade = study.bank.grade(study.variant(vid), answer)
        assert (attempt.learner_id, attempt.variant_id, attempt.question_id, attempt.lesson,
                attempt.kind, attempt.seed, attempt.bank_version) == (
            learner_id, vid, qid, LESSON_ID, question["kind"], served.seed, served.bank_version)
        assert (attempt.answer, attempt.graded, attempt.correct, attempt.score,
                attempt.misconception_id) == (
            answer, True, right, grade.score,
            grade.misconception.id if grade.misconception else None)
        assert (attempt.served_at, attempt.submitted_at, attempt.duration_ms) == (
            served.served_at, clock.now, 17_000)
        assert attempt.closed_book is True and served.answered is True
        assert (attempt.explanation, attempt.explained_at) == (None, None)
        assert attempt.revealed_at == (clock.now if right else None)
        assert (attempt.idempotency_key, attempt.request_digest) == (
            f"rows-{round_number}", answering.request_digest(vid, answer))

        log = db.scalars(select(ReviewLog).where(ReviewLog.attempt_id == attempt.id)).one()
        card = card_of(db, learner_id, qid)
        assert log.card_id == card.id and log.learner_id == learner_id
        assert (log.rating, log.reviewed_at, log.duration_ms, log.rated_by_learner) == (
            int(rating), clock.now, 17_000, False)
        assert CardState(log.state_before, log.step_before, log.stability_before,
                         log.difficulty_before, log.due_before,
                         log.last_review_before) == before
        assert card_state(card, clock.now) == scheduling.review(before, rating, clock.now)
        if card_before is None:
            assert (card.lesson, card.created_at) == (LESSON_ID, clock.now)
        else:
            assert card.id == card_before.id
        assert body["rating"] == rating.name.lower() and body["correct"] is right
        record = assert_mastery_is_the_policy_s(db, learner_id, qid)
        assert (record is not None) is (right and round_number == 1)  # two days, two right
        first_question = qid
        clock.advance(days=3)


# ---------------------------------------------------------------- mastery


def assert_mastery_is_the_policy_s(db: Session, learner_id: int, question_id: str
                                   ) -> Mastery | None:
    """Assert the stored record is what ``mastery.evaluate`` says of the whole history."""
    db.expire_all()
    attempts = db.scalars(select(Attempt).where(Attempt.learner_id == learner_id,
                                                Attempt.question_id == question_id)).all()
    record = db.scalars(select(Mastery).where(Mastery.learner_id == learner_id,
                                              Mastery.question_id == question_id)
                        ).one_or_none()
    return assert_record_is_the_policy_s(attempts, record, LESSON_ID)


# ---------------------------------------------------------------- review_seq


def test_every_change_to_a_learner_s_reviews_bumps_review_seq_and_nothing_else_does(
        study: Study, browser: ApiBrowser, new_browser: Callable[[], ApiBrowser],
        db: Session, clock: Any) -> None:
    learner_id = learner_of(db, browser)
    seq = review_seq(db, learner_id)

    def bumped(by: int) -> None:
        nonlocal seq
        assert review_seq(db, learner_id) == seq + by
        seq += by

    session = study.start(LESSON_ID, mode="review", size=10)
    answered: dict[str, dict] = {}
    while not (item := study.next(session["id"]))["done"]:
        question = item["question"]
        vid, kind = question["variant_id"], question["kind"]
        if kind == "numeric":
            assert study.answer(vid, "eight").status_code == 422  # costs nothing
            bumped(0)
            assert browser.get(f"/api/lessons/{LESSON_ID}").status_code == 409  # asks first
            bumped(0)
            answer = study.wrong_answer(vid)
        elif kind == "choice":
            answer = study.right_answer(vid)
        elif kind == "flashcard":
            answer = None
        else:
            answer = "rejected drafts roll back"
        response = study.answer(vid, answer)
        assert response.status_code == 201, response.json
        bumped(1)  # graded or not, an answer is a change: one lock-free write, one bump
        answered[kind] = response.json
        assert study.answer(vid, answer).status_code == 409
        bumped(0)
        clock.advance(minutes=1)
    assert set(answered) == {"numeric", "choice", "flashcard", "explain"}

    explained = browser.explain(answered["numeric"], explanation="split it evenly")
    assert explained.status_code == 200
    bumped(1)
    assert browser.post(f"/api/attempts/{answered['choice']['id']}/rating",
                        json={"rating": "easy"}).status_code == 200
    bumped(1)
    assert browser.post(f"/api/attempts/{answered['flashcard']['id']}/rating",
                        json={"rating": "good"}).status_code == 200
    bumped(1)

    fresh = new_browser()
    fresh_id = learner_of(db, fresh)
    fresh_seq = review_seq(db, fresh_id)
    imported = fresh.post("/api/import", json=browser.get("/api/export").json)
    assert imported.status_code == 201, imported.json
    assert review_seq(db, fresh_id) == fresh_seq + 1
    bumped(0)


# ---------------------------------------------------------------- the answer key


def numeric_variant(study: Study) -> str:
    """Serve the fake bank's numeric question and return its variant id."""
    question = serve_quiz_question(study)
    assert question["kind"] == "numeric"
    return question["variant_id"]


ANSWERS = {
    "right": lambda variant: variant.answer,
    "half right": lambda variant: [variant.answer[0], variant.answer[1] + 1],
    "a misconception": lambda variant: [4, 4] if variant.answer != [4, 4] else [5, 3],
}
KEYS = {
    "missing": None,
    "not JSON": "garbage, not an answer key",
    "another format version": '{"v":2}',
    "cut short": None,  # the stored key, truncated (filled in by the test)
    "a JSON array": "[1, 2]",
}


@pytest.mark.parametrize("key_case", KEYS)
@pytest.mark.parametrize("answer_case", ANSWERS)
def test_a_missing_or_unreadable_answer_key_grades_the_same_from_the_rebuilt_variant(
        study: Study, browser: ApiBrowser, db: Session, bank: Any, key_case: str,
        answer_case: str) -> None:
    vid = numeric_variant(study)
    variant = study.variant(vid)
    answer = ANSWERS[answer_case](variant)
    expected = bank.grade(variant, answer)
    served = db.get(ServedVariant, vid)
    stored = served.answer_key
    assert AnswerKey.from_json(stored) == AnswerKey.from_variant(variant)
    served.answer_key = stored[: len(stored) // 2] if key_case == "cut short" else KEYS[key_case]
    db.commit()
    builds = bank.calls.get(variant.question_id, 0)

    body = study.answer(vid, answer).json

    assert bank.calls.get(variant.question_id, 0) == builds + 1  # rebuilt, once
    assert (body["correct"], body["score"], body["per_element"]) == (
        expected.correct, expected.score, list(expected.per_element))
    attempt = db.get(Attempt, body["id"])
    assert attempt.misconception_id == (expected.misconception.id
                                        if expected.misconception else None)
    if not expected.correct:
        body = browser.explain(body, explanation="I do not know why").json
    assert body["reveal"]["correct_answer"] == variant.answer
    assert body["reveal"]["solution"] == {"en": variant.solution.en, "zh": variant.solution.zh}
    assert (body["reveal"]["misconception"] or {}).get("id") == attempt.misconception_id


@pytest.mark.parametrize("answer_case", ANSWERS)
def test_a_stored_answer_key_grades_without_rebuilding_the_variant(
        study: Study, db: Session, bank: Any, answer_case: str) -> None:
    vid = numeric_variant(study)
    variant = study.variant(vid)
    answer = ANSWERS[answer_case](variant)
    expected = bank.grade(variant, answer)
    builds = bank.calls.get(variant.question_id, 0)
    body = study.answer(vid, answer).json
    assert bank.calls.get(variant.question_id, 0) == builds
    assert (body["correct"], body["score"], body["per_element"]) == (
        expected.correct, expected.score, list(expected.per_element))


class RecordingBrowser(ApiBrowser):
    """An ``ApiBrowser`` that keeps the body of every response it receives."""

    def __init__(self, app: Any) -> None:
        self.bodies: list[tuple[str, str]] = []
        super().__init__(app)
        client_open = self.client.open

        def recording_open(*args: Any, **kwargs: Any) -> Any:
            response = client_open(*args, **kwargs)
            self.bodies.append((str(args[0]) if args else "", response.get_data(as_text=True)))
            return response

        self.client.open = recording_open  # type: ignore[method-assign]


def test_a_served_variant_keeps_its_answer_key_on_the_server_only(
        app: Any, db: Session, bank: Any) -> None:
    browser = RecordingBrowser(app)
    study = Study(browser, db, bank)
    session = study.start(LESSON_ID, mode="review", size=10)
    keys: list[str] = []
    solution_sent_at = None
    while not (item := study.next(session["id"]))["done"]:
        question = item["question"]
        vid, kind = question["variant_id"], question["kind"]
        db.expire_all()
        key = db.get(ServedVariant, vid).answer_key
        assert key is not None and AnswerKey.from_json(key).kind.value == kind
        keys.append(key)
        browser.get(f"/api/sessions/{session['id']}")
        browser.get(f"/api/lessons/{LESSON_ID}")
        browser.get("/api/progress")
        if kind == "numeric":
            wrong = study.answer(vid, study.wrong_answer(vid)).json
            browser.get(f"/api/attempts/{wrong['id']}")
            browser.post(f"/api/attempts/{wrong['id']}/rating", json={"rating": "again"})
            before_reveal = len(browser.bodies)
            explained = browser.explain(wrong, explanation="I split it evenly")
            solution_sent_at = before_reveal
            assert explained.json["reveal"]["solution"]["en"] == NUMERIC_SOLUTION[0]
        elif kind == "choice":
            right = study.answer(vid, study.right_answer(vid)).json
            browser.post(f"/api/attempts/{right['id']}/rating", json={"rating": "easy"})
        elif kind == "flashcard":
            shown = study.answer(vid, None).json
            browser.post(f"/api/attempts/{shown['id']}/rating", json={"rating": "good"})
        else:
            study.answer(vid, "because drafts were rejected")
    for url in ("/api/mastery", "/api/reviews/due", "/api/progress", "/api/export",
                "/api/export?format=fsrs-csv", "/api/me"):
        assert browser.get(url).status_code == 200
    assert len(keys) == 4 and solution_sent_at is not None

    for url, body in browser.bodies:
        assert '"v":' not in body.replace(" ", ""), url
        for key in keys:
            sealed = json.loads(key)
            for form in (key, json.dumps(sealed), json.dumps(sealed, sort_keys=True,
                                                              separators=(",", ":"))):
                assert form not in body, url
    # the numeric question's solution: only once it was earned, by the explanation
    before = "".join(body for _, body in browser.bodies[:solution_sent_at])
    after = "".join(body for _, body in browser.bodies[solution_sent_at:])
    for solution in NUMERIC_SOLUTION:
        as_sent = {solution, json.dumps(solution)[1:-1]}  # raw, or escaped by Flask (ASCII)
        assert not any(form in before for form in as_sent)
        assert any(form in after for form in as_sent)


# ---------------------------------------------------------------- stale snapshots


# What another transaction commits between an answer's read and its write. It is run on the
# answer's own connection just before the write (in production it would be another
# transaction's; the conditional write cannot tell the difference).
MEANWHILE = {
    "review_seq bumped": "UPDATE learner SET review_seq = review_seq + 1 WHERE id = :learner_id",
    "marked open-book": "UPDATE served_variant SET open_book = TRUE WHERE id = :variant_id",
    "answered": "UPDATE served_variant SET answered = TRUE WHERE id = :variant_id",
}
LEARNER_STATE = text(
    "SELECT (SELECT review_seq FROM learner WHERE id = :learner_id), "
    "(SELECT count(*) FROM attempt WHERE learner_id = :learner_id), "
    "(SELECT count(*) FROM review_card WHERE learner_id = :learner_id), "
    "(SELECT count(*) FROM review_log WHERE learner_id = :learner_id), "
    "(SELECT count(*) FROM mastery WHERE learner_id = :learner_id)")


@dataclass
class FirstWrite:
    """What the answer's first (lock-free) write saw and did."""

    review_seq_read: int = -1
    attempt_id: int | None = None
    after: tuple[int, ...] = ()  # review_seq, attempts, cards, log rows, mastery rows


@pytest.fixture
def first_write(monkeypatch: pytest.MonkeyPatch, study: Study, db: Session
                ) -> Callable[[str | None, str], FirstWrite]:
    """Return a function that makes the next answer's first write meet ``meanwhile``.

    ``meanwhile`` is committed in a transaction of its own just before the answer's first
    write shape (``UnitOfWork.statement``) opens. The write itself is the real
    ``write_answer``; its result and the learner's rows right after it (before its shape ends)
    are recorded. Later writes (the locked redo) are left alone.
    """
    real_statement = UnitOfWork.statement
    real_write = AnswerRepository.write_answer

    def arrange(meanwhile: str | None, variant_id: str) -> FirstWrite:
        seen = FirstWrite()
        params = {"learner_id": learner_of(db, study.browser), "variant_id": variant_id}
        calls = {"statement": 0, "write": 0}

        @contextmanager
        def statement(self: UnitOfWork) -> Iterator[UnitOfWork]:
            calls["statement"] += 1
            if calls["statement"] == 1 and meanwhile is not None:
                with self.write():  # another transaction, committed before the write
                    self.connection.execute(text(MEANWHILE[meanwhile]), params)
            with real_statement(self) as uow:
                yield uow

        def write_answer(self: AnswerRepository, write: AnswerWrite) -> int:
            calls["write"] += 1
            if calls["write"] > 1:
                return real_write(self, write)
            seen.review_seq_read = write.review_seq
            try:
                seen.attempt_id = real_write(self, write)
            finally:
                seen.after = tuple(self.connection.execute(LEARNER_STATE, params).one())
            return seen.attempt_id

        monkeypatch.setattr(UnitOfWork, "statement", statement)
        monkeypatch.setattr(AnswerRepository, "write_answer", write_answer)
        return seen

    return arrange


@pytest.fixture
def locked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the learner locks taken (one per answer redone under the lock)."""
    calls: list[int] = []
    real = AnswerRepository.lock_learner

    def lock_learner(self: AnswerRepository, learner_id: int) -> None:
        calls.append(learner_id)
        real(self, learner_id)

    monkeypatch.setattr(AnswerRepository, "lock_learner", lock_learner)
    return calls


@pytest.mark.parametrize("meanwhile", MEANWHILE)
def test_a_write_from_a_snapshot_gone_stale_records_nothing_and_is_redone_under_the_lock(
        study: Study, db: Session, first_write: Any, locked: list[int], meanwhile: str
        ) -> None:
    vid = numeric_variant(study)
    seen = first_write(meanwhile, vid)
    response = study.answer(vid, study.right_answer(vid))
    assert seen.attempt_id is None
    assert seen.after[1:] == (0, 0, 0, 0)  # no attempt, card, log row or mastery record
    assert locked == [learner_of(db, study.browser)]  # redone under the lock, which
    if meanwhile == "answered":  # finds the variant answered by the other transaction
        assert response.status_code == 409, response.json
        assert count(db, Attempt, Attempt.variant_id == vid) == 0
    else:  # records the answer (open-book now, if that is what happened meanwhile)
        assert response.status_code == 201, response.json
        assert response.json["closed_book"] is (meanwhile != "marked open-book")
        assert count(db, Attempt, Attempt.variant_id == vid) == 1


@pytest.mark.parametrize("meanwhile", MEANWHILE)
def test_a_write_that_finds_its_snapshot_stale_leaves_review_seq_alone(
        study: Study, backend: str, first_write: Any, meanwhile: str) -> None:
    """On PostgreSQL the write is one statement in autocommit: what it did is committed, so a
    write that finds the variant answered or open-book must not have bumped the counter.
    (On SQLite the write is a transaction the repository rolls back as a whole.)"""
    if backend == "sqlite":
        pytest.skip("SQLite writes statement by statement and the caller rolls a failed "
                    "write back (write_answer's contract), bump included")
    vid = numeric_variant(study)
    seen = first_write(meanwhile, vid)
    study.answer(vid, study.right_answer(vid))
    assert seen.attempt_id is None
    bumped_meanwhile = 1 if meanwhile == "review_seq bumped" else 0
    assert seen.after[0] == seen.review_seq_read + bumped_meanwhile


def test_a_write_from_a_current_snapshot_records_the_answer_and_bumps_review_seq_once(
        study: Study, first_write: Any, locked: list[int]) -> None:
    vid = numeric_variant(study)
    seen = first_write(None, vid)
    response = study.answer(vid, study.right_answer(vid))
    assert response.status_code == 201 and seen.attempt_id == response.json["id"]
    assert seen.after == (seen.review_seq_read + 1, 1, 1, 1, 0)
    assert locked == []


# ---------------------------------------------------------------- an unknown browser


MINTED = "minted-browser-token"


class KnownBrowser(ApiBrowser):
    """An ``ApiBrowser`` around a test client that already holds its cookies."""

    def __init__(self, client: Any) -> None:  # no first request: the client made it
        self.client = client


def stranger_answers(app: Any, variant_id: str, answer: Any) -> tuple[Any, Any]:
    """POST an answer from a browser whose cookie the service does not know.

    The fresh browser id the service mints is made predictable (``MINTED``) and the CSRF
    token signed for it, so the request gets past CSRF to the answer itself. Returns the
    client (now holding the minted cookie) and the response.
    """
    client = app.test_client()
    client.set_cookie("quizsvc_browser", "forgotten-by-the-server")
    token = sign_csrf(app.config["SECRET_KEY"], MINTED, "nonce")
    client.set_cookie("csrf_token", token)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(http_browser, "mint_token", lambda _secret_key: MINTED)
        response = client.post("/api/attempts", json={"variant_id": variant_id,
                                                      "answer": answer},
                               headers={"X-CSRF-Token": token, "Idempotency-Key": "k1"})
    return client, response


def test_an_unknown_browser_answering_gets_a_fresh_identity_and_404_for_the_variant(
        app: Any, study: Study, db: Session) -> None:
    vid = numeric_variant(study)
    learners = count(db, Learner)
    client, response = stranger_answers(app, vid, study.right_answer(vid))
    assert response.status_code == 404, response.json
    assert client.get_cookie("quizsvc_browser").value == MINTED
    db.expire_all()
    assert count(db, Learner) == learners + 1
    fresh = db.scalars(select(Browser).where(
        Browser.token_hash == digest(MINTED))).one()
    assert fresh.learner_id != learner_of(db, study.browser)
    assert db.get(ServedVariant, vid).answered is False
    assert count(db, Attempt) == 0
    # the variant's owner still answers it, and the stranger, now known, answers its own
    assert study.answer(vid, study.right_answer(vid)).status_code == 201
    stranger = Study(KnownBrowser(client), db, study.bank)
    own = serve_quiz_question(stranger)["variant_id"]
    assert stranger.answer(own, stranger.right_answer(own)).status_code == 201
    assert learner_of(db, stranger.browser) == fresh.learner_id


@pytest.fixture
def committed(app_config: dict[str, Any], backend: str, tmp_path: Path
              ) -> Iterator[tuple[Any, Engine]]:
    """Yield an app on a database of its own whose commits and locks are real, and its engine."""
    with committed_database(backend, tmp_path, "quizsvc_answer_path") as url:
        app = create_app({**app_config, "DATABASE_URL": url})
        engine = app.extensions["quizsvc.db"].engine
        yield app, engine
        engine.dispose()


def read_committed(engine: Engine, query: Any) -> Any:
    """Run one query in a read (on SQLite it takes no writer lock)."""
    with UnitOfWork(engine=engine) as uow, uow.read():
        return uow.connection.execute(query).all()


def assert_nothing_held(engine: Engine) -> None:
    """Assert no connection is still out and no lock is held after a request."""
    assert engine.pool.checkedout() == 0
    if engine.dialect.name == "sqlite":  # the one writer slot is free: another can take it
        other = sqlite3.connect(engine.url.database, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute("ROLLBACK")
        finally:
            other.close()
        return
    with engine.connect() as connection:  # PostgreSQL: no row of these tables is locked
        for table in ("learner", "browser", "served_variant", "attempt"):
            connection.execute(text(f"SELECT id FROM {table} FOR UPDATE NOWAIT")).all()
        connection.rollback()


@pytest.mark.parametrize("ending", ["unknown browser", "CSRF refused", "malformed body",
                                    "unknown variant"])
def test_an_answer_request_that_ends_early_leaves_nothing_open_or_locked(
        committed: tuple[Any, Engine], bank: Any, ending: str) -> None:
    """However an answer request ends, its connection goes back to the pool with nothing
    open, and no lock (SQLite's writer slot, PostgreSQL's row locks) is left behind."""
    app, engine = committed
    study = Study(ApiBrowser(app), None, bank)
    vid = numeric_variant(study)
    [(question_id, seed)] = read_committed(engine, select(
        ServedVariant.question_id, ServedVariant.seed).where(ServedVariant.id == vid))
    answer = bank.variant(question_id, seed).answer
    expected = {"unknown browser": 404, "CSRF refused": 403, "malformed body": 400,
                "unknown variant": 404}[ending]
    if ending == "unknown browser":
        response = stranger_answers(app, vid, answer)[1]
    elif ending == "CSRF refused":
        response = study.browser.post("/api/attempts", json={"variant_id": vid,
                                                             "answer": answer},
                                      headers={"X-CSRF-Token": "forged.0000",
                                               "Idempotency-Key": "k"})
    elif ending == "malformed body":
        response = study.browser.post("/api/attempts", data="{not json",
                                      headers={"Idempotency-Key": "k",
                                               "Content-Type": "application/json"})
    else:
        response = study.answer("no-such-variant", answer)
    assert response.status_code == expected, response.json
    assert_nothing_held(engine)
    following = study.answer(vid, answer)
    assert following.status_code == 201, following.json
    assert_nothing_held(engine)
    assert read_committed(engine, select(func.count()).select_from(Attempt)) == [(1,)]
