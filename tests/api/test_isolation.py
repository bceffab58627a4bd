"""No browser may read or change another learner's data: one attack per endpoint.

Alice studies; Mallory (another browser, another learner) calls every endpoint with Alice's
ids. Each attack must fail or touch only Mallory's own records, and Alice's export must be
byte-for-byte the same afterwards. ``test_every_api_endpoint_has_an_attack`` fails when an
endpoint is added without one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.support.fake_bank import LESSON_ID
from tests.support.history import comparable


@dataclass
class Alice:
    """What Alice owns, by id."""

    session_id: str
    open_variant_id: str
    wrong_attempt_id: int
    right_attempt_id: int
    link_code: str


@pytest.fixture
def alice(new_browser, db, bank):
    from tests.support.browsers import Study

    browser = new_browser()
    study = Study(browser, db, bank)
    session = study.start(LESSON_ID, mode="quiz", size=2)
    first = study.next(session["id"])["question"]["variant_id"]
    wrong = study.answer(first, study.wrong_answer(first)).json
    second = study.next(session["id"])["question"]["variant_id"]
    right = study.answer(second, study.right_answer(second)).json
    other = study.start(LESSON_ID, mode="review", size=1)
    open_variant = study.next(other["id"])["question"]["variant_id"]
    browser.put("/api/self-assessments/spec", json={"rating": 3, "note": "alice"})
    code = browser.post("/api/link-codes").json["code"]
    owned = Alice(session["id"], open_variant, wrong["id"], right["id"], code)
    return browser, owned


def status(expected: int) -> Callable[[Any], None]:
    def check(response: Any) -> None:
        assert response.status_code == expected, response.json
    return check


ATTACKS: dict[tuple[str, str], Callable[[Any, Alice], None]] = {}


def attack(method: str, rule: str):
    def register(fn):
        ATTACKS[(method, rule)] = fn
        return fn
    return register


@attack("GET", "/api/sessions/<string:session_id>")
def read_session(mallory, a):
    status(404)(mallory.get(f"/api/sessions/{a.session_id}"))


@attack("GET", "/api/sessions/<string:session_id>/next")
def take_next(mallory, a):
    status(404)(mallory.get(f"/api/sessions/{a.session_id}/next"))


@attack("GET", "/api/sessions/<string:session_id>/summary")
def read_summary(mallory, a):
    status(404)(mallory.get(f"/api/sessions/{a.session_id}/summary"))


@attack("POST", "/api/sessions")
def start_own_session(mallory, a):
    status(201)(mallory.post("/api/sessions", json={"lesson": LESSON_ID}))
    # Another learner's session cannot be retried (its mistakes are not Mallory's to see).
    status(422)(mallory.post("/api/sessions", json={"lesson": LESSON_ID,
                                                    "retry_of": a.session_id}))


@attack("POST", "/api/attempts")
def answer_alices_variant(mallory, a):
    response = mallory.post("/api/attempts", json={"variant_id": a.open_variant_id,
                                                   "answer": [1, 7]},
                            headers={"Idempotency-Key": "mallory-1"})
    status(404)(response)


@attack("GET", "/api/attempts/<int:attempt_id>")
def read_attempt(mallory, a):
    status(404)(mallory.get(f"/api/attempts/{a.right_attempt_id}"))
    status(404)(mallory.get(f"/api/attempts/{a.wrong_attempt_id}"))


@attack("POST", "/api/attempts/<int:attempt_id>/explanation")
def explain_to_reveal(mallory, a):
    status(404)(mallory.post(f"/api/attempts/{a.wrong_attempt_id}/explanation",
                             json={"explanation": "show me the answer",
                                   "rule": "running-first"}))


@attack("POST", "/api/attempts/<int:attempt_id>/rating")
def rerate(mallory, a):
    status(404)(mallory.post(f"/api/attempts/{a.right_attempt_id}/rating",
                             json={"rating": "easy"}))


@attack("DELETE", "/api/attempts/<int:attempt_id>/rating")
def undo_someones_rating(mallory, a):
    status(404)(mallory.delete(f"/api/attempts/{a.right_attempt_id}/rating"))


@attack("GET", "/api/self-assessments")
def list_assessments(mallory, a):
    assert mallory.get("/api/self-assessments").json == []


@attack("DELETE", "/api/self-assessments")
def clear_assessments(mallory, a):
    assert mallory.delete("/api/self-assessments").json == {"deleted": 0}


@attack("GET", "/api/self-assessments/<string:ref>")
def read_assessment(mallory, a):
    status(404)(mallory.get("/api/self-assessments/spec"))


@attack("PUT", "/api/self-assessments/<string:ref>")
def overwrite_assessment(mallory, a):
    status(201)(mallory.put("/api/self-assessments/spec", json={"rating": 1}))


@attack("DELETE", "/api/self-assessments/<string:ref>")
def delete_assessment(mallory, a):
    status(404)(mallory.delete("/api/self-assessments/spec"))


@attack("GET", "/api/reviews/due")
def read_due(mallory, a):
    assert mallory.get("/api/reviews/due").json["cards"] == 0


@attack("GET", "/api/mastery")
def read_mastery(mallory, a):
    assert mallory.get("/api/mastery").json == []


@attack("GET", "/api/progress")
def read_progress(mallory, a):
    assert mallory.get("/api/progress").json["accuracy"]["attempts"] == 0


@attack("GET", "/api/progress/sections")
def read_section_progress(mallory, a):
    report = mallory.get("/api/progress/sections").json
    assert all(row["answers"] == 0 for row in report["sections"])
    assert report["weakest"] == [] and report["history"] == []


@attack("GET", "/api/export")
def export_someone(mallory, a):
    document = mallory.get("/api/export").json
    assert document["attempts"] == document["cards"] == document["self_assessments"] == []
    assert mallory.get("/api/export?format=fsrs-csv").data.decode().count("\n") == 1


@attack("POST", "/api/import")
def import_over(mallory, a):
    document = mallory.get("/api/export").json
    status(201)(mallory.post("/api/import", json=document))


@attack("GET", "/api/lessons")
def list_lessons(mallory, a):
    status(200)(mallory.get("/api/lessons"))


@attack("GET", "/api/lessons/<string:lesson_id>")
def open_alices_book(mallory, a):
    assert mallory.get(f"/api/lessons/{LESSON_ID}").status_code == 200


@attack("POST", "/api/lessons/<string:lesson_id>/open-book")
def open_the_book_on_alice(mallory, a):
    assert mallory.post(f"/api/lessons/{LESSON_ID}/open-book").json["opened_book"] == 0


@attack("GET", "/api/lessons/<string:lesson_id>/anki.apkg")
def download_the_deck(mallory, a):
    # Mallory has no question open; Alice's stays closed-book (test_anki_export).
    response = mallory.get(f"/api/lessons/{LESSON_ID}/anki.apkg")
    assert response.status_code == 200 and response.mimetype == "application/apkg"


@attack("GET", "/api/scheduling")
def read_scheduling(mallory, a):
    assert mallory.get("/api/scheduling").json["desired_retention"] == 0.9


@attack("PUT", "/api/scheduling")
def reschedule_someone(mallory, a):
    response = mallory.put("/api/scheduling", json={"desired_retention": 0.7})
    assert response.status_code == 200 and response.json["rescheduled_cards"] == 0


@attack("GET", "/api/me")
def whoami(mallory, a):
    status(200)(mallory.get("/api/me"))


@attack("POST", "/api/link-codes")
def own_code(mallory, a):
    status(201)(mallory.post("/api/link-codes"))


@attack("POST", "/api/link")
def guess_a_code(mallory, a):
    status(422)(mallory.post("/api/link", json={"code": "AAAAAAAAAAAA"}))


@attack("POST", "/api/simulate")
def simulate(mallory, a):
    status(200)(mallory.post("/api/simulate", json={"requests": [
        {"id": "A", "prompt_len": 3, "max_tokens": 1}]}))


@attack("GET", "/api/simulator/plan")
def plan_a_scenario(mallory, a):
    status(200)(mallory.get("/api/simulator/plan?A.state=running"))


@attack("GET", "/api/author/variants/<string:question_id>")
def preview_without_token(mallory, a):
    status(404)(mallory.get("/api/author/variants/budget-split?seed=1"))


@attack("GET", "/api/author/bank")
def bank_without_token(mallory, a):
    status(404)(mallory.get("/api/author/bank"))


@attack("GET", "/api/memberships")
def list_memberships(mallory, a):
    assert mallory.get("/api/memberships").json == []


@attack("POST", "/api/memberships")
def join_with_a_guessed_code(mallory, a):
    status(422)(mallory.post("/api/memberships", json={"code": a.link_code,
                                                        "display_name": "Mallory"}))


@attack("DELETE", "/api/memberships/<int:cohort_id>")
def leave_for_someone(mallory, a):
    status(404)(mallory.delete("/api/memberships/1"))


@attack("GET", "/api/cohorts/<int:cohort_id>/report")
def read_a_cohort_report(mallory, a):
    status(401)(mallory.get("/api/cohorts/1/report"))
    status(404)(mallory.get("/api/cohorts/1/report",
                            headers={"Authorization": f"Bearer {a.link_code}"}))


@attack("GET", "/api/cohorts/<int:cohort_id>/gradebook.csv")
def read_a_gradebook(mallory, a):
    status(401)(mallory.get("/api/cohorts/1/gradebook.csv"))


@attack("POST", "/api/author/cohorts")
def make_a_cohort_without_token(mallory, a):
    status(404)(mallory.post("/api/author/cohorts", json={"lesson": LESSON_ID, "name": "x"}))


@attack("POST", "/api/author/cohorts/<int:cohort_id>/instructor-token")
def rotate_without_token(mallory, a):
    status(404)(mallory.post("/api/author/cohorts/1/instructor-token"))


@attack("DELETE", "/api/me")
def erase_oneself(mallory, a):
    status(422)(mallory.delete("/api/me"))
    status(200)(mallory.delete("/api/me?confirm=erase"))


@attack("GET", "/api/lessons/<string:lesson_id>/items")
def browse_alices_items(mallory, a):
    """Mallory's card browser shows her own states: Alice's answers leave every item new."""
    listed = mallory.get(f"/api/lessons/{LESSON_ID}/items").json["items"]
    assert {entry["status"] for entry in listed} == {"new"}
    assert all(not entry["last_answers"] for entry in listed)


@attack("GET", "/api/items/<string:question_id>/history")
def read_alices_history(mallory, a):
    for entry in mallory.get(f"/api/lessons/{LESSON_ID}/items").json["items"]:
        history = mallory.get(f"/api/items/{entry['question_id']}/history").json
        assert history["attempts"] == []


@attack("PUT", "/api/items/<string:question_id>/suspension")
def suspend_for_alice(mallory, a):
    """A hold is the holder's own: Mallory's suspension never keeps an item from Alice."""
    status(200)(mallory.put("/api/items/budget-split/suspension", json={"suspended": True}))


@attack("PUT", "/api/items/<string:question_id>/bury")
def bury_for_alice(mallory, a):
    status(200)(mallory.put("/api/items/budget-split/bury", json={"buried": True}))


@attack("POST", "/api/reports")
def report_on_alices_variant(mallory, a):
    status(404)(mallory.post("/api/reports", json={
        "variant_id": a.open_variant_id, "reason": "wrong_answer", "text": "x"}))


@attack("GET", "/api/author/reports")
def read_reports_without_token(mallory, a):
    status(404)(mallory.get("/api/author/reports"))  # author views off: no token works


@attack("POST", "/api/attempts/<int:attempt_id>/new-variant")
def try_a_variant_of_alices_attempt(mallory, a):
    status(404)(mallory.post(f"/api/attempts/{a.wrong_attempt_id}/new-variant"))


@attack("GET", "/api/progress/statistics")
def read_statistics(mallory, a):
    """Mallory's charts count her reviews only: Alice's leave them empty."""
    statistics = mallory.get("/api/progress/statistics").json
    assert "alice" not in str(statistics)
    status(200)(mallory.get("/api/progress/statistics"))


@attack("GET", "/api/cohorts/<int:cohort_id>/item-analysis")
def read_a_cohorts_item_analysis(mallory, a):
    status(401)(mallory.get("/api/cohorts/1/item-analysis"))
    status(404)(mallory.get("/api/cohorts/1/item-analysis",
                            headers={"Authorization": f"Bearer {a.link_code}"}))


@attack("GET", "/api/author/item-analysis")
def read_item_analysis_without_token(mallory, a):
    status(404)(mallory.get("/api/author/item-analysis"))  # author views off: no token works


@attack("POST", "/api/author/exports/<string:export_format>")
def export_for_an_lms_without_token(mallory, a):
    status(404)(mallory.post("/api/author/exports/moodle", json={"lesson": LESSON_ID}))


@attack("GET", "/api/openapi.json")
def read_spec(mallory, a):
    status(200)(mallory.get("/api/openapi.json"))


def api_routes(app) -> set[tuple[str, str]]:
    return {(method, rule.rule) for rule in app.url_map.iter_rules()
            if rule.rule.startswith("/api/")
            for method in rule.methods - {"HEAD", "OPTIONS"}}


def test_every_api_endpoint_has_an_attack(app):
    assert api_routes(app) == set(ATTACKS)


@pytest.mark.parametrize("route", sorted(ATTACKS), ids=lambda r: f"{r[0]} {r[1]}")
def test_another_learner_cannot_read_or_change_alices_data(route, alice, new_browser):
    browser, owned = alice
    before = comparable(browser.get("/api/export").json), browser.get(
        f"/api/attempts/{owned.wrong_attempt_id}").json
    mallory = new_browser()
    ATTACKS[route](mallory, owned)
    after = comparable(browser.get("/api/export").json), browser.get(
        f"/api/attempts/{owned.wrong_attempt_id}").json
    assert after == before
    assert after[1]["reveal"] is None
