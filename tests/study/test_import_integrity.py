"""An import never vouches for itself: no forged mastery, no reveal that was not earned here.

The attacks are the ones found against ``POST /api/import`` (issues 11 and 20): hand-written
attempts claiming right closed-book answers on two days, attempts claiming a reveal for any
seed, an export read for the seed of an unrevealed variant, and an export altered after
signing. What must still hold: a learner's own export re-imports losslessly into that learner,
reveals and mastery evidence included, and a large one imports at all.
"""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from typing import Any

from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID, FakeBank
from tests.support.history import attempt_ids, comparable, forget_history


def iso(moment: Any) -> str:
    return moment.isoformat()


def forged_attempt(n: int, question: str, kind: str, seed: int, answer: Any, at: Any,
                   **claims: Any) -> dict[str, Any]:
    """Return an attempt record as an attacker writes one (no signature)."""
    return {
        "n": n, "question_id": question, "lesson": LESSON_ID, "kind": kind, "seed": seed,
        "bank_version": "fake-1", "answer": answer, "graded": True, "correct": True,
        "score": 1.0, "misconception_id": None, "served_at": iso(at),
        "submitted_at": iso(at + timedelta(seconds=30)), "duration_ms": 30_000,
        "closed_book": True, "explanation": None, "explained_at": None,
        "revealed_at": iso(at + timedelta(seconds=30)), "idempotency_key": f"forged-{n}",
        "request_digest": "0" * 64, **claims}


def document(*attempts: dict[str, Any]) -> dict[str, Any]:
    return {"format": "quizsvc-export/1", "exported_at": attempts[-1]["submitted_at"],
            "self_assessments": [], "attempts": list(attempts), "cards": [],
            "review_log": [], "mastery": []}


def wrong_option(bank: FakeBank, question: str, seed: int) -> str:
    variant = bank.variant(question, seed)
    return next(o.id for o in variant.input.options if o.id != variant.answer)


def test_hand_written_right_answers_on_two_days_master_nothing(new_browser: Any, bank: Any,
                                                               clock: Any) -> None:
    fresh = new_browser()
    day1 = clock.now - timedelta(days=3)
    forged = document(
        forged_attempt(1, "running-first", "choice", 11, wrong_option(bank, "running-first", 11),
                       day1),
        forged_attempt(2, "running-first", "choice", 12, wrong_option(bank, "running-first", 12),
                       day1 + timedelta(hours=25)))
    response = fresh.post("/api/import", json=forged)
    assert response.status_code == 201, response.json
    assert fresh.get("/api/mastery").json == []
    exported = fresh.get("/api/export").json["attempts"]
    assert [(a["graded"], a["correct"], a["closed_book"], a["origin"]) for a in exported] == [
        (False, None, False, "unverified")] * 2  # no one vouches for them: history only


def test_even_right_forged_answers_are_never_mastery_evidence(new_browser: Any, bank: Any,
                                                              clock: Any) -> None:
    fresh = new_browser()
    day1 = clock.now - timedelta(days=3)
    right = [bank.variant("running-first", seed).answer for seed in (11, 12)]
    forged = document(
        forged_attempt(1, "running-first", "choice", 11, right[0], day1),
        forged_attempt(2, "running-first", "choice", 12, right[1], day1 + timedelta(hours=25)))
    assert fresh.post("/api/import", json=forged).status_code == 201
    assert fresh.get("/api/mastery").json == []


def test_a_forged_reveal_shows_no_answer_for_any_seed(new_browser: Any, bank: Any, db: Any,
                                                      clock: Any) -> None:
    fresh = new_browser()
    at = clock.now - timedelta(days=1)
    attempts = [forged_attempt(n, question, str(bank.questions[question].kind), 4242,
                               "whatever", at, correct=False, score=0.0)
                for n, question in enumerate(("budget-split", "running-first"), start=1)]
    assert fresh.post("/api/import", json=document(*attempts)).status_code == 201
    ids = attempt_ids(db, fresh)
    assert len(ids) == 2
    for attempt_id in ids:
        shown = fresh.get(f"/api/attempts/{attempt_id}")
        assert shown.status_code == 200
        assert shown.json["reveal"] is None, shown.json


def answered(study: Study, right: bool) -> dict[str, Any]:
    """Answer the next graded question right or wrong; return the attempt JSON."""
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    answer = study.right_answer(vid) if right else study.wrong_answer(vid)
    response = study.answer(vid, answer)
    assert response.status_code == 201, response.json
    return response.json


def test_an_unrevealed_attempt_is_exported_without_its_seed_or_misconception(
        browser: ApiBrowser, study: Study, db: Any) -> None:
    wrong = answered(study, right=False)
    assert wrong["reveal"] is None
    exported = browser.get("/api/export").json
    [record] = exported["attempts"]
    assert (record["seed"], record["misconception_id"], record["content_key"]) == (
        None, None, None)
    assert record["sealed"] and exported["signature"]
    from quizsvc.store.models import Attempt

    stored = db.get(Attempt, wrong["id"])
    assert str(stored.seed) not in json.dumps(record)


def test_a_signed_export_re_imports_with_its_reveals_and_withheld_answers(
        browser: ApiBrowser, study: Study, db: Any, bank: Any) -> None:
    """Export, lose the data, import into the same learner, export: the same document."""
    right = answered(study, right=True)
    wrong = answered(study, right=False)
    assert right["reveal"] is not None and wrong["reveal"] is None
    exported = browser.get("/api/export").json
    forget_history(db, browser)
    assert browser.post("/api/import", json=exported).status_code == 201
    again = browser.get("/api/export").json
    assert comparable(again) == comparable(exported)
    assert [a["origin"] for a in again["attempts"]] == ["graded", "graded"]
    # the withheld reveal is earned by explaining, as before the loss: the seed came back
    mine = [browser.get(f"/api/attempts/{n}").json for n in attempt_ids(db, browser)]
    assert [a["reveal"] is not None for a in mine] == [True, False]
    unrevealed = next(a for a in mine if a["explanation_required"])
    explained = browser.explain(unrevealed, explanation="I split it evenly")
    assert explained.status_code == 200
    assert explained.json["reveal"]["correct_answer"] == wrong_answer_key(bank, exported)


def wrong_answer_key(bank: Any, exported: dict[str, Any]) -> Any:
    """Return the correct answer of the exported unrevealed attempt's variant (via its seal)."""
    from quizsvc.study import seal

    record = next(a for a in exported["attempts"] if a["revealed_at"] is None)
    hidden = seal.unseal("test-secret", record["sealed"])
    return bank.variant(record["question_id"], hidden["seed"]).answer


def test_an_export_altered_after_signing_is_history_only(
        browser: ApiBrowser, study: Study, db: Any) -> None:
    answered(study, right=False)
    exported = browser.get("/api/export").json
    altered = copy.deepcopy(exported)
    record = altered["attempts"][0]
    record.update(correct=True, score=1.0, revealed_at=record["submitted_at"])
    forget_history(db, browser)
    assert browser.post("/api/import", json=altered).status_code == 201
    [restored] = browser.get("/api/export").json["attempts"]
    assert (restored["origin"], restored["graded"], restored["revealed_at"]) == (
        "unverified", False, None)


def test_an_import_from_a_question_this_bank_never_had_is_422_naming_it(
        new_browser: Any, clock: Any) -> None:
    forged = document(forged_attempt(1, "no-such-question", "choice", 1, "a", clock.now))
    response = new_browser().post("/api/import", json=forged)
    assert response.status_code == 422
    assert "attempts[0].question_id" in response.json["errors"]["json"]


def test_an_answer_no_column_holds_is_422_on_import(new_browser: Any, clock: Any) -> None:
    forged = document(forged_attempt(1, "budget-split", "numeric", 1, 0, clock.now))
    body = json.dumps(forged).replace('"answer": 0', '"answer": 1e999')
    response = new_browser().client.post("/api/import", data=body, headers={
        "Content-Type": "application/json", "X-CSRF-Token": new_browser().csrf})
    assert response.status_code in (403, 422)  # another browser's token: refused either way
    fresh = new_browser()
    response = fresh.client.post("/api/import", data=body, headers={
        "Content-Type": "application/json", "X-CSRF-Token": fresh.csrf})
    assert response.status_code == 422, response.json
    assert "attempts.0.answer" in response.json["errors"]["json"]


def test_a_large_export_of_its_own_imports_back(browser: ApiBrowser, new_browser: Any,
                                                db: Any, bank: Any, clock: Any) -> None:
    """About 1,700 answers make an export of over a megabyte: it must import, not 413."""
    from quizsvc.store.models import Attempt, ServedVariant

    study = Study(browser, db, bank)
    answered(study, right=True)  # the learner is stored; the rest of the history is bulk
    [learner_id] = {db.get(Attempt, n).learner_id for n in attempt_ids(db, browser)}
    for n in range(1700):
        at = clock.now - timedelta(days=400) + timedelta(hours=7 * n)
        variant_id = f"bulk-{n:05d}"
        db.add(ServedVariant(id=variant_id, learner_id=learner_id, question_id="budget-split",
                             lesson=LESSON_ID, kind="numeric", seed=n, bank_version="fake-1",
                             served_at=at, answered=True, open_book=False))
        db.flush()
        answer = bank.variant("budget-split", n).answer
        db.add(Attempt(learner_id=learner_id, variant_id=variant_id, question_id="budget-split",
                       lesson=LESSON_ID, kind="numeric", seed=n, bank_version="fake-1",
                       answer=answer, graded=True, correct=True, score=1.0,
                       misconception_id=None, served_at=at, submitted_at=at, duration_ms=9000,
                       closed_book=True, explanation=None, explained_at=None, revealed_at=at,
                       idempotency_key=f"bulk-{n}", request_digest="0" * 64))
    db.commit()
    exported = browser.get("/api/export").json
    size = len(json.dumps(exported).encode())
    assert len(exported["attempts"]) > 1200 and size > 1_048_576, size
    response = new_browser().post("/api/import", json=exported)
    assert response.status_code == 201, response.status_code
    assert response.json["attempts"] == len(exported["attempts"])


def test_unverified_history_cannot_be_rated(new_browser: Any, db: Any, clock: Any) -> None:
    fresh = new_browser()
    forged = document(forged_attempt(1, "budget-split", "numeric", 3, [1, 7], clock.now,
                                     bank_version="an-older-bank"))
    assert fresh.post("/api/import", json=forged).status_code == 201
    [attempt_id] = attempt_ids(db, fresh)
    shown = fresh.get(f"/api/attempts/{attempt_id}").json
    assert (shown["graded"], shown["rating_choices"], shown["reveal"]) == (False, [], None)
    assert fresh.post(f"/api/attempts/{attempt_id}/rating",
                      json={"rating": "good"}).status_code == 409
