"""Export and import a learner's own data: a lossless round trip, and the optimizer CSV."""

from __future__ import annotations

import csv
import io
from functools import partial

import pytest

from tests.support.fake_bank import LESSON_ID
from tests.support.history import comparable, forget_history


@pytest.fixture
def history(study, browser, clock):
    """Give the default browser a varied history: right, wrong, explained, rated, mastered."""
    browser.put("/api/self-assessments/spec", json={"rating": 2, "note": "shaky"})
    browser.put("/api/self-assessments/budget-split", json={"rating": 4})
    for day in range(3):
        session = study.start(LESSON_ID, mode="review", size=10)
        while not (item := study.next(session["id"]))["done"]:
            question = item["question"]
            vid, kind = question["variant_id"], question["kind"]
            if kind == "flashcard":
                shown = study.answer(vid, None).json
                browser.post(f"/api/attempts/{shown['id']}/rating", json={"rating": "hard"})
            elif kind == "explain":
                study.answer(vid, "because drafts were rejected")
            elif day == 1 and kind == "choice":
                wrong = study.answer(vid, study.wrong_answer(vid)).json
                browser.explain(wrong, explanation="fifo is wrong")
            else:
                right = study.answer(vid, study.right_answer(vid)).json
                browser.post(f"/api/attempts/{right['id']}/rating", json={"rating": "easy"})
            clock.advance(minutes=3)
        clock.advance(days=4)
    return browser


def test_export_import_export_is_lossless_for_the_learner_it_came_from(history, db):
    document = history.get("/api/export").json
    assert document["attempts"] and document["review_log"] and document["mastery"]
    assert any(m["mastered"] for m in document["mastery"])
    forget_history(db, history)  # the learner's data were lost: the export brings them back
    imported = history.post("/api/import", json=document)
    assert imported.status_code == 201, imported.json
    assert imported.json["attempts"] == len(document["attempts"])
    assert imported.json["vouched"] is True
    assert comparable(history.get("/api/export").json) == comparable(document)


def test_imported_history_keeps_scheduling(history, new_browser):
    """Even as history only, a learner's cards keep their schedule (it is theirs alone)."""
    mine = history.get("/api/reviews/due").json
    fresh = new_browser()
    fresh.post("/api/import", json=history.get("/api/export").json)
    assert fresh.get("/api/reviews/due").json == mine


def test_import_refuses_to_merge_into_a_learner_with_data(history):
    response = history.post("/api/import", json=history.get("/api/export").json)
    assert response.status_code == 409


def test_import_does_not_trust_forged_mastery(history, new_browser):
    document = history.get("/api/export").json
    for record in document["mastery"]:
        record["mastered"] = True
    forged = {"question_id": "running-first", "lesson": LESSON_ID, "mastered": True,
              "mastered_at": document["exported_at"], "evidence": [], "policy":
              "spaced-closed-book/1", "evaluated_at": document["exported_at"]}
    document["mastery"] = [m for m in document["mastery"]
                           if m["question_id"] != "running-first"] + [forged]
    fresh = new_browser()
    assert fresh.post("/api/import", json=document).status_code == 201
    assert fresh.get("/api/mastery").json == []


@pytest.mark.parametrize(("change", "field"), [
    (lambda d: d.update(format="other/1"), "format"),
    (lambda d: d.pop("attempts"), "attempts"),
    (lambda d: d.update(extra=1), "extra"),
    (lambda d: d["attempts"][0].update(n=7), "attempts"),
    (lambda d: d["attempts"][0].update(submitted_at="yesterday"), "attempts"),
    (lambda d: d["attempts"][0].update(submitted_at="2026-11-02T09:00:00"), "attempts"),
    (lambda d: d["review_log"][0].update(attempt=999), "review_log[0].attempt"),
    (lambda d: d["review_log"][0].update(question_id="nope"), "review_log[0].question_id"),
    (lambda d: d["cards"][0].update(state=9), "cards"),
    (lambda d: d["cards"].append(dict(d["cards"][0])), "cards"),
])
def test_a_malformed_import_is_422_naming_the_field(history, new_browser, change, field):
    document = history.get("/api/export").json
    change(document)
    response = new_browser().post("/api/import", json=document)
    assert response.status_code == 422, response.json
    assert field in response.json["errors"]["json"]


def test_review_log_exports_as_fsrs_optimizer_csv(history):
    response = history.get("/api/export?format=fsrs-csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.data.decode())))
    document = history.get("/api/export").json
    assert list(rows[0]) == ["card_id", "review_time", "review_rating", "review_state",
                             "review_duration"]
    assert len(rows) == len(document["review_log"])
    assert {row["review_rating"] for row in rows} <= {"1", "2", "3", "4"}
    firsts = {}
    for row in rows:
        firsts.setdefault(row["card_id"], row)
        assert int(row["review_time"]) > 1_700_000_000_000
    assert all(row["review_state"] == "0" for row in firsts.values())
    assert {row["review_state"] for row in rows} - {"0"} <= {"1", "2", "3"}


def test_export_format_is_checked(browser):
    assert browser.get("/api/export?format=xml").status_code == 422


def test_an_import_sends_as_many_statements_for_200_attempts_as_for_20(history, new_browser,
                                                                       connection):
    """Each table of an import is one executemany, whatever its size (issue 21): the learner's
    lock, on SQLite the database's one writer, is held for the rows, not a statement per row."""
    from tests.support.statements import sent

    document = history.get("/api/export").json
    counts = []
    for size in (20, 200):
        attempts = [{**document["attempts"][n % len(document["attempts"])], "n": n + 1,
                     "idempotency_key": f"copy-{n}"} for n in range(size)]
        copy = {**document, "attempts": attempts, "signature": None, "mastery": [],
                "review_log": [{**entry, "attempt": None} for entry in document["review_log"]]}
        fresh = new_browser()
        fresh.get("/api/me")
        response, statements = sent(connection, partial(fresh.post, "/api/import", json=copy))
        assert response.status_code == 201, response.json
        assert response.json["attempts"] == size
        counts.append(len(statements))
    assert counts[0] == counts[1], counts
