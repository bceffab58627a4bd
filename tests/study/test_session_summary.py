"""The end of a session: the score, every item with a link to its reveal, the next due review,
what was mastered, and a session of the mistakes on request."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from quizsvc.store.models import Learner, Mastery
from tests.support.browsers import ApiBrowser, FormBrowser, Study
from tests.support.fake_bank import LESSON_ID


def finish_a_session(study: Study, browser: ApiBrowser) -> tuple[str, list[dict]]:
    """Review three questions: the numeric one wrong (explained), the choice right, the
    flashcard rated Good. Return the session id and the three attempts."""
    session = study.start(LESSON_ID, mode="review", size=3)
    attempts = []
    for position in range(3):
        question = study.next(session["id"])["question"]
        vid = question["variant_id"]
        if question["kind"] == "flashcard":
            attempt = study.answer(vid, None).json
            assert browser.post(f"/api/attempts/{attempt['id']}/rating",
                                json={"rating": "good"}).status_code == 200
        elif position == 0:
            attempt = study.answer(vid, study.wrong_answer(vid)).json
            assert browser.explain(
                attempt, explanation="I split the budget the wrong way").status_code == 200
        else:
            attempt = study.answer(vid, study.right_answer(vid)).json
        attempts.append(attempt)
    return session["id"], attempts


def summary_of(browser: ApiBrowser, session_id: str) -> dict:
    response = browser.get(f"/api/sessions/{session_id}/summary")
    assert response.status_code == 200, response.json
    return response.json


def test_the_summary_scores_graded_answers_and_lists_every_item(study: Study,
                                                                 browser: ApiBrowser) -> None:
    session_id, attempts = finish_a_session(study, browser)
    summary = summary_of(browser, session_id)
    assert (summary["right"], summary["graded"]) == (1, 2), "the flashcard is rated, not graded"
    assert summary["session"]["done"] is True
    items = summary["items"]
    assert [item["position"] for item in items] == [1, 2, 3]
    assert [item["attempt_id"] for item in items] == [a["id"] for a in attempts]
    assert [item["correct"] for item in items] == [False, True, None]
    assert [item["graded"] for item in items] == [True, True, False]
    assert items[2]["rating"] == "good" and items[0]["rating"] == "again"
    assert all(item["revealed"] for item in items)
    assert summary["mistakes"] == [items[0]["question_id"]]
    assert summary["next_due"] == min(item["due"] for item in items)
    assert summary["mastered_now"] == [] and not any(item["mastered"] for item in items)
    assert items[0]["title"]["en"] and items[0]["section"]


def test_an_unexplained_mistake_is_listed_as_not_yet_revealed(study: Study,
                                                             browser: ApiBrowser) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.wrong_answer(vid))
    item = summary_of(browser, session["id"])["items"][0]
    assert item["correct"] is False and item["revealed"] is False


def test_an_unfinished_session_lists_what_is_served_and_still_unanswered(
        study: Study, browser: ApiBrowser) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=2)
    summary = summary_of(browser, session["id"])
    assert summary["items"] == []  # nothing is asked yet, so nothing is shown
    served = study.next(session["id"])["question"]
    summary = summary_of(browser, session["id"])
    assert [(item["question_id"], item["attempt_id"]) for item in summary["items"]] == [
        (served["question_id"], None)]
    assert (summary["right"], summary["graded"], summary["next_due"]) == (0, 0, None)


def test_a_question_mastered_during_the_session_is_named(study: Study, browser: ApiBrowser,
                                                        db: Any, clock: Any) -> None:
    session_id, _ = finish_a_session(study, browser)
    learner_id = db.scalar(select(Learner.id))
    db.add(Mastery(learner_id=learner_id, question_id="running-first", lesson=LESSON_ID,
                   mastered=True, mastered_at=clock.now, evidence=[1, 2],
                   policy="spaced-closed-book/2", evaluated_at=clock.now))
    db.flush()
    summary = summary_of(browser, session_id)
    assert summary["mastered_now"] == ["running-first"]
    assert [item["mastered_in_session"] for item in summary["items"]] == [False, True, False]


def test_retry_of_serves_the_mistakes_again_as_practice(study: Study,
                                                        browser: ApiBrowser) -> None:
    session_id, _ = finish_a_session(study, browser)
    mistakes = summary_of(browser, session_id)["mistakes"]
    response = browser.post("/api/sessions", json={"lesson": LESSON_ID, "mode": "quiz",
                                                   "size": 10, "retry_of": session_id})
    assert response.status_code == 201, response.json
    retry = response.json
    assert (retry["total"], retry["practice"], retry["new"], retry["due"]) == (1, 1, 0, 0)
    question = study.next(retry["id"])["question"]
    assert question["question_id"] == mistakes[0]


def test_retry_of_is_refused_naming_the_field(study: Study, browser: ApiBrowser,
                                              new_browser: Any) -> None:
    """Unknown, another learner's, another lesson's, or a session without mistakes: 422 on
    ``retry_of``, and no session is started."""
    clean = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(clean["id"])["question"]["variant_id"]
    study.answer(vid, study.right_answer(vid))
    stranger = new_browser()
    theirs = Study(stranger, study.db, study.bank)
    their_session, _ = finish_a_session(theirs, stranger)
    for retry_of, reason in (("no-such-session", "unknown_session"),
                             (their_session, "unknown_session"),
                             (clean["id"], "no_mistakes")):
        response = browser.post("/api/sessions", json={"lesson": LESSON_ID, "mode": "quiz",
                                                       "retry_of": retry_of})
        assert response.status_code == 422, response.json
        assert response.json["reason"] == reason
        assert "retry_of" in response.json["errors"]["json"]


def test_the_session_page_ends_with_the_summary_and_a_retry_button(app: Any) -> None:
    """Without JavaScript: the last page shows the score, links each answer to its reveal,
    and its "review my mistakes" form starts a session of them."""
    learner = FormBrowser(app)
    started = learner.post("/study", lesson=LESSON_ID, mode="quiz", size="2")
    assert started.status_code == 303
    session_url = started.headers["Location"]
    for _ in range(2):
        page = learner.get(session_url).get_data(as_text=True)
        assert 'id="answer-form"' in page
        variant_id = page.split('data-variant-id="')[1].split('"')[0]
        fields = {"variant_id": variant_id,
                  "idempotency_key": page.split('name="idempotency_key" value="')[1]
                  .split('"')[0]}
        kind = page.split('data-input-type="')[1].split('"')[0]
        if kind == "vector":  # FakeBank's budget split: two boxes, never 999 each
            fields.update({"answer.0": "999", "answer.1": "999"})
        else:
            fields["answer"] = "waiting"  # the choice question's wrong option
        answered = learner.client.post(f"{session_url}/answer",
                                       data={"csrf_token": learner.csrf, **fields})
        assert answered.status_code == 303, answered.get_data(as_text=True)[:2000]
    done = learner.get(session_url).get_data(as_text=True)
    assert 'id="session-score"' in done and "0 / 2" in done
    assert done.count(f"{session_url}/attempts/") == 2
    assert 'name="retry_of"' in done
    retry = learner.post("/study", lesson=LESSON_ID, mode="quiz", size="2",
                         retry_of=session_url.rsplit("/", 1)[1])
    assert retry.status_code == 303 and retry.headers["Location"] != session_url
