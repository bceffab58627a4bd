"""Try a new variant (issue 24): after a numeric question's reveal, a fresh variant of it,
graded as practice. It is served only after the reveal, of a numeric question, with other
content; a right answer to it is practice and adds no mastery evidence."""

from __future__ import annotations

from typing import Any

from quizsvc.bank.content import content_key
from quizsvc.store.models import ServedVariant
from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID


def answer_question(study: Study, question_id: str, right: bool) -> dict[str, Any]:
    """Serve ``question_id`` in a quiz session and answer it; return the attempt JSON."""
    session = study.start(LESSON_ID, mode="quiz", size=2)
    while not (item := study.next(session["id"]))["done"]:
        vid = item["question"]["variant_id"]
        if item["question"]["question_id"] == question_id:
            response = study.answer(vid, study.right_answer(vid) if right
                                    else study.wrong_answer(vid))
            assert response.status_code == 201, response.json
            return dict(response.json)
        study.answer(vid, study.right_answer(vid))  # the other question, out of the way
    raise AssertionError(f"{question_id} was not served")


def new_variant(browser: ApiBrowser, attempt: dict[str, Any]) -> Any:
    """Ask for a new variant of an attempt's question."""
    return browser.post(f"/api/attempts/{attempt['id']}/new-variant")


def mastered(browser: ApiBrowser, question_id: str) -> bool:
    """Tell whether the learner's mastery record of a question says mastered."""
    records = {m["question_id"]: m for m in browser.get("/api/mastery").json}
    return bool(records.get(question_id, {}).get("mastered"))


def test_a_right_answer_to_a_new_variant_adds_no_mastery_evidence(
        study: Study, browser: ApiBrowser, clock: Any) -> None:
    first = answer_question(study, "budget-split", right=True)
    assert first["closed_book"] and first["reveal"] is not None
    clock.advance(days=1, hours=1)  # a day later: a right closed-book answer would master it
    served = new_variant(browser, first)
    assert served.status_code == 201, served.json
    assert served.json["question_id"] == "budget-split"
    assert set(served.json) >= {"variant_id", "prompt", "input"} and "seed" not in served.json
    vid = served.json["variant_id"]
    practice = study.answer(vid, study.right_answer(vid))
    assert practice.status_code == 201, practice.json
    assert practice.json["correct"] is True
    assert (practice.json["practice"], practice.json["closed_book"]) == (True, False)
    assert not mastered(browser, "budget-split"), "a new variant is never mastery evidence"
    # the same answer in a session, closed-book, does master it: the practice flag decided
    later = answer_question(study, "budget-split", right=True)
    assert (later["practice"], later["closed_book"]) == (False, True)
    assert mastered(browser, "budget-split")


def test_a_new_variant_asks_something_else_than_the_attempt(
        study: Study, browser: ApiBrowser, db: Any) -> None:
    first = answer_question(study, "budget-split", right=True)
    asked = content_key(study.variant(first["variant_id"]))
    for _ in range(5):
        vid = new_variant(browser, first).json["variant_id"]
        assert content_key(study.variant(vid)) != asked
    practice_rows = db.query(ServedVariant).filter(ServedVariant.practice.is_(True),
                                                   ServedVariant.answered.is_(False)).count()
    assert practice_rows == 1, "asking again replaces the open practice variant"


def test_a_new_variant_waits_for_the_reveal(study: Study, browser: ApiBrowser) -> None:
    wrong = answer_question(study, "budget-split", right=False)
    refused = new_variant(browser, wrong)
    assert refused.status_code == 409 and refused.json["reason"] == "not_revealed"
    explained = browser.explain(wrong, explanation="I served the waiting queue first.")
    assert explained.status_code == 200
    assert new_variant(browser, wrong).status_code == 201


def test_only_a_numeric_question_has_new_variants(study: Study, browser: ApiBrowser) -> None:
    choice = answer_question(study, "running-first", right=True)
    refused = new_variant(browser, choice)
    assert refused.status_code == 409 and refused.json["reason"] == "no_variants"


def test_another_learners_attempt_has_no_new_variant(study: Study, new_browser: Any) -> None:
    first = answer_question(study, "budget-split", right=True)
    other = new_browser()
    assert other.post(f"/api/attempts/{first['id']}/new-variant").status_code == 404


def test_the_open_book_warning_ignores_an_open_practice_variant(
        study: Study, browser: ApiBrowser) -> None:
    first = answer_question(study, "budget-split", right=True)
    assert new_variant(browser, first).status_code == 201
    lesson = browser.get(f"/api/lessons/{LESSON_ID}")
    assert lesson.status_code == 200, "a practice variant is not a closed-book question"
