"""Self-assessments, mastery and calibration are kept apart, as the lesson requires."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from quizsvc.store.models import Mastery
from tests.support.fake_bank import LESSON_ID

# ---------------------------------------------------------------- self-assessments


def test_a_self_assessment_is_put_read_listed_and_deleted(browser):
    created = browser.put("/api/self-assessments/budget-split",
                          json={"rating": 3, "note": "mostly there"})
    assert created.status_code == 201
    assert created.json["ref_kind"] == "question" and created.json["label"] == "mostly"
    updated = browser.put("/api/self-assessments/budget-split", json={"rating": 4})
    assert updated.status_code == 200 and updated.json["note"] is None
    assert browser.get("/api/self-assessments/budget-split").json["rating"] == 4
    browser.put("/api/self-assessments/spec", json={"rating": 1})
    listed = browser.get("/api/self-assessments").json
    assert [(a["ref"], a["ref_kind"]) for a in listed] == [
        ("budget-split", "question"), ("spec", "section")]
    assert browser.delete("/api/self-assessments/budget-split").status_code == 204
    assert browser.get("/api/self-assessments/budget-split").status_code == 404
    assert browser.delete("/api/self-assessments/budget-split").status_code == 404


def test_a_browser_clears_all_of_its_self_assessments(browser):
    for ref in ("budget-split", "running-first", "spec"):
        browser.put(f"/api/self-assessments/{ref}", json={"rating": 2})
    cleared = browser.delete("/api/self-assessments")
    assert cleared.status_code == 200 and cleared.json == {"deleted": 3}
    assert browser.get("/api/self-assessments").json == []


def test_self_assessments_belong_to_the_browser_even_when_linked(new_browser):
    laptop, phone = new_browser(), new_browser()
    phone.post("/api/link", json={"code": laptop.post("/api/link-codes").json["code"]})
    laptop.put("/api/self-assessments/spec", json={"rating": 4})
    assert phone.get("/api/self-assessments").json == []
    assert phone.get("/api/self-assessments/spec").status_code == 404


def test_an_unknown_ref_is_404(browser):
    response = browser.put("/api/self-assessments/no-such-thing", json={"rating": 2})
    assert response.status_code == 404


@pytest.mark.parametrize(("body", "field"), [
    ({}, "rating"), ({"rating": 0}, "rating"), ({"rating": 5}, "rating"),
    ({"rating": "3"}, "rating"), ({"rating": 2.5}, "rating"),
    ({"rating": 2, "note": "x" * 2001}, "note"), ({"rating": 2, "mastered": True}, "mastered")])
def test_bad_self_assessments_are_422(browser, body, field):
    response = browser.put("/api/self-assessments/budget-split", json=body)
    assert response.status_code == 422
    assert field in response.json["errors"]["json"]


# ---------------------------------------------------------------- mastery


def answer_right(study, mode="quiz"):
    """Answer the first question of a fresh one-question session right; return its JSON."""
    session = study.start(LESSON_ID, mode=mode, size=1)
    question = study.next(session["id"])["question"]
    return question, study.answer(question["variant_id"],
                                  study.right_answer(question["variant_id"])).json


def test_two_right_closed_book_answers_on_two_days_master_a_question(study, browser, clock):
    question, first = answer_right(study)
    assert browser.get("/api/mastery").json == []
    clock.advance(days=3)
    again, second = answer_right(study)
    assert again["question_id"] == question["question_id"]
    records = browser.get("/api/mastery").json
    assert len(records) == 1
    record = records[0]
    assert record["mastered"] is True and record["evidence"] == [first["id"], second["id"]]
    assert record["policy"] == "spaced-closed-book/3"
    assert browser.get("/api/progress").json["mastered"] == 1


def test_a_wrong_answer_lapses_mastery(study, browser, clock):
    answer_right(study)
    clock.advance(days=3)
    answer_right(study)
    clock.advance(days=30)
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.wrong_answer(vid))
    records = browser.get("/api/mastery").json
    assert records[0]["mastered"] is False and records[0]["evidence"] == []


def test_open_book_answers_do_not_master(study, browser, clock):
    for _ in range(2):
        session = study.start(LESSON_ID, mode="quiz", size=1)
        vid = study.next(session["id"])["question"]["variant_id"]
        assert browser.post(f"/api/lessons/{LESSON_ID}/open-book").json["opened_book"] == 1
        study.answer(vid, study.right_answer(vid))
        clock.advance(days=3)
    assert browser.get("/api/mastery").json == []


def mastery_rows(db):
    db.expire_all()
    return [(m.question_id, m.mastered, m.mastered_at, tuple(m.evidence), m.evaluated_at)
            for m in db.scalars(select(Mastery).order_by(Mastery.question_id))]


actions = st.lists(st.one_of(
    st.tuples(st.just("assess"), st.sampled_from(["budget-split", "running-first",
                                                   "computed-card", "budget", "spec"]),
              st.integers(1, 4)),
    st.tuples(st.just("clear"), st.none(), st.none()),
    st.tuples(st.just("flashcard"), st.sampled_from(["again", "hard", "good", "easy"]),
              st.none()),
    st.tuples(st.just("wait"), st.none(), st.integers(1, 72)),
), max_size=6)


def serve_directly(db, browser, question_id, now):
    """Serve a flashcard variant without a session, so no graded question is in the way."""
    import secrets

    from quizsvc.store.models import Browser, ServedVariant
    from quizsvc.study.linking import digest

    token = browser.client.get_cookie("quizsvc_browser").value
    learner_id = db.scalars(select(Browser.learner_id).where(
        Browser.token_hash == digest(token))).one()
    served = ServedVariant(id=secrets.token_urlsafe(16), learner_id=learner_id,
                           question_id=question_id, lesson=LESSON_ID, kind="flashcard", seed=1,
                           bank_version="fake-1", served_at=now, answered=False,
                           open_book=False)
    db.add(served)
    db.commit()
    return served.id


@pytest.fixture
def mastered_browser(study, browser, clock):
    """A browser whose learner has mastered one question."""
    answer_right(study)
    clock.advance(days=3)
    answer_right(study)
    return browser


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=actions)
def test_no_self_assessment_or_flashcard_rating_creates_or_changes_mastery(
        steps, mastered_browser, study, db, clock):
    browser = mastered_browser
    before = mastery_rows(db)
    assert before and before[0][1] is True
    for action, what, value in steps:
        if action == "assess":
            assert browser.put(f"/api/self-assessments/{what}",
                               json={"rating": value}).status_code in (200, 201)
        elif action == "clear":
            assert browser.delete("/api/self-assessments").status_code == 200
        elif action == "flashcard":
            variant_id = serve_directly(db, browser, "computed-card", clock.now)
            shown = study.answer(variant_id, None).json
            rated = browser.post(f"/api/attempts/{shown['id']}/rating", json={"rating": what})
            assert rated.status_code == 200
        else:
            clock.advance(hours=value)
        assert mastery_rows(db) == before


def test_mastery_is_never_written_for_a_question_only_self_assessed(browser, db):
    for rating in (4, 4, 4):
        browser.put("/api/self-assessments/budget-split", json={"rating": rating})
    assert mastery_rows(db) == []


# ---------------------------------------------------------------- progress and calibration


def test_progress_reports_accuracy_and_calibration_and_writes_nothing(study, browser, db):
    browser.put("/api/self-assessments/budget", json={"rating": 4})  # the section
    browser.put("/api/self-assessments/running-first", json={"rating": 1})  # the question
    session = study.start(LESSON_ID, mode="quiz", size=2)
    for _ in range(2):
        vid = study.next(session["id"])["question"]["variant_id"]
        study.answer(vid, study.right_answer(vid))
    before = mastery_rows(db), browser.get("/api/self-assessments").json
    report = browser.get("/api/progress").json
    after = mastery_rows(db), browser.get("/api/self-assessments").json
    assert before == after
    assert report["accuracy"] == {"attempts": 2, "correct": 2, "rate": 1.0,
                                  "closed_book_attempts": 2, "closed_book_correct": 2}
    calibration = report["calibration"]
    # budget-split (section says 4, right) scores 0; running-first (says 1, right) scores 1
    assert calibration["pairs"] == 2 and calibration["brier"] == pytest.approx(0.5)
    rows = {row["rating"]: row for row in calibration["table"]}
    assert rows[4]["observed"] == 1.0 and rows[1]["observed"] == 1.0
    assert rows[2]["attempts"] == 0


def test_calibration_uses_only_this_browsers_self_assessments(study, new_browser):
    laptop, phone = new_browser(), new_browser()
    phone.post("/api/link", json={"code": laptop.post("/api/link-codes").json["code"]})
    laptop.put("/api/self-assessments/budget", json={"rating": 4})
    study.browser = laptop
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.right_answer(vid))
    assert laptop.get("/api/progress").json["calibration"]["pairs"] == 1
    assert phone.get("/api/progress").json["calibration"]["pairs"] == 0
    assert phone.get("/api/progress").json["accuracy"]["attempts"] == 1


def test_due_report_counts_and_forecasts(study, browser, clock):
    empty = browser.get("/api/reviews/due").json
    assert empty["due_now"] == 0 and empty["cards"] == 0 and empty["new"] == 4
    assert len(empty["forecast"]) == 30
    question, _ = answer_right(study)  # Good on a new card: due again in 10 minutes
    report = browser.get(f"/api/reviews/due?lesson={LESSON_ID}").json
    assert report["cards"] == 1 and report["new"] == 3 and report["due_now"] == 0
    assert report["forecast"][0]["count"] == 1
    clock.advance(minutes=11)
    later = browser.get("/api/reviews/due").json
    assert later["due_now"] == 1
    assert later["items"][0]["question_id"] == question["question_id"]
    assert later["next_due"] is not None


@pytest.mark.parametrize("url", [
    "/api/reviews/due?limit=101", "/api/reviews/due?limit=x", "/api/reviews/due?colour=red",
    "/api/progress?lesson=", "/api/mastery?x=1"])
def test_bad_query_strings_are_422(browser, url):
    response = browser.get(url)
    assert response.status_code == 422
    assert response.json["errors"]["query"]


@pytest.mark.parametrize("url", ["/api/reviews/due?lesson=nope", "/api/progress?lesson=nope",
                                 "/api/mastery?lesson=nope"])
def test_an_unknown_lesson_filter_is_404(browser, url):
    assert browser.get(url).status_code == 404


def test_forecast_moves_with_the_clock(study, browser, clock):
    answer_right(study)
    clock.advance(days=1)
    assert browser.get("/api/reviews/due").json["forecast"][0]["day"] == (
        clock.now.date().isoformat())


def test_the_sql_forecast_equals_the_pure_one(db, browser, clock):
    """Cards spread over 60 days, at awkward hours: SQL's day buckets match Python's."""
    import random
    from datetime import timedelta

    from quizsvc.review import scheduling
    from quizsvc.store.models import Browser, ReviewCard
    from quizsvc.study.linking import digest

    token = browser.client.get_cookie("quizsvc_browser").value
    learner_id = db.scalars(select(Browser.learner_id).where(
        Browser.token_hash == digest(token))).one()
    rng = random.Random(7)
    dues = [clock.now + timedelta(minutes=rng.randint(-60 * 24 * 10, 60 * 24 * 50))
            for _ in range(300)]
    db.add_all(ReviewCard(learner_id=learner_id, question_id=f"q{i}", lesson=LESSON_ID,
                          state=2, step=None, stability=3.0, difficulty=5.0, due=due,
                          last_review=clock.now, created_at=clock.now)
               for i, due in enumerate(dues))
    db.commit()
    report = browser.get("/api/reviews/due").json
    expected = scheduling.forecast(dues, clock.now)
    assert [d["count"] for d in report["forecast"]] == [d.count for d in expected]
    assert report["due_now"] == sum(1 for due in dues if due <= clock.now)
    assert report["cards"] == 300
