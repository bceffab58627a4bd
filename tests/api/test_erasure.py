"""A learner's data is theirs: DELETE /api/me, once confirmed, leaves nothing of theirs in any
table, leaves every other learner's rows as they were, and clears the cookies."""

from __future__ import annotations

from sqlalchemy import insert, select

from quizsvc.store import backup, erasure
from quizsvc.store.models import Base, Browser, FsrsParameters, Mastery, table
from quizsvc.study.linking import digest
from tests.support.browsers import ApiBrowser, Study
from tests.support.cohorts import answer_quiz, join, make_cohort, report
from tests.support.everything import study_everything
from tests.support.fake_bank import LESSON_ID


def learner_of(db, browser):
    token = browser.client.get_cookie("quizsvc_browser").value
    return db.scalar(select(Browser.learner_id).where(Browser.token_hash == digest(token)))


def snapshot(connection):
    return backup.dump(connection)["tables"]


def test_erasing_leaves_nothing_of_the_learner_and_everyone_else_intact(
        author_app, connection, db, bank, clock):
    author = author_app.test_client()
    cohort = make_cohort(author)
    bob = ApiBrowser(author_app)
    study_everything(bob, Study(bob, db, bank), clock)
    join(bob, cohort, "Bob")
    before_alice = snapshot(connection)

    alice = ApiBrowser(author_app)
    study_everything(alice, Study(alice, db, bank), clock)
    join(alice, cohort, "Alice", share=True)
    alice_id = learner_of(db, alice)
    connection.execute(insert(table(FsrsParameters)).values(
        learner_id=alice_id, lesson=LESSON_ID, parameters=[0.1] * 21, fitted_at=clock(),
        review_count=10, log_loss=0.3, default_log_loss=0.4))
    # An FSRS fit of her own (made by `quizsvc fsrs optimize`) and a mastery record (earned
    # over days) are added directly: a short test's study makes neither.
    connection.execute(insert(table(Mastery)).values(
        learner_id=alice_id, question_id="budget-split", lesson=LESSON_ID, mastered=True,
        mastered_at=clock(), evidence=[1, 2], policy="test", evaluated_at=clock()))
    with_alice = snapshot(connection)
    for name in [t.name for t in Base.metadata.sorted_tables
                 if t.name not in erasure.HOLDS_NO_LEARNER]:
        assert len(with_alice[name]) > len(before_alice[name]), f"Alice left no {name} row"
    assert {r["display_name"] for r in report(author, cohort).json["learners"]} == {
        "Alice", "Bob"}

    refused = alice.delete("/api/me")
    assert refused.status_code == 422
    assert "confirm" in refused.json["errors"]["query"]
    assert "/api/export" in refused.json["message"]
    assert alice.delete("/api/me?confirm=yes").status_code == 422
    assert snapshot(connection) == with_alice

    erased = alice.delete("/api/me?confirm=erase")
    assert erased.status_code == 200, erased.json
    assert erased.json["erased"]["learner"] == 1 and erased.json["erased"]["attempt"] == 6
    cleared = {cookie.split("=", 1)[0] for cookie in erased.headers.getlist("Set-Cookie")
               if "Max-Age=0" in cookie or "expires=Thu, 01 Jan 1970" in cookie}
    assert {"quizsvc_browser", "quizsvc_identity", "csrf_token"} <= cleared

    assert snapshot(connection) == before_alice  # nothing of Alice's; Bob's rows untouched
    assert [r["display_name"] for r in report(author, cohort).json["learners"]] == ["Bob"]


def test_a_browser_that_was_never_stored_erases_nothing_of_anyone_else(app, browser, db):
    stranger = ApiBrowser(app, stored=False)
    response = stranger.delete("/api/me?confirm=erase")
    assert response.status_code == 200
    assert set(response.json["erased"]) <= {"learner", "browser"}
    assert learner_of(db, browser) is not None


def test_a_browser_linked_to_an_erased_learner_starts_afresh(app, db, bank):
    alice = ApiBrowser(app)
    other = ApiBrowser(app, stored=False)
    code = alice.post("/api/link-codes").json["code"]
    assert other.post("/api/link", json={"code": code}).status_code == 200
    assert alice.delete("/api/me?confirm=erase").status_code == 200
    assert other.get("/api/memberships").json == []
    assert other.get("/api/export").json["attempts"] == []
    # Its next write finds its learner gone: 409, then it starts as a new learner.
    first = other.put("/api/self-assessments/budget", json={"rating": 2})
    assert first.status_code == 409 and first.json["reason"] == "browser_forgotten"
    assert other.put("/api/self-assessments/budget", json={"rating": 2}).status_code == 201


def test_an_erased_learners_ids_are_never_given_to_a_newcomer(app, db, bank):
    """A browser linked to an erased learner keeps its identity cookie: its browser's and its
    learner's ids, signed, read without the database. SQLite gave the next rows the largest id
    plus one, the erased ones' when they were the newest, so that cookie named a newcomer's
    browser and read its self-assessments (migration 0013)."""
    alice = ApiBrowser(app)
    other = ApiBrowser(app, stored=False)
    code = alice.post("/api/link-codes").json["code"]
    assert other.post("/api/link", json={"code": code}).status_code == 200
    erased = learner_of(db, alice)
    erased_browsers = set(db.scalars(select(Browser.id).where(Browser.learner_id == erased)))
    assert alice.delete("/api/me?confirm=erase").status_code == 200
    for _ in erased_browsers:  # as many newcomers as the erased learner had browsers
        newcomer = ApiBrowser(app)
        assert newcomer.put("/api/self-assessments/budget", json={"rating": 3, "note": "mine"}
                            ).status_code == 201
        answer_quiz(Study(newcomer, db, bank), right=True)
        assert learner_of(db, newcomer) != erased
        assert not set(db.scalars(select(Browser.id).where(
            Browser.learner_id == learner_of(db, newcomer)))) & erased_browsers
    assert other.get("/api/self-assessments").json == []  # nothing of a newcomer's
    assert other.get("/api/export").json["attempts"] == []
