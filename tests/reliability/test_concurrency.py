"""Concurrent clients on gunicorn (4 sync workers) and PostgreSQL lose and duplicate nothing.

- One answer sent many times at once with one Idempotency-Key is recorded once; every copy
  gets the first result. The same variant answered at once under different keys is graded once.
- Many learners answering at once leave exactly the attempts, review logs and fsrs card states
  their answers imply: every card's review-log chain replays to the card (no lost update).
- Two browsers of one learner answering the same questions at once leave a consistent chain.

The learner run is the issue's full size, 20 learners x 200 answers (about 4,000 answers and
11,000 requests, 1.5 minutes on 2 cores); ``QUIZSVC_RELIABILITY_LEARNERS`` and
``QUIZSVC_RELIABILITY_ANSWERS`` shrink it for a quick local run. Every loop is bounded by count
and by ``DEADLINE``.
"""

from __future__ import annotations

import itertools
import os
import random
import threading
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest
from sqlalchemy import select

from quizsvc.review import scheduling
from quizsvc.review.scheduling import CardState, ReviewRating
from quizsvc.store.models import Attempt, ReviewCard, ReviewLog, ServedVariant
from tests.support.browsers import diagnosis
from tests.support.reliability import HttpBrowser, Oracle, Service, learner_id, serve

WORKERS = 4
LESSON = "vllm-v1-ledger"
SESSION_SIZE = 50
LEARNERS = int(os.environ.get("QUIZSVC_RELIABILITY_LEARNERS", "20"))
ANSWERS = int(os.environ.get("QUIZSVC_RELIABILITY_ANSWERS", "200"))
COPIES = 8  # concurrent copies of one idempotent request
DEADLINE = 900.0  # seconds for the whole learner run, far above its expected time


@pytest.fixture(scope="module")
def service(live_pg, bank_dir, tmp_path_factory) -> Any:
    """Serve the app with 4 gunicorn workers on this module's PostgreSQL schema."""
    log = tmp_path_factory.mktemp("gunicorn") / "concurrency.log"
    running = serve(live_pg.url, bank_dir, WORKERS, log,
                    extra_env={"QUIZSVC_MAX_SESSION_SIZE": str(SESSION_SIZE)})
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def oracle(live_pg, bank) -> Oracle:
    """Look answers up in this module's database."""
    return Oracle(live_pg.engine, bank)


def at_once(count: int, call: Any) -> list[Any]:
    """Run ``call()`` in ``count`` threads released together; return the results in order."""
    barrier = threading.Barrier(count, timeout=30)

    def run() -> Any:
        barrier.wait()
        return call()

    with ThreadPoolExecutor(count) as pool:
        return [future.result(timeout=120) for future in [pool.submit(run)
                                                           for _ in range(count)]]


def serve_variants(browser: HttpBrowser, size: int) -> tuple[str, list[str]]:
    """Start a quiz session and return its id and the first variant id."""
    reply = browser.post("/api/sessions", {"lesson": LESSON, "mode": "quiz", "size": size})
    assert reply.status == 201, reply.body[:300]
    session_id = reply.json["id"]
    question = browser.get(f"/api/sessions/{session_id}/next").json["question"]
    return session_id, [question["variant_id"]]


def test_one_answer_sent_at_once_with_one_key_is_recorded_once(service: Service, oracle,
                                                                live_pg) -> None:
    browser = HttpBrowser(service.port).introduce()
    reply = browser.post("/api/sessions", {"lesson": LESSON, "mode": "quiz", "size": 6})
    session_id = reply.json["id"]
    for round_number in range(6):
        variant_id = browser.get(f"/api/sessions/{session_id}/next").json["question"][
            "variant_id"]
        body = {"variant_id": variant_id,
                "answer": oracle.answer(variant_id, right=round_number % 2 == 0)}
        key = f"same-key-{round_number}"
        replies = at_once(COPIES, lambda body=body, key=key: browser.post(
            "/api/attempts", body, headers={"Idempotency-Key": key}))
        assert [r.status for r in replies] == [201] * COPIES, [r.body[:200] for r in replies]
        assert len({r.json["id"] for r in replies}) == 1
        assert sum(r.headers.get("idempotent-replayed") != "true" for r in replies) == 1
        with live_pg.engine.connect() as connection:
            attempts = connection.scalars(select(Attempt.id).where(
                Attempt.variant_id == variant_id)).all()
            logs = connection.scalars(select(ReviewLog.id).where(
                ReviewLog.attempt_id.in_(attempts))).all()
        assert attempts == [replies[0].json["id"]] and len(logs) == 1


def test_one_variant_answered_at_once_under_different_keys_is_graded_once(service: Service,
                                                                           oracle,
                                                                           live_pg) -> None:
    browser = HttpBrowser(service.port).introduce()
    _, (variant_id,) = serve_variants(browser, 1)
    answer = oracle.answer(variant_id, right=True)
    keys = iter(range(COPIES))
    lock = threading.Lock()

    def post() -> Any:
        with lock:
            key = f"key-{next(keys)}"
        return browser.post("/api/attempts", {"variant_id": variant_id, "answer": answer},
                            headers={"Idempotency-Key": key})

    statuses = Counter(r.status for r in at_once(COPIES, post))
    assert statuses == {201: 1, 409: COPIES - 1}
    with live_pg.engine.connect() as connection:
        assert len(connection.scalars(select(Attempt.id).where(
            Attempt.variant_id == variant_id)).all()) == 1


# ---------------------------------------------------------------- many learners


@dataclass
class Answered:
    """What one client did with one question, as the service told it."""

    attempt_id: int
    question_id: str
    correct: bool
    rating: int
    explained: bool


@dataclass
class LearnerRun:
    """One learner's answers and any responses that were not what the flow expects."""

    browser: HttpBrowser
    answered: list[Answered] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)


def expect(run: LearnerRun, reply: Any, status: int, what: str) -> bool:
    """Record a reply that is not ``status``; return whether it was."""
    if reply.status != status:
        run.unexpected.append(f"{what}: {reply.status} {reply.body[:200]!r}")
        return False
    return True


def study(run: LearnerRun, oracle: Oracle, answers: int, seed: int, deadline: float,
          shared: bool = False) -> None:
    """Answer ``answers`` questions in quiz sessions: half right, then rate or explain some.

    ``shared``: another browser of the same learner answers the same questions meanwhile, so
    a rating may rightly be refused (409: the card was reviewed again since).
    """
    rng = random.Random(seed)
    browser = run.browser
    keys = 0
    while len(run.answered) < answers and time.monotonic() < deadline and not run.unexpected:
        size = min(SESSION_SIZE, answers - len(run.answered))
        reply = browser.post("/api/sessions", {"lesson": LESSON, "mode": "quiz", "size": size})
        if not expect(run, reply, 201, "start"):
            return
        session_id = reply.json["id"]
        for _ in range(size):
            item = browser.get(f"/api/sessions/{session_id}/next")
            if not expect(run, item, 200, "next") or item.json["done"]:
                break
            question = item.json["question"]
            right = rng.random() < 0.5
            keys += 1
            result = browser.post("/api/attempts", {
                "variant_id": question["variant_id"],
                "answer": oracle.answer(question["variant_id"], right)},
                headers={"Idempotency-Key": f"{id(run)}-{keys}"})
            if not expect(run, result, 201, "answer"):
                return
            attempt = result.json
            rating, explained = (3 if attempt["correct"] else 1), False
            if attempt["correct"] and rng.random() < 0.4:
                choice = rng.choice(["hard", "easy"])
                rated = browser.post(f"/api/attempts/{attempt['id']}/rating", {"rating": choice})
                if shared and rated.status == 409:
                    pass
                elif expect(run, rated, 200, "rating"):
                    rating = int(ReviewRating.from_word(choice))
            elif not attempt["correct"] and rng.random() < 0.5:
                explained = expect(run, browser.post(
                    f"/api/attempts/{attempt['id']}/explanation",
                    diagnosis(attempt, explanation=f"I mixed up the budgets ({keys})")), 200,
                    "explain")
            run.answered.append(Answered(attempt["id"], question["question_id"],
                                         bool(attempt["correct"]), rating, explained))


def card_state(row: Any, prefix: str = "") -> CardState:
    """Read an fsrs card state from a row (``prefix`` ``_before`` for a log's saved state)."""
    def column(name: str) -> Any:
        return getattr(row, f"{name}{prefix}")

    return CardState(column("state"), column("step"), column("stability"),
                     column("difficulty"), column("due"), column("last_review"))


def assert_cards_replay_their_logs(connection: Any, learner: int) -> int:
    """Check every card of a learner against its review log; return how many cards."""
    cards = {card.id: card for card in connection.execute(
        select(ReviewCard).where(ReviewCard.learner_id == learner)).all()}
    logs: dict[int, list[Any]] = defaultdict(list)
    for log in connection.execute(select(ReviewLog).where(ReviewLog.learner_id == learner)
                                  .order_by(ReviewLog.id)).all():
        logs[log.card_id].append(log)
    assert set(logs) == set(cards)
    for card_id, chain in logs.items():
        for earlier, later in itertools.pairwise(chain):
            expected = scheduling.review(card_state(earlier, "_before"),
                                         ReviewRating(earlier.rating), earlier.reviewed_at)
            assert card_state(later, "_before") == expected, (card_id, earlier.id, later.id)
        last = chain[-1]
        assert card_state(cards[card_id]) == scheduling.review(
            card_state(last, "_before"), ReviewRating(last.rating), last.reviewed_at), card_id
    return len(cards)


def test_concurrent_learners_leave_exactly_the_expected_records(service: Service, oracle,
                                                                live_pg) -> None:
    runs = [LearnerRun(HttpBrowser(service.port).introduce()) for _ in range(LEARNERS)]
    deadline = time.monotonic() + DEADLINE
    began = time.monotonic()
    with ThreadPoolExecutor(LEARNERS) as pool:
        futures = [pool.submit(study, run, oracle, ANSWERS, 1000 + i, deadline)
                   for i, run in enumerate(runs)]
        for future in futures:
            future.result(timeout=DEADLINE + 60)
    elapsed = time.monotonic() - began
    assert [run.unexpected for run in runs] == [[] for _ in runs], service.log_tail()
    assert [len(run.answered) for run in runs] == [ANSWERS] * LEARNERS, "ran out of time"
    print(f"\n{LEARNERS} learners x {ANSWERS} answers in {elapsed:.1f} s")
    with live_pg.engine.connect() as connection:
        for run in runs:
            learner = learner_id(live_pg.engine, run.browser)
            stored = {row.id: row for row in connection.execute(
                select(Attempt.id, Attempt.question_id, Attempt.correct, Attempt.explanation)
                .where(Attempt.learner_id == learner)).all()}
            assert sorted(stored) == sorted(a.attempt_id for a in run.answered)
            for answered in run.answered:
                row = stored[answered.attempt_id]
                assert (row.question_id, row.correct, row.explanation is not None) == (
                    answered.question_id, answered.correct, answered.explained)
            ratings = dict(connection.execute(
                select(ReviewLog.attempt_id, ReviewLog.rating)
                .where(ReviewLog.learner_id == learner)).all())
            assert ratings == {a.attempt_id: a.rating for a in run.answered}
            cards = assert_cards_replay_their_logs(connection, learner)
            assert cards == len({a.question_id for a in run.answered})
            open_variants = connection.scalar(
                select(ServedVariant.id).where(ServedVariant.learner_id == learner,
                                               ServedVariant.answered.is_(False)).limit(1))
            assert open_variants is None


def test_two_browsers_of_one_learner_answering_the_same_questions_at_once(
        service: Service, oracle, live_pg) -> None:
    laptop = HttpBrowser(service.port).introduce()
    code = laptop.post("/api/link-codes").json["code"]
    phone = HttpBrowser(service.port).introduce()
    assert phone.post("/api/link", {"code": code}).status == 200
    runs = [LearnerRun(laptop), LearnerRun(phone)]
    deadline = time.monotonic() + DEADLINE
    with ThreadPoolExecutor(2) as pool:
        # Same seed: both sessions hold the same questions in the same order.
        for future in [pool.submit(study, run, oracle, 30, 7, deadline, True)
                                for run in runs]:
            future.result(timeout=DEADLINE + 60)
    assert [run.unexpected for run in runs] == [[], []], service.log_tail()
    learner = learner_id(live_pg.engine, laptop)
    assert learner == learner_id(live_pg.engine, phone)
    with live_pg.engine.connect() as connection:
        stored = connection.scalars(select(Attempt.id).where(Attempt.learner_id == learner))
        assert sorted(stored) == sorted(a.attempt_id for run in runs for a in run.answered)
        assert_cards_replay_their_logs(connection, learner)
