"""Closed book, round two: no side door the service itself opens (issue 20).

Each test is one door found open by an attacker: an export that hashes an unrevealed answer,
a signed export that vouches for whoever imports it, a retry that counts an answer read a
minute ago, an imported attempt that an explanation turns into an author preview, a summary
that lists what a session will ask, and an import that makes the next export a 500.
"""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from typing import Any

from quizsvc.bank.content import content_key
from quizsvc.store.models import Attempt, ServedVariant
from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID
from tests.support.history import attempt_ids, forget_history, learner_of
from tests.support.repos import repos


def answer_next(study: Study, right: bool, mode: str = "quiz") -> dict[str, Any]:
    """Start a one-question session, answer it right or wrong; return the attempt JSON."""
    session = study.start(LESSON_ID, mode=mode, size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    response = study.answer(vid, study.right_answer(vid) if right else study.wrong_answer(vid))
    assert response.status_code == 201, response.json
    return response.json


def explain(browser: ApiBrowser, attempt: dict[str, Any]) -> Any:
    return browser.explain(attempt, explanation="I served the waiting queue first.")


# ---------------------------------------------------------------- the export


def test_an_export_carries_nothing_derived_from_an_unrevealed_answer(
        study: Study, browser: ApiBrowser, db: Any) -> None:
    wrong = answer_next(study, right=False)
    assert wrong["reveal"] is None
    stored = db.get(Attempt, wrong["id"])
    served = db.get(ServedVariant, stored.variant_id)
    document = browser.get("/api/export").json
    [record] = document["attempts"]
    assert (record["seed"], record["content_key"], record["misconception_id"]) == (
        None, None, None)
    text = json.dumps(document)
    for secret in (stored.content_key, served.answer_key, str(stored.seed),
                   stored.misconception_id):
        assert secret and secret not in text
    # a seal says nothing either: two exports seal the same withheld values differently
    again = browser.get("/api/export").json["attempts"][0]
    assert again["sealed"] != record["sealed"]


def test_a_revealed_attempt_is_exported_whole(study: Study, browser: ApiBrowser) -> None:
    right = answer_next(study, right=True)
    [record] = browser.get("/api/export").json["attempts"]
    assert record["revealed_at"] is not None and right["reveal"] is not None
    assert record["seed"] is not None and record["content_key"] and record["sealed"] is None


# ---------------------------------------------------------------- signed for one learner


def mastered_history(study: Study, clock: Any) -> None:
    """Master the choice question: right closed-book answers on two days, other contents."""
    for _ in range(2):
        answer_next(study, right=True)
        clock.advance(days=1, hours=1)


def test_a_signed_export_masters_no_one_but_the_learner_it_came_from(
        study: Study, browser: ApiBrowser, new_browser: Any, clock: Any) -> None:
    mastered_history(study, clock)
    assert any(m["mastered"] for m in browser.get("/api/mastery").json)
    document = browser.get("/api/export").json
    for _ in range(3):  # as many learners as like: none of them gets it
        other = new_browser()
        imported = other.post("/api/import", json=document)
        assert imported.status_code == 201, imported.json
        assert (imported.json["vouched"], imported.json["reason"]) == (False, "another_learner")
        assert imported.json["mastery"] == 0 and other.get("/api/mastery").json == []
        attempts = other.get("/api/export").json["attempts"]
        assert {(a["origin"], a["graded"], a["revealed_at"]) for a in attempts} == {
            ("unverified", False, None)}


def test_the_learner_it_came_from_gets_it_back_whole(
        study: Study, browser: ApiBrowser, db: Any, clock: Any) -> None:
    mastered_history(study, clock)
    answer_next(study, right=False)  # one withheld reveal travels sealed
    document = browser.get("/api/export").json
    forget_history(db, browser)  # the learner's data are lost (a restore, say)
    assert browser.get("/api/mastery").json == []
    imported = browser.post("/api/import", json=document)
    assert imported.status_code == 201, imported.json
    assert (imported.json["vouched"], imported.json["reason"]) == (True, "own_signed_export")
    again = browser.get("/api/export").json
    same = ("exported_at", "signature", "attempts")
    assert {k: v for k, v in again.items() if k not in same} == {
        k: v for k, v in document.items() if k not in same}
    unseal = ("sealed",)
    assert [{k: v for k, v in a.items() if k not in unseal} for a in again["attempts"]] == [
        {k: v for k, v in a.items() if k not in unseal} for a in document["attempts"]]
    assert any(m["mastered"] for m in browser.get("/api/mastery").json)
    # the withheld reveal is earned by explaining, as before the loss
    withheld = next(a for a in attempt_ids(db, browser)
                    if browser.get(f"/api/attempts/{a}").json["explanation_required"])
    explained = browser.explain(withheld, explanation="I split it evenly.")
    assert explained.status_code == 200 and explained.json["reveal"] is not None


def test_the_signature_covers_the_whole_document(
        study: Study, browser: ApiBrowser, db: Any, clock: Any) -> None:
    mastered_history(study, clock)
    document = browser.get("/api/export").json
    forget_history(db, browser)
    for change in (lambda d: d["cards"][0].update(stability=99.0),
                   lambda d: d["review_log"].pop(),
                   lambda d: d.update(desired_retention=0.8),
                   lambda d: d["attempts"][0].update(duration_ms=1)):
        altered = copy.deepcopy(document)
        change(altered)
        forget_history(db, browser)
        imported = browser.post("/api/import", json=altered)
        assert imported.status_code == 201, imported.json
        assert (imported.json["vouched"], imported.json["reason"]) == (False,
                                                                       "not_signed_here")
        assert browser.get("/api/mastery").json == []


def test_signed_attempts_of_two_learners_cannot_be_mixed_into_one_file(
        study: Study, browser: ApiBrowser, new_browser: Any, db: Any, bank: Any,
        clock: Any) -> None:
    mastered_history(study, clock)
    theirs = browser.get("/api/export").json
    me = new_browser()
    answer_next(Study(me, db, bank), right=True)
    mine = me.get("/api/export").json
    forget_history(db, me)
    mixed = copy.deepcopy(mine)
    mixed["attempts"] += [{**a, "n": a["n"] + len(mine["attempts"]),
                           "idempotency_key": f"theirs-{a['n']}"} for a in theirs["attempts"]]
    imported = me.post("/api/import", json=mixed)
    assert imported.status_code == 201, imported.json
    assert imported.json["vouched"] is False and me.get("/api/mastery").json == []


def test_an_export_from_another_deployment_is_history_only(
        app_config: dict[str, Any], connection: Any, new_browser: Any, db: Any, bank: Any
        ) -> None:
    from quizsvc import create_app

    elsewhere = create_app({**app_config, "SECRET_KEY": "another-deployment"})
    elsewhere.extensions["quizsvc.db"].bind_to_connection(connection)
    there = ApiBrowser(elsewhere)
    answer_next(Study(there, db, bank), right=True)
    document = there.get("/api/export").json
    imported = new_browser().post("/api/import", json=document)
    assert imported.status_code == 201, imported.json
    assert (imported.json["vouched"], imported.json["reason"]) == (False, "another_deployment")


# ---------------------------------------------------------------- imports explain nothing


def unsigned_document(attempts: list[dict[str, Any]], cards: list[dict[str, Any]] = (),
                      logs: list[dict[str, Any]] = ()) -> dict[str, Any]:
    return {"format": "quizsvc-export/3", "exported_at": attempts[-1]["submitted_at"],
            "self_assessments": [], "attempts": attempts, "cards": list(cards),
            "review_log": list(logs), "mastery": []}


def forged_attempt(n: int, question: str, kind: str, seed: int, answer: Any, at: Any,
                   **claims: Any) -> dict[str, Any]:
    """Return an attempt record as an attacker writes one."""
    return {
        "n": n, "question_id": question, "lesson": LESSON_ID, "kind": kind, "seed": seed,
        "bank_version": "fake-1", "answer": answer, "graded": True, "correct": False,
        "score": 0.0, "misconception_id": None, "served_at": at.isoformat(),
        "submitted_at": (at + timedelta(seconds=30)).isoformat(), "duration_ms": 30_000,
        "closed_book": True, "explanation": None, "explained_at": None, "revealed_at": None,
        "idempotency_key": f"forged-{n}", "request_digest": "0" * 64, **claims}


def test_an_imported_wrong_attempt_at_a_chosen_seed_can_never_be_explained(
        new_browser: Any, db: Any, bank: Any, clock: Any) -> None:
    fresh = new_browser()
    seed = 4242
    wrong = [x + 1 for x in bank.variant("budget-split", seed).answer]
    forged = unsigned_document([forged_attempt(1, "budget-split", "numeric", seed, wrong,
                                               clock.now - timedelta(hours=1))])
    assert fresh.post("/api/import", json=forged).status_code == 201
    [attempt_id] = attempt_ids(db, fresh)
    shown = fresh.get(f"/api/attempts/{attempt_id}").json
    assert (shown["graded"], shown["correct"], shown["explanation_required"],
            shown["per_element"], shown["reveal"]) == (False, None, False, [], None)
    explained = fresh.explain(attempt_id, explanation="please show me the answer")
    assert explained.status_code == 409, explained.json
    assert fresh.get(f"/api/attempts/{attempt_id}").json["reveal"] is None


def test_an_imported_answer_of_4000_digits_is_422_and_breaks_no_later_export(
        new_browser: Any, clock: Any) -> None:
    fresh = new_browser()
    huge = int("9" * 4000)
    forged = unsigned_document([forged_attempt(1, "budget-split", "numeric", 1, huge,
                                               clock.now)])
    body = json.dumps(forged)  # json.dumps writes the integer out in full
    response = fresh.client.post("/api/import", data=body, headers={
        "Content-Type": "application/json", "X-CSRF-Token": fresh.csrf})
    assert response.status_code == 422, response.json
    assert "answer" in response.json["errors"]["json"]["attempts"]["0"]
    for nested in ([huge], [1, [2]], {"a": 1}):
        forged["attempts"][0]["answer"] = nested
        assert fresh.post("/api/import", json=forged).status_code == 422
    assert fresh.get("/api/export").status_code == 200


# ---------------------------------------------------------------- the pooled fit


def test_an_import_teaches_the_pooled_fit_nothing(new_browser: Any, db: Any, clock: Any
                                                  ) -> None:

    fresh = new_browser()
    at = clock.now - timedelta(days=30)
    card = {"question_id": "budget-split", "lesson": LESSON_ID, "state": 2, "step": None,
            "stability": 5.0, "difficulty": 5.0, "due": (at + timedelta(days=5)).isoformat(),
            "last_review": at.isoformat(), "created_at": at.isoformat()}
    logs = [{"question_id": "budget-split", "attempt": None, "rating": 1,
             "reviewed_at": (at + timedelta(days=day)).isoformat(), "duration_ms": None,
             "rated_by_learner": True, "state_before": 2, "step_before": None,
             "stability_before": 5.0, "difficulty_before": 5.0,
             "due_before": at.isoformat(), "last_review_before": at.isoformat()}
            for day in range(3)]
    forged = unsigned_document([forged_attempt(1, "budget-split", "numeric", 1, [1, 2], at)],
                               [card], logs)
    assert fresh.post("/api/import", json=forged).status_code == 201
    learner = learner_of(db, fresh)
    assert len(repos(db).settings.review_log(learner_id=learner)[learner]) == 3
    assert learner not in repos(db).settings.review_log(vouched_only=True)


# ---------------------------------------------------------------- retry after the reveal


def answer_question(study: Study, question_id: str, right: bool,
                    retry_of: str | None = None) -> dict[str, Any]:
    """Serve ``question_id`` in a quiz session (or a retry) and answer it; return the JSON."""
    body = {"lesson": LESSON_ID, "mode": "quiz", "size": 2, "retry_of": retry_of}
    session = study.browser.post("/api/sessions", json=body)
    assert session.status_code == 201, session.json
    while not (item := study.next(session.json["id"]))["done"]:
        vid = item["question"]["variant_id"]
        if item["question"]["question_id"] == question_id:
            answer = study.right_answer(vid) if right else study.wrong_answer(vid)
            response = study.answer(vid, answer)
            assert response.status_code == 201, response.json
            return {**response.json, "session_id": session.json["id"],
                    "content": content_key(study.variant(vid))}
        study.answer(vid, study.right_answer(vid))  # the other question, out of the way
    raise AssertionError(f"{question_id} was not served")


def test_an_answer_right_after_the_reveal_is_practice_not_closed_book(
        study: Study, browser: ApiBrowser, clock: Any) -> None:
    wrong = answer_question(study, "budget-split", right=False)
    assert explain(browser, wrong).status_code == 200
    clock.advance(minutes=2)
    again = answer_question(study, "budget-split", right=True)
    assert (again["closed_book"], again["practice"]) == (False, True)
    clock.advance(days=1, hours=1)  # closed-book again: it starts the run, masters nothing yet
    first = answer_question(study, "budget-split", right=True)
    assert (first["closed_book"], first["practice"]) == (True, False)
    mastery = {m["question_id"]: m for m in browser.get("/api/mastery").json}
    assert not mastery.get("budget-split", {}).get("mastered")
    clock.advance(days=1, hours=1)
    answer_question(study, "budget-split", right=True)
    mastery = {m["question_id"]: m for m in browser.get("/api/mastery").json}
    assert mastery["budget-split"]["mastered"]


def test_a_right_answer_long_after_the_reveal_is_closed_book(
        study: Study, browser: ApiBrowser, clock: Any) -> None:
    wrong = answer_question(study, "budget-split", right=False)
    assert explain(browser, wrong).status_code == 200
    clock.advance(hours=12, minutes=1)
    later = answer_question(study, "budget-split", right=True)
    assert (later["closed_book"], later["practice"]) == (True, False)


def test_a_retry_of_mistakes_draws_other_content_than_the_one_revealed(
        study: Study, browser: ApiBrowser) -> None:
    for _ in range(6):
        wrong = answer_question(study, "running-first", right=False)
        assert explain(browser, wrong).status_code == 200
        retry = answer_question(study, "running-first", right=True,
                                retry_of=wrong["session_id"])
        assert retry["content"] != wrong["content"]
        assert retry["practice"] is True


# ---------------------------------------------------------------- the summary


def test_the_summary_lists_only_the_questions_served_so_far(study: Study,
                                                           browser: ApiBrowser) -> None:
    session = study.start(LESSON_ID, mode="review", size=4)
    assert session["total"] == 4
    first = study.next(session["id"])["question"]
    summary = browser.get(f"/api/sessions/{session['id']}/summary").json
    assert [item["question_id"] for item in summary["items"]] == [first["question_id"]]
