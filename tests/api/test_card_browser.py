"""The card browser's API: search a lesson's items with their states, one item's history, and
suspend or bury an item, which then is never served and counts in no due figure."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from quizsvc.store.models import SessionItem
from tests.support.clock import START
from tests.support.fake_bank import LESSON_ID

ITEMS = f"/api/lessons/{LESSON_ID}/items"


def answer_all(study: Any, session: dict, right: bool = True) -> list[str]:
    """Answer every item of a session; return the served question ids in order."""
    served = []
    while True:
        item = study.next(session["id"])
        if item["done"]:
            return served
        question = item["question"]
        served.append(question["question_id"])
        answer = (None if question["kind"] == "flashcard" else
                  "text" if question["kind"] == "explain" else
                  study.right_answer(question["variant_id"]) if right else
                  study.wrong_answer(question["variant_id"]))
        assert study.answer(question["variant_id"], answer).status_code == 201


def served_in(study: Any, mode: str) -> list[str]:
    """Start a session of ``mode`` and answer it through; return what it served."""
    return answer_all(study, study.start(LESSON_ID, mode=mode, size=10))


def suspend(browser: Any, question_id: str, suspended: bool = True) -> Any:
    return browser.put(f"/api/items/{question_id}/suspension", json={"suspended": suspended})


def bury(browser: Any, question_id: str, buried: bool = True) -> Any:
    return browser.put(f"/api/items/{question_id}/bury", json={"buried": buried})


def item(browser: Any, question_id: str) -> dict:
    found = browser.get(f"{ITEMS}?q={question_id}").json["items"]
    return next(entry for entry in found if entry["question_id"] == question_id)


@pytest.mark.parametrize(("mode", "question_id"), [
    ("review", "budget-split"), ("quiz", "running-first"), ("review", "computed-card"),
    ("flashcards", "computed-card")])
def test_a_suspended_item_is_never_served(browser: Any, study: Any, mode: str,
                                          question_id: str) -> None:
    assert suspend(browser, question_id).status_code == 200
    assert question_id not in served_in(study, mode)


def test_a_suspended_card_is_neither_due_nor_new_nor_served_again(
        browser: Any, study: Any, clock: Any) -> None:
    assert set(served_in(study, "quiz")) == {"budget-split", "running-first"}  # two cards
    clock.advance(days=400)  # both are due
    due = browser.get(f"/api/reviews/due?lesson={LESSON_ID}").json
    assert due["due_now"] == 2
    assert suspend(browser, "budget-split").json == {
        "question_id": "budget-split", "suspended": True, "buried_until": None}
    due = browser.get(f"/api/reviews/due?lesson={LESSON_ID}").json
    assert due["due_now"] == 1
    assert [card["question_id"] for card in due["items"]] == ["running-first"]
    assert sum(day["count"] for day in due["forecast"]) == 1
    assert served_in(study, "quiz") == ["running-first"]
    assert suspend(browser, "budget-split", False).json["suspended"] is False
    assert browser.get(f"/api/reviews/due?lesson={LESSON_ID}").json["due_now"] == 1
    assert served_in(study, "quiz")[:1] == ["budget-split"]


def test_a_suspended_new_item_is_not_counted_new_on_the_start_pages(browser: Any) -> None:
    assert "0 due, 4 new" in browser.get("/review?lang=en").get_data(as_text=True)
    assert suspend(browser, "why-rollback").status_code == 200
    assert "0 due, 3 new" in browser.get("/review?lang=en").get_data(as_text=True)


def test_a_buried_item_comes_back_when_the_next_day_starts(
        browser: Any, study: Any, clock: Any) -> None:
    clock.now = START.replace(hour=23, minute=0)
    response = bury(browser, "running-first")
    midnight = datetime.combine(START.date() + timedelta(days=1), datetime.min.time(),
                                START.tzinfo)
    assert response.status_code == 200
    assert response.json["buried_until"] == midnight.isoformat()
    assert item(browser, "running-first")["status"] == "buried"
    assert "running-first" not in served_in(study, "quiz")
    clock.now = midnight + timedelta(minutes=1)
    assert item(browser, "running-first")["status"] == "new"
    assert "running-first" in served_in(study, "quiz")


def test_unburying_serves_the_item_again_today(browser: Any, study: Any) -> None:
    bury(browser, "budget-split")
    assert bury(browser, "budget-split", False).json["buried_until"] is None
    assert "budget-split" in served_in(study, "quiz")


def test_suspending_drops_the_item_from_a_session_that_has_not_served_it_yet(
        browser: Any, study: Any, db: Any) -> None:
    session = study.start(LESSON_ID, mode="review", size=4)
    assert suspend(browser, "why-rollback").status_code == 200
    assert "why-rollback" not in answer_all(study, session)
    assert browser.get(f"/api/sessions/{session['id']}").json["total"] == 3


def test_a_hold_is_the_learners_own(new_browser: Any, study: Any, bank: Any, db: Any) -> None:
    suspend(study.browser, "budget-split")
    other = new_browser()
    assert item(other, "budget-split")["hold"]["suspended"] is False
    from tests.support.browsers import Study
    assert "budget-split" in served_in(Study(other, db, bank), "quiz")


def test_holds_need_the_csrf_echo_and_a_known_question(browser: Any) -> None:
    no_echo = browser.client.put("/api/items/budget-split/suspension",
                                 json={"suspended": True})
    assert no_echo.status_code == 403
    assert suspend(browser, "no-such-question").status_code == 404
    refused = browser.put("/api/items/budget-split/bury", json={"buried": "tomorrow"})
    assert refused.status_code == 422 and "buried" in refused.json["errors"]["json"]


def test_the_browser_lists_every_item_with_its_state(browser: Any, study: Any,
                                                     clock: Any) -> None:
    page = browser.get(ITEMS).json
    assert (page["total"], page["page"], page["pages"]) == (4, 1, 1)
    assert [entry["status"] for entry in page["items"]] == ["new"] * 4
    answer_all(study, study.start(LESSON_ID, mode="quiz", size=1), right=False)
    entry = item(browser, "budget-split")
    assert entry["status"] == "scheduled" and entry["due"] is not None
    assert entry["graded"] is True and entry["mastered"] is False
    assert entry["interval_days"] is not None
    assert [(a["correct"], a["rating"]) for a in entry["last_answers"]] == [(False, "again")]
    assert item(browser, "computed-card")["mastered"] is None  # a flashcard is never mastered
    clock.advance(days=30)
    assert item(browser, "budget-split")["status"] == "due"


@pytest.mark.parametrize(("query", "found"), [
    ("split", ["budget-split"]),
    ("题 running", ["budget-split", "running-first"]),  # zh title, and a rule budget-split tests
    ("question WHY", ["why-rollback"]),  # en title, any case
    ("fake", ["budget-split", "running-first", "computed-card", "why-rollback"]),  # a tag
    ("预算", ["budget-split", "running-first"]),  # a section's zh title
    ("flashcard", ["computed-card"]),  # a kind
    ("what is num_computed_tokens", ["computed-card"]),  # a flashcard's front
    ("scheduling ledger", []),  # never a flashcard's back
    ("is:suspended", ["why-rollback"]),
    ("is:new spec", ["computed-card"]),
    ("nothing-like-this", []),
])
def test_search_matches_every_word(browser: Any, query: str, found: list[str]) -> None:
    suspend(browser, "why-rollback")
    response = browser.get(ITEMS, query_string={"q": query})
    assert response.status_code == 200
    assert [entry["question_id"] for entry in response.json["items"]] == found


@pytest.mark.parametrize("query", ["running-first", "先 running", "running FIRST"])
def test_search_finds_a_rule_by_its_id_and_its_zh_and_en_title(bank: Any, query: str) -> None:
    import dataclasses

    from quizsvc.study.browse import haystack, matches
    lesson = bank.lessons[LESSON_ID]
    ruled = dataclasses.replace(bank.questions["budget-split"], rules=("running-first",))
    unruled = dataclasses.replace(bank.questions["budget-split"], rules=())
    assert matches(query, haystack(lesson, ruled), "new")
    assert not matches(query, haystack(lesson, unruled), "new")


@pytest.mark.parametrize(("query", "field"), [
    ({"q": "x" * 201}, "q"), ({"page": "0"}, "page"), ({"page": "many"}, "page"),
    ({"sort": "due"}, "sort")])
def test_a_bad_search_is_422_naming_the_field(browser: Any, query: dict, field: str) -> None:
    response = browser.get(ITEMS, query_string=query)
    assert response.status_code == 422
    assert field in response.json["errors"]["query"]


def test_a_page_past_the_last_shows_the_last_and_an_unknown_lesson_is_404(
        browser: Any) -> None:
    assert browser.get(ITEMS + "?page=9").json["page"] == 1
    assert browser.get("/api/lessons/no-such-lesson/items").status_code == 404


def test_history_lists_attempts_with_dates_results_and_ratings_but_no_answers(
        browser: Any, study: Any, clock: Any) -> None:
    answer_all(study, study.start(LESSON_ID, mode="quiz", size=1), right=False)
    clock.advance(days=3)
    answer_all(study, study.start(LESSON_ID, mode="quiz", size=1), right=True)
    history = browser.get("/api/items/budget-split/history").json
    attempts = history["attempts"]
    assert [(a["correct"], a["rating"]) for a in attempts] == [(True, "good"), (False, "again")]
    assert attempts[0]["submitted_at"] > attempts[1]["submitted_at"]
    assert attempts[1]["revealed"] is False  # a wrong answer not explained yet
    assert all(a["session_id"] for a in attempts)
    text = str(history)
    assert "answer'" not in text.replace("last_answers'", "") and "seed" not in text
    assert "solution" not in text


def test_history_is_the_learners_own(new_browser: Any, study: Any) -> None:
    answer_all(study, study.start(LESSON_ID, mode="quiz", size=1))
    other = new_browser()
    assert other.get("/api/items/budget-split/history").json["attempts"] == []
    assert other.get("/api/items/nothing/history").status_code == 404


def test_the_openapi_document_describes_the_browser(client: Any) -> None:
    paths = client.get("/api/openapi.json").json["paths"]
    assert "get" in paths["/api/lessons/{lesson_id}/items"]
    assert "get" in paths["/api/items/{question_id}/history"]
    for path in ("/api/items/{question_id}/suspension", "/api/items/{question_id}/bury"):
        assert paths[path]["put"]["security"] == [{"csrf": []}]
        assert "422" in paths[path]["put"]["responses"]


def test_holds_leave_the_schedule_and_mastery_alone(browser: Any, study: Any, db: Any) -> None:
    answer_all(study, study.start(LESSON_ID, mode="quiz", size=1))
    before = item(browser, "budget-split")
    records = browser.get("/api/mastery").json
    suspend(browser, "budget-split")
    bury(browser, "budget-split")
    assert browser.get("/api/mastery").json == records
    suspend(browser, "budget-split", False)
    bury(browser, "budget-split", False)
    after = item(browser, "budget-split")
    assert (after["due"], after["interval_days"], after["mastered"]) == (
        before["due"], before["interval_days"], before["mastered"])
    assert db.query(SessionItem).count() == 1
