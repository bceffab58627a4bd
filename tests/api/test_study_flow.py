"""The closed-book flow end to end: session, next, attempt, explanation, reveal, rating."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from quizsvc.store.models import Attempt, ReviewCard, ReviewLog, ServedVariant
from tests.support.fake_bank import LESSON_ID

SECRET_KEYS = {"answer", "seed", "scenario", "solution", "misconceptions", "answer_ref",
               "correct_answer", "extra"}


def keys_in(value):
    """Yield every key of every dict inside a JSON value."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from keys_in(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from keys_in(inner)


def serve_kind(study, kind, mode="review"):
    """Start a session and take questions until one of ``kind`` is served."""
    session = study.start(LESSON_ID, mode=mode, size=10)
    while True:
        item = study.next(session["id"])
        assert not item["done"], f"no {kind} question in the session"
        if item["question"]["kind"] == kind:
            return session, item["question"]
        vid = item["question"]["variant_id"]
        study.answer(vid, study.right_answer(vid) if item["question"]["kind"] in
                     {"numeric", "choice"} else (None if item["question"]["kind"] ==
                                                 "flashcard" else "because"))


def count(db, model, **where):
    query = select(func.count()).select_from(model)
    for key, value in where.items():
        query = query.where(getattr(model, key) == value)
    return db.scalar(query)


# ---------------------------------------------------------------- sessions


def test_a_first_review_session_serves_new_questions_in_bank_order(study, bank):
    session = study.start(LESSON_ID, size=10)
    questions = bank.questions_for(LESSON_ID)
    assert session["total"] == len(questions)
    assert (session["due"], session["new"], session["answered"]) == (0, len(questions), 0)
    assert study.next(session["id"])["question"]["question_id"] == questions[0].id


def test_size_caps_the_session(study):
    assert study.start(LESSON_ID, size=2)["total"] == 2


def test_quiz_mode_leaves_out_self_rated_cards(study, bank):
    session = study.start(LESSON_ID, mode="quiz")
    graded = [q for q in bank.questions_for(LESSON_ID)
              if q.kind in {"numeric", "choice", "multi", "order", "anchor"}]
    assert session["total"] == len(graded)


def test_due_reviews_come_before_new_questions(study, clock):
    session = study.start(LESSON_ID, mode="quiz", size=1)
    question = study.next(session["id"])["question"]
    study.answer(question["variant_id"], study.wrong_answer(question["variant_id"]))
    clock.advance(minutes=2)  # Again: due again after the first learning step (1 min)
    later = study.start(LESSON_ID, mode="quiz", size=2)
    assert (later["due"], later["new"]) == (1, 1)
    assert study.next(later["id"])["question"]["question_id"] == question["question_id"]


def test_review_mode_serves_nothing_that_is_neither_due_nor_new(study, browser):
    session = study.start(LESSON_ID, size=10)
    while not (item := study.next(session["id"]))["done"]:
        vid = item["question"]["variant_id"]
        kind = item["question"]["kind"]
        answer = study.right_answer(vid) if kind in {"numeric", "choice"} else (
            None if kind == "flashcard" else "because")
        attempt = study.answer(vid, answer).json
        if not attempt["graded"]:
            browser.post(f"/api/attempts/{attempt['id']}/rating", json={"rating": "easy"})
    assert study.start(LESSON_ID, size=10)["total"] == 0


def test_a_self_rated_card_shown_but_never_rated_stays_new(study):
    _, question = serve_kind(study, "flashcard")
    study.answer(question["variant_id"], None)
    assert study.start(LESSON_ID, size=10)["new"] >= 1


def test_quiz_mode_tops_up_with_the_questions_due_soonest(study):
    first = study.start(LESSON_ID, mode="quiz", size=10)
    while not (item := study.next(first["id"]))["done"]:
        vid = item["question"]["variant_id"]
        study.answer(vid, study.right_answer(vid))
    again = study.start(LESSON_ID, mode="quiz", size=10)
    assert again["total"] == first["total"] and again["practice"] == first["total"]


@pytest.mark.parametrize(("body", "field"), [
    ({"lesson": "no-such-lesson"}, "lesson"),
    ({"lesson": LESSON_ID, "mode": "cram"}, "mode"),
    ({"lesson": LESSON_ID, "size": 0}, "size"),
    ({"lesson": LESSON_ID, "size": 51}, "size"),
    ({"lesson": LESSON_ID, "size": "5"}, "size"),
    ({"mode": "quiz"}, "lesson"),
    ({"lesson": LESSON_ID, "colour": "red"}, "colour"),
])
def test_bad_session_requests_are_422_naming_the_field(browser, body, field):
    response = browser.post("/api/sessions", json=body)
    assert response.status_code == 422, response.json
    assert field in response.json["errors"]["json"]


def test_unknown_session_is_404(browser):
    assert browser.get("/api/sessions/nope/next").status_code == 404
    assert browser.get("/api/sessions/nope").status_code == 404


def test_session_reports_its_progress(study):
    session = study.start(LESSON_ID, mode="quiz", size=2)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.right_answer(vid))
    shown = study.browser.get(f"/api/sessions/{session['id']}").json
    assert (shown["total"], shown["answered"], shown["done"]) == (2, 1, False)


# ---------------------------------------------------------------- serving


def test_a_served_question_never_carries_its_answer_or_seed(study, db):
    session = study.start(LESSON_ID, size=10)
    while not (item := study.next(session["id"]))["done"]:
        question = item["question"]
        assert {"variant_id", "question_id", "kind", "prompt"} <= set(question)
        assert not SECRET_KEYS & set(keys_in(item))
        served = db.get(ServedVariant, question["variant_id"])
        raw = json.dumps(item)
        assert str(served.seed) not in raw
        assert question["variant_id"] != str(served.seed)
        vid = question["variant_id"]
        kind = question["kind"]
        study.answer(vid, study.right_answer(vid) if kind in {"numeric", "choice"} else (
            None if kind == "flashcard" else "because"))


def test_next_serves_the_same_variant_until_it_is_answered(study):
    session = study.start(LESSON_ID, size=3)
    first = study.next(session["id"])
    assert study.next(session["id"]) == first


def test_every_review_of_a_question_draws_a_fresh_variant(study, db, clock):
    seeds = []
    for _ in range(3):
        session = study.start(LESSON_ID, mode="quiz", size=1)
        question = study.next(session["id"])["question"]
        seeds.append(db.get(ServedVariant, question["variant_id"]).seed)
        study.answer(question["variant_id"], study.wrong_answer(question["variant_id"]))
        clock.advance(minutes=5)
    assert len(set(seeds)) == 3


def test_a_finished_session_says_done(study):
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.right_answer(vid))
    item = study.next(session["id"])
    assert item["done"] is True and item["question"] is None
    assert item["session"]["answered"] == 1


# ---------------------------------------------------------------- attempts


def test_a_right_answer_is_revealed_at_once_and_reviewed_good(study):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    result = study.answer(vid, study.right_answer(vid))
    assert result.status_code == 201
    body = result.json
    assert body["correct"] is True and body["score"] == 1.0
    assert body["rating"] == "good" and body["rating_choices"] == ["hard", "good", "easy"]
    assert body["reveal"]["correct_answer"] == study.right_answer(vid)
    assert set(body["reveal"]["solution"]) == {"zh", "en"}
    assert body["explanation_required"] is False


def test_a_wrong_answer_withholds_everything_until_explained(study, browser):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    wrong = study.answer(vid, study.wrong_answer(vid)).json
    assert wrong["correct"] is False and wrong["rating"] == "again"
    assert wrong["reveal"] is None and wrong["explanation_required"] is True
    assert browser.get(f"/api/attempts/{wrong['id']}").json["reveal"] is None
    explained = browser.explain(wrong, explanation="I forgot running goes first.")
    assert explained.status_code == 200
    reveal = explained.json["reveal"]
    assert reveal["correct_answer"] == study.right_answer(vid)
    assert reveal["solution"]["zh"] and reveal["lesson_link"]
    assert reveal["explanation"] == "I forgot running goes first."
    assert browser.get(f"/api/attempts/{wrong['id']}").json["reveal"] == reveal


def test_a_misconception_is_named_after_the_explanation(study, browser):
    _, question = serve_kind(study, "choice")
    vid = question["variant_id"]
    variant = study.variant(vid)
    misconception = variant.misconceptions[0]
    wrong = study.answer(vid, misconception.answer).json
    assert wrong["reveal"] is None
    revealed = browser.explain(wrong, explanation="I assumed FIFO first.").json["reveal"]
    assert revealed["misconception"]["id"] == misconception.id
    assert "answer" not in revealed["misconception"]


def test_partial_credit_is_scored_per_element(study):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    right = study.right_answer(vid)
    half = [right[0], right[1] + 1]
    body = study.answer(vid, half).json
    assert body["correct"] is False and body["score"] == 0.5
    assert body["per_element"] == [True, False]


@pytest.mark.parametrize("answer", ["eight", [1], [1, 2, 3], [1, "two"], {"A": 1}, [True, 1]])
def test_an_unparseable_answer_is_422_and_costs_no_attempt(study, db, answer):
    _, question = serve_kind(study, "numeric")
    before = count(db, Attempt)
    response = study.answer(question["variant_id"], answer)
    assert response.status_code == 422
    assert "answer" in response.json["errors"]["json"]
    assert count(db, Attempt) == before
    retry = study.answer(question["variant_id"], study.right_answer(question["variant_id"]))
    assert retry.status_code == 201


def test_explanations_only_follow_wrong_graded_answers(study, browser):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    right = study.answer(vid, study.right_answer(vid)).json
    response = browser.post(f"/api/attempts/{right['id']}/explanation",
                            json={"explanation": "I got it right.", "rule": "running-first"})
    assert response.status_code == 409


def test_an_explanation_is_recorded_once(study, browser):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    wrong = study.answer(vid, study.wrong_answer(vid)).json
    assert browser.explain(wrong, explanation="the first explanation").status_code == 200
    assert browser.explain(wrong["id"], rule="running-first",
                           explanation="a second explanation").status_code == 409


@pytest.mark.parametrize(("body", "field"), [
    ({"rule": "running-first"}, "explanation"),
    ({"rule": "running-first", "explanation": ""}, "explanation"),
    ({"rule": "running-first", "explanation": "x" * 4001}, "explanation"),
    ({"rule": "running-first", "explanation": "   "}, "explanation")])
def test_bad_explanations_are_422(study, browser, body, field):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    wrong = study.answer(vid, study.wrong_answer(vid)).json
    response = browser.post(f"/api/attempts/{wrong['id']}/explanation", json=body)
    assert response.status_code == 422
    assert field in response.json["errors"]["json"]


# ---------------------------------------------------------------- idempotency


def test_a_retried_attempt_returns_the_first_result_and_records_nothing_twice(study, db):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    answer = study.right_answer(vid)
    first = study.answer(vid, answer, key="retry-me")
    again = study.answer(vid, answer, key="retry-me")
    assert again.status_code == first.status_code == 201
    assert again.json == first.json
    assert again.headers["Idempotent-Replayed"] == "true"
    assert count(db, Attempt, variant_id=vid) == 1
    assert count(db, ReviewLog, attempt_id=first.json["id"]) == 1


def test_an_idempotency_key_reused_for_another_answer_is_422(study):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    study.answer(vid, study.right_answer(vid), key="once")
    response = study.answer(vid, study.wrong_answer(vid), key="once")
    assert response.status_code == 422
    assert "Idempotency-Key" in response.json["errors"]["headers"]


def test_a_second_answer_to_an_answered_variant_is_409(study):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    study.answer(vid, study.right_answer(vid))
    response = study.answer(vid, study.right_answer(vid))
    assert response.status_code == 409


def test_an_attempt_needs_an_idempotency_key(browser, study):
    _, question = serve_kind(study, "numeric")
    response = browser.post("/api/attempts", json={"variant_id": question["variant_id"],
                                                   "answer": [1, 2]})
    assert response.status_code == 422
    assert "Idempotency-Key" in response.json["errors"]["headers"]


def test_an_unknown_variant_is_404(study):
    assert study.answer("not-a-variant", [1, 2]).status_code == 404


# ---------------------------------------------------------------- ratings


def test_easy_pushes_the_next_review_further_than_good(study, db, browser):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    attempt = study.answer(vid, study.right_answer(vid)).json
    card = db.scalars(select(ReviewCard).where(
        ReviewCard.question_id == question["question_id"])).one()
    good_due = card.due
    rated = browser.post(f"/api/attempts/{attempt['id']}/rating", json={"rating": "easy"})
    assert rated.status_code == 200 and rated.json["rating"] == "easy"
    db.expire_all()
    assert db.get(ReviewCard, card.id).due > good_due
    log = db.scalars(select(ReviewLog).where(ReviewLog.attempt_id == attempt["id"])).one()
    assert log.rating == 4 and log.rated_by_learner


def test_rerating_redoes_the_review_from_the_state_before_it(study, db, browser):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    attempt = study.answer(vid, study.right_answer(vid)).json
    card_id = db.scalars(select(ReviewCard.id)).one()
    db.expire_all()
    good = db.get(ReviewCard, card_id).due
    browser.post(f"/api/attempts/{attempt['id']}/rating", json={"rating": "easy"})
    browser.post(f"/api/attempts/{attempt['id']}/rating", json={"rating": "good"})
    db.expire_all()
    assert db.get(ReviewCard, card_id).due == good
    assert count(db, ReviewLog) == 1


@pytest.mark.parametrize("rating", ["hard", "good", "easy"])
def test_a_wrong_answer_cannot_be_rated_above_again(study, browser, rating):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    wrong = study.answer(vid, study.wrong_answer(vid)).json
    response = browser.post(f"/api/attempts/{wrong['id']}/rating", json={"rating": rating})
    assert response.status_code == 409
    again = browser.post(f"/api/attempts/{wrong['id']}/rating", json={"rating": "again"})
    assert again.status_code == 200 and again.json["rating"] == "again"


def test_a_right_answer_cannot_be_rated_again(study, browser):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    right = study.answer(vid, study.right_answer(vid)).json
    response = browser.post(f"/api/attempts/{right['id']}/rating", json={"rating": "again"})
    assert response.status_code == 409


def test_a_rating_is_frozen_once_the_card_is_reviewed_again(study, browser, clock):
    _, question = serve_kind(study, "numeric", mode="quiz")
    vid = question["variant_id"]
    first = study.answer(vid, study.right_answer(vid)).json
    clock.advance(days=30)
    session = study.start(LESSON_ID, mode="quiz", size=1)
    second_q = study.next(session["id"])["question"]
    assert second_q["question_id"] == question["question_id"]
    study.answer(second_q["variant_id"], study.right_answer(second_q["variant_id"]))
    response = browser.post(f"/api/attempts/{first['id']}/rating", json={"rating": "easy"})
    assert response.status_code == 409


@pytest.mark.parametrize("body", [{}, {"rating": "perfect"}, {"rating": 3},
                                  {"rating": "good", "x": 1}])
def test_bad_ratings_are_422(study, browser, body):
    _, question = serve_kind(study, "numeric")
    vid = question["variant_id"]
    right = study.answer(vid, study.right_answer(vid)).json
    response = browser.post(f"/api/attempts/{right['id']}/rating", json=body)
    assert response.status_code == 422


# ---------------------------------------------------------------- self-rated kinds


def test_a_flashcard_shows_its_back_at_once_and_is_rated_with_four_buttons(study, browser, db):
    _, question = serve_kind(study, "flashcard")
    shown = study.answer(question["variant_id"], None).json
    assert shown["graded"] is False and shown["correct"] is None
    assert shown["reveal"]["solution"]["en"]
    assert shown["rating"] is None
    assert shown["rating_choices"] == ["again", "hard", "good", "easy"]
    assert count(db, ReviewCard, question_id=question["question_id"]) == 0
    rated = browser.post(f"/api/attempts/{shown['id']}/rating", json={"rating": "again"})
    assert rated.status_code == 200 and rated.json["rating"] == "again"
    assert count(db, ReviewCard, question_id=question["question_id"]) == 1


def test_a_flashcard_takes_no_answer(study):
    _, question = serve_kind(study, "flashcard")
    response = study.answer(question["variant_id"], [1, 2])
    assert response.status_code == 422


@pytest.mark.parametrize("answer", [None, "", "  ", 5, "x" * 4001])
def test_a_free_text_question_wants_text(study, answer):
    _, question = serve_kind(study, "explain")
    response = study.answer(question["variant_id"], answer)
    assert response.status_code == 422
    assert "answer" in response.json["errors"]["json"]


def test_a_free_text_answer_is_stored_never_graded(study, db):
    _, question = serve_kind(study, "explain")
    body = study.answer(question["variant_id"], "Rejected drafts roll C back.").json
    assert body["graded"] is False and body["reveal"]["solution"]
    stored = db.get(Attempt, body["id"])
    assert stored.answer == "Rejected drafts roll C back." and stored.correct is None


# ---------------------------------------------------------------- open book


@pytest.mark.parametrize("kind", ["flashcard", "explain"])
def test_an_open_self_rated_question_leaves_the_book_open(study, browser, kind):
    """Only graded questions are closed-book: an open flashcard or explanation asks nothing."""
    serve_kind(study, kind)
    assert browser.get(f"/api/lessons/{LESSON_ID}").status_code == 200


def test_the_lesson_is_refused_while_a_question_is_open_until_the_book_is_opened(
        study, browser):
    _, question = serve_kind(study, "numeric")
    refused = browser.get(f"/api/lessons/{LESSON_ID}")
    assert refused.status_code == 409
    assert (refused.json["reason"], "text" in refused.json) == ("questions_open", False)
    opened = browser.post(f"/api/lessons/{LESSON_ID}/open-book")
    assert opened.status_code == 200 and opened.json["opened_book"] == 1
    assert browser.get(f"/api/lessons/{LESSON_ID}").json["text"]
    vid = question["variant_id"]
    body = study.answer(vid, study.right_answer(vid)).json
    assert body["correct"] is True and body["closed_book"] is False


def test_a_get_of_the_lesson_changes_nothing_even_from_another_site(study, browser, db):
    from quizsvc.store.models import ServedVariant

    _, question = serve_kind(study, "numeric")
    for headers in ({}, {"Sec-Fetch-Site": "cross-site", "Referer": "https://evil.example/"}):
        assert browser.get(f"/api/lessons/{LESSON_ID}", headers=headers).status_code == 409
        assert browser.get(f"/lessons/{LESSON_ID}", headers=headers).status_code == 200
    db.expire_all()
    assert db.get(ServedVariant, question["variant_id"]).open_book is False
    # opening the book is a state change: a cross-site form without the token is refused
    assert browser.client.post(f"/api/lessons/{LESSON_ID}/open-book").status_code == 403
    assert browser.client.post(f"/lessons/{LESSON_ID}/open-book").status_code == 403
    db.expire_all()
    assert db.get(ServedVariant, question["variant_id"]).open_book is False


def test_reading_the_lesson_between_questions_keeps_them_closed_book(study, browser):
    session = study.start(LESSON_ID, mode="quiz", size=2)
    first = study.next(session["id"])["question"]["variant_id"]
    study.answer(first, study.right_answer(first))
    assert browser.get(f"/api/lessons/{LESSON_ID}").status_code == 200
    second = study.next(session["id"])["question"]["variant_id"]
    assert study.answer(second, study.right_answer(second)).json["closed_book"] is True


def test_another_browser_reading_the_lesson_does_not_open_my_book(study, new_browser):
    _, question = serve_kind(study, "numeric")
    other = new_browser()
    assert other.get(f"/api/lessons/{LESSON_ID}").status_code == 200
    assert other.post(f"/api/lessons/{LESSON_ID}/open-book").json["opened_book"] == 0
    vid = question["variant_id"]
    assert study.answer(vid, study.right_answer(vid)).json["closed_book"] is True


def test_timing_is_measured_by_the_server(study, clock):
    _, question = serve_kind(study, "numeric")
    clock.advance(seconds=42)
    vid = question["variant_id"]
    assert study.answer(vid, study.right_answer(vid)).json["duration_ms"] == 42_000
