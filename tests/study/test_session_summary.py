"""The end of a session: the score, every item with a link to its reveal, the next due review,
what was mastered, and a session of the mistakes on request.

The use cases run on the fake unit of work; the API and the page, on both databases."""

from __future__ import annotations

from typing import Any

import pytest

from quizsvc.errors import Invalid
from quizsvc.study import sessions
from quizsvc.study.answering import AttemptView
from quizsvc.study.sessions import SessionSummary
from tests.support.browsers import ApiBrowser, FormBrowser, Study
from tests.support.fake_bank import LESSON_ID
from tests.support.fake_study import FakeStudy


def finish_a_session(learner: FakeStudy) -> tuple[str, list[AttemptView]]:
    """Review three questions: the numeric one wrong (explained), the choice right, the
    flashcard rated Good. Return the session id and the three attempts."""
    session = learner.start(LESSON_ID, mode="review", size=3)
    attempts = []
    for position in range(3):
        question = learner.next(session.id).question
        assert question is not None
        vid = question.variant_id
        if question.kind == "flashcard":
            attempt = learner.answer(vid, None)
            learner.rate(attempt.id, "good")
        elif position == 0:
            attempt = learner.answer(vid, learner.wrong_answer(vid))
            learner.explain(attempt.id, "I split the budget the wrong way")
        else:
            attempt = learner.answer(vid, learner.right_answer(vid))
        attempts.append(attempt)
    return session.id, attempts


def summary_of(learner: FakeStudy, session_id: str) -> SessionSummary:
    return sessions.session_summary(learner.ctx, session_id)


def test_the_summary_scores_graded_answers_and_lists_every_item(learner: FakeStudy) -> None:
    session_id, attempts = finish_a_session(learner)
    summary = summary_of(learner, session_id)
    assert (summary.right, summary.graded) == (1, 2), "the flashcard is rated, not graded"
    assert summary.session.done is True
    items = summary.items
    assert [item.position for item in items] == [1, 2, 3]
    assert [item.attempt_id for item in items] == [a.id for a in attempts]
    assert [item.correct for item in items] == [False, True, None]
    assert [item.graded for item in items] == [True, True, False]
    assert items[2].rating == "good" and items[0].rating == "again"
    assert all(item.revealed for item in items)
    assert summary.mistakes == (items[0].question_id,)
    assert summary.next_due == min(item.due for item in items)
    assert summary.mastered_now == () and not any(item.mastered for item in items)
    assert items[0].title.en and items[0].section


def test_an_unexplained_mistake_is_listed_as_not_yet_revealed(learner: FakeStudy) -> None:
    session = learner.start(LESSON_ID, mode="quiz", size=1)
    vid = learner.next(session.id).question.variant_id
    learner.answer(vid, learner.wrong_answer(vid))
    [item] = summary_of(learner, session.id).items
    assert item.correct is False and item.revealed is False


def test_an_unfinished_session_lists_what_is_served_and_still_unanswered(
        learner: FakeStudy) -> None:
    session = learner.start(LESSON_ID, mode="quiz", size=2)
    assert summary_of(learner, session.id).items == ()  # nothing asked yet: nothing shown
    served = learner.next(session.id).question
    summary = summary_of(learner, session.id)
    assert [(item.question_id, item.attempt_id) for item in summary.items] == [
        (served.question_id, None)]
    assert (summary.right, summary.graded, summary.next_due) == (0, 0, None)


def test_a_question_mastered_during_the_session_is_named(learner: FakeStudy,
                                                        clock: Any) -> None:
    session_id, _ = finish_a_session(learner)
    learner.uow.tables.insert("mastery", {
        "learner_id": learner.learner_id, "question_id": "running-first",
        "lesson": LESSON_ID, "mastered": True, "mastered_at": clock.now, "evidence": [1, 2],
        "policy": "spaced-closed-book/2", "evaluated_at": clock.now})
    summary = summary_of(learner, session_id)
    assert summary.mastered_now == ("running-first",)
    assert [item.mastered_in_session for item in summary.items] == [False, True, False]


def test_retry_of_serves_the_mistakes_again_as_practice(learner: FakeStudy) -> None:
    session_id, _ = finish_a_session(learner)
    mistakes = summary_of(learner, session_id).mistakes
    retry = sessions.start_session(learner.ctx, LESSON_ID, "quiz", 10, retry_of=session_id)
    assert (retry.total, retry.practice, retry.new, retry.due) == (1, 1, 0, 0)
    assert learner.next(retry.id).question.question_id == mistakes[0]


def test_retry_of_is_refused_naming_the_field(learner: FakeStudy) -> None:
    """Unknown, another learner's, another lesson's, or a session without mistakes: 422 on
    ``retry_of``, and no session is started."""
    clean = learner.start(LESSON_ID, mode="quiz", size=1)
    vid = learner.next(clean.id).question.variant_id
    learner.answer(vid, learner.right_answer(vid))
    their_session, _ = finish_a_session(learner.another("stranger"))
    stored = len(learner.rows("study_session"))
    for retry_of, reason in (("no-such-session", "unknown_session"),
                             (their_session, "unknown_session"),
                             (clean.id, "no_mistakes")):
        with pytest.raises(Invalid) as refused:
            sessions.start_session(learner.ctx, LESSON_ID, "quiz", 10, retry_of=retry_of)
        assert (refused.value.field, refused.value.reason) == ("retry_of", reason)
    assert len(learner.rows("study_session")) == stored


def test_the_summary_api_says_what_the_use_case_says(study: Study, browser: ApiBrowser
                                                     ) -> None:
    """End to end on both databases: the summary and a retry through the API."""
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    study.answer(vid, study.wrong_answer(vid))
    summary = browser.get(f"/api/sessions/{session['id']}/summary")
    assert summary.status_code == 200, summary.json
    assert (summary.json["right"], summary.json["graded"]) == (0, 1)
    assert summary.json["mistakes"] == [summary.json["items"][0]["question_id"]]
    retry = browser.post("/api/sessions", json={"lesson": LESSON_ID, "mode": "quiz",
                                                "size": 10, "retry_of": session["id"]})
    assert retry.status_code == 201 and retry.json["practice"] == 1, retry.json
    refused = browser.post("/api/sessions", json={"lesson": LESSON_ID, "mode": "quiz",
                                                  "retry_of": "no-such-session"})
    assert refused.status_code == 422 and "retry_of" in refused.json["errors"]["json"]


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
