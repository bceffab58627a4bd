"""Cohorts: an author makes one, learners join and leave under display names, and its
instructor reads only that cohort, only graded records, self-assessments only pooled."""

from __future__ import annotations

import csv
import hashlib
import io

import pytest
from sqlalchemy import select

from quizsvc.store.models import Cohort, CohortMember
from quizsvc.study.cohorts import MIN_AGGREGATE, member_learner_ids
from tests.support.browsers import ApiBrowser, Study
from tests.support.cohorts import (
    AUTHOR_TOKEN,
    answer_quiz,
    bearer,
    join,
    make_cohort,
    report,
)
from tests.support.fake_bank import LESSON_ID


@pytest.fixture
def author(author_app):
    return author_app.test_client()


@pytest.fixture
def learner(author_app, db, bank):
    """Return a factory of (browser, study) pairs on the author's app."""
    def make():
        browser = ApiBrowser(author_app)
        return browser, Study(browser, db, bank)
    return make


def learner_id(db, browser):
    from quizsvc.store.models import Browser
    from quizsvc.study.linking import digest

    token = browser.client.get_cookie("quizsvc_browser").value
    return db.scalar(select(Browser.learner_id).where(Browser.token_hash == digest(token)))


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def test_an_author_makes_a_cohort_whose_secrets_are_stored_only_hashed(author, db):
    cohort = make_cohort(author, "Systems 101")
    assert cohort["lesson"] == LESSON_ID and cohort["name"] == "Systems 101"
    assert cohort["join_url"].endswith(f"/join/{cohort['join_code']}")
    assert cohort["instructor_url"].endswith(
        f"/cohorts/{cohort['id']}/{cohort['instructor_token']}")
    assert len(cohort["join_code"]) >= 22 and len(cohort["instructor_token"]) >= 43
    row = db.get(Cohort, cohort["id"])
    assert row.join_code_hash == sha(cohort["join_code"])
    assert row.instructor_token_hash == sha(cohort["instructor_token"])
    stored = " ".join(str(value) for value in row.__dict__.values())
    assert cohort["join_code"] not in stored and cohort["instructor_token"] not in stored


@pytest.mark.parametrize(("headers", "body", "status"), [
    ({}, {"lesson": LESSON_ID, "name": "x"}, 401),
    (bearer("wrong"), {"lesson": LESSON_ID, "name": "x"}, 401),
    (bearer(AUTHOR_TOKEN), {"lesson": "no-such-lesson", "name": "x"}, 422),
    (bearer(AUTHOR_TOKEN), {"lesson": LESSON_ID, "name": "   "}, 422),
    (bearer(AUTHOR_TOKEN), {"lesson": LESSON_ID}, 422),
])
def test_making_a_cohort_needs_the_author_token_and_a_known_lesson(author, headers, body,
                                                                    status):
    assert author.post("/api/author/cohorts", json=body, headers=headers).status_code == status


def test_without_an_author_token_configured_no_cohort_can_be_made(client):
    response = client.post("/api/author/cohorts", json={"lesson": LESSON_ID, "name": "x"},
                           headers=bearer("anything"))
    assert response.status_code == 404


def test_a_learner_joins_lists_and_leaves_and_joining_changes_none_of_their_records(
        author, learner):
    cohort = make_cohort(author)
    browser, study = learner()
    answer_quiz(study, right=True)
    before = browser.get("/api/export").json
    joined = join(browser, cohort, "Ming")
    assert joined.status_code == 201, joined.json
    assert joined.json["cohort_name"] == "Class A" and joined.json["display_name"] == "Ming"
    assert joined.json["share_explanations"] is False
    after = browser.get("/api/export").json
    assert {k: v for k, v in after.items() if k != "exported_at"} == {
        k: v for k, v in before.items() if k != "exported_at"}
    assert [m["cohort_id"] for m in browser.get("/api/memberships").json] == [cohort["id"]]
    assert [row["display_name"] for row in report(author, cohort).json["learners"]] == ["Ming"]
    assert browser.delete(f"/api/memberships/{cohort['id']}").status_code == 204
    assert browser.get("/api/memberships").json == []
    assert report(author, cohort).json["learners"] == []
    assert browser.delete(f"/api/memberships/{cohort['id']}").status_code == 404


def test_one_learner_may_be_in_several_cohorts_and_joining_twice_keeps_one_place(
        author, learner):
    first, second = make_cohort(author, "A"), make_cohort(author, "B")
    browser, _ = learner()
    assert join(browser, first, "Ming").status_code == 201
    assert join(browser, second, "M.").status_code == 201
    again = join(browser, first, "Other name")
    assert again.status_code == 201 and again.json["display_name"] == "Ming"
    assert [m["cohort_name"] for m in browser.get("/api/memberships").json] == ["A", "B"]


@pytest.mark.parametrize(("body", "field"), [
    ({"code": "nope", "display_name": "Ming"}, "code"),
    ({"code": "x" * 65, "display_name": "Ming"}, "code"),
    ({"display_name": "Ming"}, "code"),
    ({"code": "{code}", "display_name": ""}, "display_name"),
    ({"code": "{code}", "display_name": "   "}, "display_name"),
    ({"code": "{code}", "display_name": "ming@example.com"}, "display_name"),
    ({"code": "{code}", "display_name": "x" * 61}, "display_name"),
    ({"code": "{code}", "display_name": "a\u0000b"}, "display_name"),
])
def test_a_bad_join_is_422_naming_the_field(author, learner, body, field):
    cohort = make_cohort(author)
    browser, _ = learner()
    body = {key: value.format(code=cohort["join_code"]) if isinstance(value, str) else value
            for key, value in body.items()}
    response = browser.post("/api/memberships", json=body)
    assert response.status_code == 422, response.json
    assert field in response.json["errors"]["json"]


def test_the_report_shows_mastery_and_accuracy_per_section_due_load_and_last_activity(
        author, learner, clock):
    cohort = make_cohort(author)
    good, good_study = learner()
    weak, weak_study = learner()
    answer_quiz(good_study, right=True)
    answer_quiz(weak_study, right=False, explanation="I split it evenly.")
    join(good, cohort, "Ada")
    join(weak, cohort, "Bo")
    body = report(author, cohort).json
    assert [s["section"] for s in body["sections"]] == ["budget", "spec"]
    rows = {row["display_name"]: row for row in body["learners"]}
    assert set(rows) == {"Ada", "Bo"}
    ada, bo = rows["Ada"], rows["Bo"]
    budget = {s["section"]: s for s in ada["sections"]}["budget"]
    assert (budget["answers"], budget["correct"], budget["accuracy"]) == (2, 2, 1.0)
    assert (bo["answers"], bo["correct"], bo["accuracy"]) == (2, 0, 0.0)
    assert ada["last_activity"] is not None and bo["last_activity"] is not None
    assert bo["due_now"] + bo["due_soon"] >= 1  # a wrong answer's card comes back soon
    for row in (ada, bo):
        assert set(row) == {"display_name", "questions", "mastered", "answers", "correct",
                            "accuracy", "due_now", "due_soon", "last_activity", "sections",
                            "explanations"}


def test_explanations_are_shown_verbatim_only_for_learners_who_allowed_it(author, learner):
    cohort = make_cohort(author)
    sharer, sharer_study = learner()
    private, private_study = learner()
    answer_quiz(sharer_study, right=False, explanation="Shared: I forgot running goes first.")
    answer_quiz(private_study, right=False, explanation="Private: secret reasoning here.")
    join(sharer, cohort, "Sharer", share=True)
    join(private, cohort, "Private")
    response = report(author, cohort)
    rows = {row["display_name"]: row for row in response.json["learners"]}
    assert [e["text"] for e in rows["Sharer"]["explanations"]] == [
        "Shared: I forgot running goes first."] * 2
    assert rows["Private"]["explanations"] is None
    assert b"secret reasoning" not in response.data
    gradebook = author.get(f"/api/cohorts/{cohort['id']}/gradebook.csv",
                           headers=bearer(cohort["instructor_token"]))
    assert b"secret reasoning" not in gradebook.data and b"Shared:" not in gradebook.data


def test_self_assessments_reach_the_instructor_only_pooled_over_enough_learners(
        author, learner):
    cohort = make_cohort(author)
    members = [learner() for _ in range(MIN_AGGREGATE)]
    for number, (browser, study) in enumerate(members):
        answer_quiz(study, right=number % 2 == 0)
        assert browser.put("/api/self-assessments/budget", json={
            "rating": 4, "note": f"private note {number}"}).status_code in (200, 201)
        join(browser, cohort, f"L{number}")
        body = report(author, cohort).json
        pooled = body["self_reported"]
        assert pooled["self_reported"] is True
        budget = {s["section"]: s for s in pooled["sections"]}["budget"]
        assert budget["learners"] == number + 1
        if number + 1 < MIN_AGGREGATE:
            assert budget["counts"] is None and pooled["calibration"] is None
        else:
            assert budget["counts"] == [0, 0, 0, MIN_AGGREGATE]
            assert pooled["calibration"]["pairs"] == 2 * MIN_AGGREGATE
    response = report(author, cohort)
    assert b"private note" not in response.data
    for row in response.json["learners"]:
        assert "rating" not in str(row) and "calibration" not in row


def test_an_instructor_reads_only_their_cohort_and_no_learner_outside_it(author, learner):
    first, second = make_cohort(author, "A"), make_cohort(author, "B")
    in_a, study_a = learner()
    in_b, study_b = learner()
    _outsider, outsider_study = learner()
    for study in (study_a, study_b, outsider_study):
        answer_quiz(study, right=True)
    join(in_a, first, "OnlyA")
    join(in_b, second, "OnlyB")
    assert [r["display_name"] for r in report(author, first).json["learners"]] == ["OnlyA"]
    assert [r["display_name"] for r in report(author, second).json["learners"]] == ["OnlyB"]
    # A's token opens neither B's report nor its gradebook: the same 404 as no cohort at all.
    crossed = report(author, second, token=first["instructor_token"])
    assert crossed.status_code == 404 and crossed.json["reason"] == "unknown_cohort"
    assert author.get(f"/api/cohorts/{second['id']}/gradebook.csv",
                      headers=bearer(first["instructor_token"])).status_code == 404
    assert report(author, {"id": 999999}, token=first["instructor_token"]).status_code == 404
    # The author token is not an instructor token either.
    assert report(author, first, token=AUTHOR_TOKEN).status_code == 404


def test_a_learner_cannot_read_the_cohort_views(author, learner):
    cohort = make_cohort(author)
    browser, study = learner()
    answer_quiz(study, right=True)
    join(browser, cohort, "Ming")
    url = f"/api/cohorts/{cohort['id']}/report"
    missing = browser.get(url)
    assert missing.status_code == 401 and missing.json["reason"] == "instructor_token"
    assert browser.get(url, headers=bearer(cohort["join_code"])).status_code == 404
    assert browser.get(f"/api/cohorts/{cohort['id']}/gradebook.csv").status_code == 401
    assert browser.get(f"/cohorts/{cohort['id']}/{cohort['join_code']}").status_code == 404


def test_rotating_the_instructor_token_retires_the_old_one(author, db):
    cohort = make_cohort(author)
    rotated = author.post(f"/api/author/cohorts/{cohort['id']}/instructor-token",
                          headers=bearer(AUTHOR_TOKEN))
    assert rotated.status_code == 200
    new = rotated.json["instructor_token"]
    assert new != cohort["instructor_token"]
    assert rotated.json["instructor_url"].endswith(f"/cohorts/{cohort['id']}/{new}")
    assert report(author, cohort).status_code == 404
    assert report(author, cohort, token=new).status_code == 200
    assert db.get(Cohort, cohort["id"]).instructor_token_hash == sha(new)
    assert author.post("/api/author/cohorts/999999/instructor-token",
                       headers=bearer(AUTHOR_TOKEN)).status_code == 404
    assert author.post(f"/api/author/cohorts/{cohort['id']}/instructor-token",
                       headers=bearer("wrong")).status_code == 401


def test_the_gradebook_has_one_row_per_learner_and_one_column_per_section(author, learner):
    cohort = make_cohort(author)
    for name, right in (("Ada", True), ("=HYPERLINK(1)", False)):
        browser, study = learner()
        answer_quiz(study, right=right)
        join(browser, cohort, name)
    response = author.get(f"/api/cohorts/{cohort['id']}/gradebook.csv",
                          headers=bearer(cohort["instructor_token"]))
    assert response.status_code == 200 and response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.data.decode())))
    assert [row["display_name"] for row in rows] == ["'=HYPERLINK(1)", "Ada"]
    ada = rows[1]
    assert ada["budget:mastered"].endswith("/2") and ada["budget:accuracy"] == "1.000"
    assert ada["spec:accuracy"] == ""
    assert rows[0]["budget:accuracy"] == "0.000"


def test_member_learner_ids_names_the_members_now(author, learner, db, uow):
    cohort = make_cohort(author)
    (one, _), (two, _), (other, _) = learner(), learner(), learner()
    join(one, cohort, "One")
    join(two, cohort, "Two")
    ids = member_learner_ids(uow, cohort["id"])
    assert ids == frozenset({learner_id(db, one), learner_id(db, two)})
    two.delete(f"/api/memberships/{cohort['id']}")
    assert member_learner_ids(uow, cohort["id"]) == frozenset({learner_id(db, one)})
    assert member_learner_ids(uow, 999999) == frozenset()
    assert db.scalar(select(CohortMember.id).where(
        CohortMember.learner_id == learner_id(db, other))) is None


def test_a_learner_who_only_joined_a_cohort_is_not_pruned_as_empty(author, learner, uow,
                                                                   clock):
    from datetime import timedelta

    cohort = make_cohort(author)
    browser, _ = learner()
    join(browser, cohort, "Quiet")
    learner()  # an idle learner: stored, holds nothing
    with uow.write():
        pruned = uow.learners.delete_empty_learners(clock() + timedelta(days=1))
    assert pruned == 1  # the idle one
    assert [r["display_name"] for r in report(author, cohort).json["learners"]] == ["Quiet"]


def test_the_instructor_counts_only_closed_book_answers(author, learner):
    cohort = make_cohort(author)
    browser, study = learner()
    session = study.start(LESSON_ID, mode="quiz", size=1)
    variant_id = study.next(session["id"])["question"]["variant_id"]
    assert browser.post(f"/api/lessons/{LESSON_ID}/open-book").json["opened_book"] == 1
    assert study.answer(variant_id, study.right_answer(variant_id)).status_code == 201
    join(browser, cohort, "Open")
    row = report(author, cohort).json["learners"][0]
    assert (row["answers"], row["correct"], row["mastered"]) == (0, 0, 0)
    assert row["last_activity"] is not None  # studied, but not closed-book


def test_a_cohort_id_beyond_any_row_is_404_not_500(client, browser):
    """Schemathesis found a 500: a path id too large for the database's integer."""
    huge = 184120500695443963904
    for path in (f"/api/cohorts/{huge}/report", f"/api/cohorts/{huge}/item-analysis",
                 f"/api/cohorts/{huge}/gradebook.csv"):
        response = client.get(path, headers={"Authorization": "Bearer some-token"})
        assert response.status_code == 404, (path, response.json)
    assert browser.delete(f"/api/memberships/{huge}").status_code == 404
