"""Fitted parameters schedule new reviews on every path; the desired retention is the learner's.

Every way a review is made (the graded answer's hot path, a learner's re-rating, a flashcard's
self-rating) schedules with the settings in force for the learner and lesson, and a change of
retention reschedules the learner's cards at once, which the due forecast shows. Neither
touches mastery.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from quizsvc.errors import N_, Busy
from quizsvc.review import scheduling
from quizsvc.review.optimizer import DEFAULT_PARAMETERS, Fit
from quizsvc.store.models import Learner, Mastery, ReviewCard, ReviewLog
from quizsvc.store.unit_of_work import UnitOfWork
from quizsvc.study import fsrs_tuning
from tests.support.clock import START
from tests.support.fake_bank import LESSON_ID
from tests.support.repos import repos, unit_of_work
from tests.support.statements import sent

# Initial stabilities (days) for Again, Hard, Good, Easy, unlike fsrs's defaults.
EVERYONE = (0.6, 3.5, 7.0, 25.0, *DEFAULT_PARAMETERS[4:])
MINE = (0.05, 0.3, 0.9, 3.0, *DEFAULT_PARAMETERS[4:])


def learner_id(db: Any) -> int:
    """Return the one learner of the test."""
    return db.scalars(select(Learner.id)).one()


def store_fit(db: Any, parameters: tuple[float, ...], learner: int | None = None) -> None:
    """Store a fit, as ``quizsvc fsrs optimize`` would."""
    repos(db).settings.add_fit(Fit(parameters, 1234, 0.31, 0.35), START,
                               learner_id=learner)
    db.commit()


def card(db: Any, question_id: str) -> ReviewCard:
    """Return the learner's card of a question, as stored now."""
    db.expire_all()
    return db.scalars(select(ReviewCard).where(ReviewCard.question_id == question_id)).one()


def serve(study: Any, question_id: str) -> dict:
    """Start a review session and return the served item of ``question_id``."""
    session = study.start(LESSON_ID, mode="review", size=4)
    while True:
        item = study.next(session["id"])
        assert not item["done"], f"{question_id} was not served"
        if item["question"]["question_id"] == question_id:
            return item["question"]
        answered = study.answer(item["question"]["variant_id"],
                                None if item["question"]["kind"] == "flashcard" else
                                "text" if item["question"]["kind"] == "explain" else
                                study.right_answer(item["question"]["variant_id"]))
        assert answered.status_code == 201, answered.json


def test_the_settings_start_as_the_defaults(browser: Any) -> None:
    body = browser.get("/api/scheduling").json
    assert body["desired_retention"] == 0.9
    assert (body["min_retention"], body["max_retention"]) == (0.7, 0.97)
    assert body["lessons"] == [{"lesson": LESSON_ID, "source": "default", "fit": None}]


@pytest.mark.parametrize(("answer_right", "stability"), [(True, 7.0), (False, 0.6)])
def test_a_graded_answer_is_scheduled_with_everyones_fitted_parameters(
        study: Any, db: Any, answer_right: bool, stability: float) -> None:
    item = serve(study, "running-first")
    store_fit(db, EVERYONE)
    answer = "running" if answer_right else "waiting"
    assert study.answer(item["variant_id"], answer).status_code == 201
    assert card(db, "running-first").stability == stability  # Good: w2, Again: w0


def test_a_learners_own_fit_wins_over_everyones(study: Any, db: Any) -> None:
    item = serve(study, "running-first")
    store_fit(db, EVERYONE)
    store_fit(db, MINE, learner=learner_id(db))
    assert study.answer(item["variant_id"], "running").status_code == 201
    assert card(db, "running-first").stability == 0.9
    body = study.browser.get("/api/scheduling").json["lessons"][0]
    assert body["source"] == "own"
    assert body["fit"] == {"fitted_at": START.isoformat(), "review_count": 1234,
                           "log_loss": 0.31, "default_log_loss": 0.35}


def test_re_rating_and_self_rating_use_the_fitted_parameters_too(study: Any, db: Any) -> None:
    store_fit(db, EVERYONE)
    item = serve(study, "running-first")
    attempt = study.answer(item["variant_id"], "running").json
    rated = study.browser.post(f"/api/attempts/{attempt['id']}/rating", json={"rating": "easy"})
    assert rated.status_code == 200, rated.json
    assert card(db, "running-first").stability == 25.0  # redone as Easy: w3
    flashcard = serve(study, "computed-card")
    revealed = study.answer(flashcard["variant_id"], None).json
    assert study.browser.post(f"/api/attempts/{revealed['id']}/rating",
                              json={"rating": "hard"}).status_code == 200
    assert card(db, "computed-card").stability == 3.5  # Hard: w1


def rate_flashcard_easy(study: Any) -> None:
    """Review the flashcard Easy: it goes straight to Review, due in about w3 days."""
    flashcard = serve(study, "computed-card")
    revealed = study.answer(flashcard["variant_id"], None).json
    assert study.browser.post(f"/api/attempts/{revealed['id']}/rating",
                              json={"rating": "easy"}).status_code == 200


def forecast(browser: Any) -> list[int]:
    """Return the 30-day forecast's counts."""
    return [day["count"] for day in browser.get("/api/reviews/due").json["forecast"]]


def test_the_due_forecast_follows_the_desired_retention(study: Any, db: Any) -> None:
    rate_flashcard_easy(study)
    at_default = forecast(study.browser)
    assert at_default[8] == 1  # stability 8.3 days: due in 8 at 0.90
    high = study.browser.put("/api/scheduling", json={"desired_retention": 0.97})
    assert high.status_code == 200, high.json
    assert high.json["desired_retention"] == 0.97 and high.json["rescheduled_cards"] >= 1
    assert forecast(study.browser)[2] == 1 and forecast(study.browser)[8] == 0
    low = study.browser.put("/api/scheduling", json={"desired_retention": 0.70})
    assert low.status_code == 200
    assert sum(forecast(study.browser)[1:]) == 0  # due in 77 days at 0.70: beyond the 30
    assert card(db, "computed-card").due - card(db, "computed-card").last_review > (
        timedelta(days=30))
    assert study.browser.get("/api/scheduling").json["desired_retention"] == 0.70


def test_new_reviews_aim_for_the_learners_retention(study: Any, db: Any) -> None:
    assert study.browser.put("/api/scheduling", json={"desired_retention": 0.97}
                             ).status_code == 200
    rate_flashcard_easy(study)
    stored = card(db, "computed-card")
    settings = scheduling.SchedulerSettings(desired_retention=0.97)
    expected = scheduling.review(scheduling.new_card(START), scheduling.ReviewRating.EASY,
                                 stored.last_review, settings)
    assert stored.due == expected.due
    assert stored.due - stored.last_review < scheduling.review(
        scheduling.new_card(START), scheduling.ReviewRating.EASY, stored.last_review
    ).due - stored.last_review


def test_changing_the_retention_tells_racing_answers_their_read_is_stale(study: Any,
                                                                        db: Any) -> None:
    rate_flashcard_easy(study)
    before = db.scalar(select(Learner.review_seq))
    assert study.browser.put("/api/scheduling", json={"desired_retention": 0.8}
                             ).status_code == 200
    db.expire_all()
    assert db.scalar(select(Learner.review_seq)) > before


@pytest.mark.parametrize("body", [
    {"desired_retention": 0.5}, {"desired_retention": 0.98}, {"desired_retention": "high"},
    {"desired_retention": None}, {}, {"desired_retention": 0.9, "mastery": True}])
def test_a_retention_out_of_range_or_malformed_is_a_422(browser: Any, body: dict) -> None:
    response = browser.put("/api/scheduling", json=body)
    assert response.status_code == 422, response.json
    assert set(response.json["errors"]["json"]) <= {"desired_retention", "mastery"}
    assert browser.get("/api/scheduling").json["desired_retention"] == 0.9


def test_a_retention_change_needs_the_csrf_echo(browser: Any) -> None:
    response = browser.client.put("/api/scheduling", json={"desired_retention": 0.8})
    assert response.status_code == 403


def test_neither_retention_nor_fitted_parameters_touch_mastery(study: Any, db: Any,
                                                               clock: Any) -> None:
    for _ in range(2):  # two right closed-book answers a day apart: mastered
        item = serve(study, "running-first")
        assert study.answer(item["variant_id"], "running").json["correct"]
        clock.advance(days=1, hours=1)
    before = [(m.question_id, m.mastered, m.mastered_at, m.evidence, m.evaluated_at)
              for m in db.scalars(select(Mastery))]
    assert before and before[0][1]
    store_fit(db, EVERYONE)
    for retention in (0.7, 0.97):
        assert study.browser.put("/api/scheduling", json={"desired_retention": retention}
                                 ).status_code == 200
    db.expire_all()
    assert [(m.question_id, m.mastered, m.mastered_at, m.evidence, m.evaluated_at)
            for m in db.scalars(select(Mastery))] == before


def full_replays(monkeypatch: Any) -> list[int]:
    """Record each learner whose cards are all replayed again under the lock
    (``fsrs_tuning.reschedule_learner``), which still runs."""
    calls: list[int] = []
    full = fsrs_tuning.reschedule_learner

    def counted(uow: Any, learner: int, lesson: Any = None) -> int:
        calls.append(learner)
        return full(uow, learner, lesson)

    monkeypatch.setattr(fsrs_tuning, "reschedule_learner", counted)
    return calls


def test_a_review_made_while_the_retention_replays_is_replayed_again_under_the_lock(
        study: Any, db: Any, monkeypatch: Any) -> None:
    """The replay runs outside any transaction (it takes seconds for a long log, and held the
    database's writer meanwhile); when a review lands between its read and its write (the
    learner's ``review_seq`` moved on by more than the lock's own bump), the stale replay is
    not written: the change is replayed again under the lock."""

    rate_flashcard_easy(study)
    stale_seq = db.scalar(select(Learner.review_seq))

    bumped: list[int] = []
    from quizsvc.store import answers as answers_module
    original = answers_module.AnswerRepository.review_seq_of

    def seq_after_a_race(self: Any, learner: int) -> int:
        value = original(self, learner)
        if self.uow.in_transaction and not bumped and value == stale_seq + 1:
            # the lock's bump, plus the racing review's: as if it had landed in between
            bumped.append(value)
            return value + 1
        return value

    monkeypatch.setattr(answers_module.AnswerRepository, "review_seq_of", seq_after_a_race)
    calls = full_replays(monkeypatch)
    changed = study.browser.put("/api/scheduling", json={"desired_retention": 0.97})
    assert changed.status_code == 200, changed.json
    assert calls and bumped  # replayed again, under the lock
    assert forecast(study.browser)[2] == 1  # and the result is the new retention's


def test_an_unraced_retention_change_writes_the_replay_it_made_before_the_lock(
        study: Any, db: Any, monkeypatch: Any) -> None:

    rate_flashcard_easy(study)
    calls: list[int] = []
    monkeypatch.setattr(fsrs_tuning, "reschedule_learner",
                        lambda *args: calls.append(1) or 0)
    changed = study.browser.put("/api/scheduling", json={"desired_retention": 0.97})
    assert changed.status_code == 200 and changed.json["rescheduled_cards"] == 1
    assert calls == []
    assert forecast(study.browser)[2] == 1


def two_cards_in_review(study: Any) -> None:
    """Put two cards in Review: a flashcard rated Easy and a right answer re-rated Easy (a
    retention change moves both)."""
    item = serve(study, "running-first")
    attempt = study.answer(item["variant_id"], "running").json
    assert study.browser.post(f"/api/attempts/{attempt['id']}/rating",
                              json={"rating": "easy"}).status_code == 200
    rate_flashcard_easy(study)


def schedule(db: Any) -> list[tuple[Any, ...]]:
    """Return every card's state and every log row's state before, as stored now."""
    db.expire_all()
    cards = [(c.id, c.state, c.step, c.stability, c.difficulty, c.due, c.last_review)
             for c in db.scalars(select(ReviewCard).order_by(ReviewCard.id))]
    logs = [(r.id, r.state_before, r.step_before, r.stability_before, r.difficulty_before,
             r.due_before, r.last_review_before)
            for r in db.scalars(select(ReviewLog).order_by(ReviewLog.id))]
    return cards + logs


def left_to_reschedule(db: Any) -> int:
    """Reschedule the learner's cards once more under the settings in force; return how many
    moved (0: what is stored is what one write would have left)."""
    uow = unit_of_work(db)
    with uow.locked(learner_id(db)):
        return fsrs_tuning.reschedule_learner(uow, learner_id(db))


def test_a_retention_change_writes_each_step_of_whole_cards_in_a_transaction_of_its_own(
        study: Any, db: Any, connection: Any, monkeypatch: Any) -> None:
    """On SQLite every other learner's write waits while one transaction writes; a learner
    with thousands of reviews held that writer for the whole rewrite (issue 21's retention
    flood). So the rewrite is written a few cards (``UnitOfWork.step_rows`` rows) to a
    transaction, each card with its whole log."""
    two_cards_in_review(study)
    monkeypatch.setattr(UnitOfWork, "step_rows", 1)  # every card a step of its own
    response, statements = sent(connection, lambda: study.browser.put(
        "/api/scheduling", json={"desired_retention": 0.97}), savepoints=True)
    assert response.status_code == 200 and response.json["rescheduled_cards"] == 2
    card_writes = [i for i, s in enumerate(statements) if s.startswith("UPDATE review_card ")]
    assert len(card_writes) == 2
    for i in card_writes:
        begun = max(n for n, s in enumerate(statements[:i]) if s.startswith("SAVEPOINT"))
        step = statements[begun + 1:i]
        assert [s for s in step if s.startswith("UPDATE review_log ")], step  # its log
        assert any(s.startswith("UPDATE learner SET review_seq") for s in step)  # its lock
        assert not any(s.startswith("UPDATE review_card ") for s in step)
    assert left_to_reschedule(db) == 0  # the steps add up to the one write
    assert forecast(study.browser)[2] == 2


def test_a_review_between_two_steps_is_replayed_again_under_the_lock(
        study: Any, db: Any, monkeypatch: Any) -> None:
    two_cards_in_review(study)
    monkeypatch.setattr(UnitOfWork, "step_rows", 1)
    landed: list[int] = []

    def a_review_lands(uow: UnitOfWork) -> None:
        if not landed:  # after the first step: as if an answer took the learner's lock
            with uow.locked(learner_id(db)):
                landed.append(1)

    monkeypatch.setattr(UnitOfWork, "give_way", a_review_lands)
    calls = full_replays(monkeypatch)
    changed = study.browser.put("/api/scheduling", json={"desired_retention": 0.97})
    assert changed.status_code == 200, changed.json
    assert landed and calls == [learner_id(db)]  # the second step replayed everything again
    assert left_to_reschedule(db) == 0
    assert forecast(study.browser)[2] == 2


def test_a_retention_change_refused_half_way_puts_back_what_its_steps_wrote(
        study: Any, db: Any, monkeypatch: Any) -> None:
    """A job refused at its deadline writes nothing (``quizsvc.pool``): the learner was told
    so. A reschedule refused after some of its steps were committed puts them back."""
    two_cards_in_review(study)
    before = schedule(db)
    monkeypatch.setattr(UnitOfWork, "step_rows", 1)
    real_check, steps = UnitOfWork.check_deadline, []

    def the_deadline_passes_at_the_second_step(uow: UnitOfWork) -> None:
        if uow.deadline != math.inf:  # the job's own unit of work, not the undo's
            steps.append(1)
            if len(steps) == 2:
                raise Busy(N_("too slow"), reason="too_slow", params={"retry_after": 5})
        real_check(uow)

    monkeypatch.setattr(UnitOfWork, "check_deadline", the_deadline_passes_at_the_second_step)
    refused = study.browser.put("/api/scheduling", json={"desired_retention": 0.97})
    assert refused.status_code == 503, refused.json
    assert len(steps) == 2
    assert schedule(db) == before
    assert study.browser.get("/api/scheduling").json["desired_retention"] == 0.9


def test_a_refused_reschedule_leaves_a_retention_chosen_after_it(
        study: Any, db: Any, monkeypatch: Any) -> None:
    """Putting back a refused change must not undo the learner's next one (another browser's
    change that landed while the refused one was being written)."""
    two_cards_in_review(study)
    monkeypatch.setattr(UnitOfWork, "step_rows", 1)
    real_check, steps = UnitOfWork.check_deadline, []

    def another_change_lands(uow: UnitOfWork) -> None:  # between the first two steps
        with uow.fresh() as other, other.locked(learner_id(db)):
            other.settings.put_retention(learner_id(db), 0.8, START)

    def the_deadline_passes_at_the_second_step(uow: UnitOfWork) -> None:
        if uow.deadline != math.inf:
            steps.append(1)
            if len(steps) == 2:
                raise Busy(N_("too slow"), reason="too_slow", params={"retry_after": 5})
        real_check(uow)

    monkeypatch.setattr(UnitOfWork, "give_way", another_change_lands)
    monkeypatch.setattr(UnitOfWork, "check_deadline", the_deadline_passes_at_the_second_step)
    refused = study.browser.put("/api/scheduling", json={"desired_retention": 0.97})
    assert refused.status_code == 503, refused.json
    assert study.browser.get("/api/scheduling").json["desired_retention"] == 0.8
