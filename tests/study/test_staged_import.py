"""A large import is written in short steps and handed over at once (issue 21).

On SQLite every other learner's write waits while one transaction writes, so an import is
written ``UnitOfWork.step_rows`` rows to a transaction into a learner no browser reaches, and one
small last step hands that learner to the importing browser. What must hold: no step writes
more than its share; nobody sees a half-written import, and one that fails leaves nothing;
whatever the browser's learner held before (an open session) comes along; exports go on naming
the learner the browser had; a learner shared with another browser is refused; an import the
process never finished is pruned.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from quizsvc.errors import N_, Busy
from quizsvc.store.models import Attempt, Browser, Learner, ServedVariant
from quizsvc.store.unit_of_work import UnitOfWork
from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID
from tests.support.repos import repos
from tests.support.statements import sent


def count(db: Any, model: Any, *where: Any) -> int:
    return db.scalar(select(func.count()).select_from(model).where(*where)) or 0


def large_copy(browser: ApiBrowser, study: Study, size: int) -> dict[str, Any]:
    """Return the browser's export with its attempts repeated to ``size`` (unsigned: history)."""
    session = study.start(LESSON_ID, mode="quiz", size=2)
    for _ in range(2):
        vid = study.next(session["id"])["question"]["variant_id"]
        study.answer(vid, study.right_answer(vid))
    document = browser.get("/api/export").json
    attempts = [{**document["attempts"][n % len(document["attempts"])], "n": n + 1,
                 "idempotency_key": f"copy-{n}"} for n in range(size)]
    return {**document, "attempts": attempts, "signature": None, "mastery": [],
            "review_log": [{**entry, "attempt": None} for entry in document["review_log"]]}


def test_no_step_of_a_large_import_writes_more_than_its_share(
        browser: ApiBrowser, study: Study, new_browser: Any, connection: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(UnitOfWork, "step_rows", 40)
    document = large_copy(browser, study, 100)
    fresh = new_browser()
    fresh.get("/api/me")
    response, statements = sent(connection, lambda: fresh.post("/api/import", json=document),
                                savepoints=True)
    assert response.status_code == 201, response.json
    assert response.json["attempts"] == 100
    steps = [s for s in statements if s.startswith("INSERT INTO attempt ")]
    assert len(steps) == 3  # 40 + 40 + 20 attempts, each in a transaction of its own
    # each step is its own transaction (a savepoint of the test's outer one): released before
    # the next begins
    opened = [i for i, s in enumerate(statements) if s.startswith("SAVEPOINT")]
    for i, s in enumerate(statements):
        if s.startswith("INSERT INTO attempt "):
            begun = max(o for o in opened if o < i)
            assert not any(t.startswith("INSERT INTO attempt ")
                           for t in statements[begun + 1:i]), statements[begun:i + 1]


def test_an_import_that_fails_half_way_leaves_nothing_and_can_be_sent_again(
        browser: ApiBrowser, study: Study, new_browser: Any, db: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(UnitOfWork, "step_rows", 10)
    document = large_copy(browser, study, 60)
    fresh = new_browser()
    learner_before = fresh.get("/api/me").json["learner"]
    attempts_before, learners_before = count(db, Attempt), count(db, Learner)
    real_check, steps = UnitOfWork.check_deadline, []

    def deadline_passes_at_the_fourth_step(uow: UnitOfWork) -> None:
        steps.append(1)
        if len(steps) == 4:
            raise Busy(N_("too slow"), reason="too_slow", params={"retry_after": 5})
        real_check(uow)

    with monkeypatch.context() as patch:
        patch.setattr(UnitOfWork, "check_deadline", deadline_passes_at_the_fourth_step)
        refused = fresh.post("/api/import", json=document)
    assert refused.status_code == 503, refused.json
    # nothing of it is anywhere: not in the browser's learner, not in a staged one
    assert fresh.get("/api/me").json["learner"] == learner_before
    assert count(db, Attempt) == attempts_before
    assert count(db, Learner) == learners_before
    assert count(db, Learner, Learner.import_staged_at.is_not(None)) == 0
    again = fresh.post("/api/import", json=document)
    assert again.status_code == 201 and again.json["attempts"] == 60


def test_the_browser_keeps_what_its_learner_held_and_its_exports_name(
        browser: ApiBrowser, study: Study, new_browser: Any, db: Any, bank: Any) -> None:
    document = large_copy(browser, study, 30)
    fresh = new_browser()
    fresh.get("/api/me")
    fresh_study = Study(fresh, db, bank)
    session = fresh_study.start(LESSON_ID, mode="quiz", size=3)  # open before the import
    before = fresh.get("/api/export").json["learner"]
    assert fresh.post("/api/import", json=document).status_code == 201
    # the open session came along: its next question is served to the imported learner
    item = fresh_study.next(session["id"])
    assert item["question"] is not None
    served = db.get(ServedVariant, item["question"]["variant_id"])
    token_learners = {b.learner_id for b in db.scalars(select(Browser))}
    assert served.learner_id in token_learners
    assert fresh.get("/api/export").json["learner"] == before
    assert len(fresh.get("/api/export").json["attempts"]) == 30


def test_an_import_into_a_learner_shared_with_another_browser_is_refused(
        browser: ApiBrowser, study: Study, new_browser: Any) -> None:
    document = large_copy(browser, study, 5)
    laptop, phone = new_browser(), new_browser()
    code = laptop.post("/api/link-codes").json["code"]
    assert phone.post("/api/link", json={"code": code}).status_code == 200
    refused = phone.post("/api/import", json=document)
    assert refused.status_code == 409
    assert refused.json["reason"] == "learner_has_browsers"


def test_prune_deletes_an_import_the_process_never_finished(db: Any, clock: Any) -> None:
    stale = repos(db).learners.stage_import(clock.now - timedelta(hours=2))
    running = repos(db).learners.stage_import(clock.now)
    deleted = repos(db).learners.delete_unfinished_imports(clock.now - timedelta(hours=1))
    assert deleted == 1
    assert db.get(Learner, stale) is None and db.get(Learner, running) is not None
