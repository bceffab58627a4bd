"""Back up a whole database as JSON and restore it exactly, on either backend."""

from __future__ import annotations

import json

import pytest

from quizsvc.store import backup, migrate
from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID


def populate(app, db, bank):
    """Give the database a learner with attempts, cards, a self-assessment and a link code."""
    browser = ApiBrowser(app)
    study = Study(browser, db, bank)
    session = study.start(LESSON_ID, mode="quiz", size=2)
    for _ in range(2):
        vid = study.next(session["id"])["question"]["variant_id"]
        study.answer(vid, study.wrong_answer(vid))
    browser.put("/api/self-assessments/spec", json={"rating": 2, "note": "备注"})
    browser.post("/api/link-codes")


def test_backup_then_restore_into_a_fresh_schema_is_exact(app, db, bank, connection):
    populate(app, db, bank)
    document = json.loads(json.dumps(backup.dump(connection)))
    assert document["tables"]["attempt"] and document["revision"] == migrate.head_revision()
    migrate.downgrade(connection, "base")
    migrate.upgrade(connection, "head")
    counts = backup.load(connection, document)
    assert counts["attempt"] == 2 and counts["self_assessment"] == 1
    assert json.loads(json.dumps(backup.dump(connection))) == document


def test_restored_ids_do_not_collide_with_new_rows(app, db, bank, connection):
    populate(app, db, bank)
    document = json.loads(json.dumps(backup.dump(connection)))
    migrate.downgrade(connection, "base")
    migrate.upgrade(connection, "head")
    backup.load(connection, document)
    populate(app, db, bank)  # inserts must not reuse restored primary keys
    assert len(backup.dump(connection)["tables"]["learner"]) == 2 * len(
        document["tables"]["learner"])


def test_restore_refuses_a_database_with_rows(app, db, bank, connection):
    populate(app, db, bank)
    document = backup.dump(connection)
    with pytest.raises(backup.BackupError, match="not empty"):
        backup.load(connection, document)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(format="other"), "quizsvc-backup/1"),
    (lambda d: d.update(revision="0000"), "revision"),
    (lambda d: d["tables"].update(nonsense=[]), "unknown table"),
    (lambda d: d["tables"]["learner"].append({"id": 1, "shoe": 2}), "unknown column"),
    (lambda d: d["tables"]["learner"].append({"id": 1, "created_at": "soon"}),
     "not an ISO datetime"),
])
def test_restore_explains_what_is_wrong(connection, change, message):
    document = backup.dump(connection)
    change(document)
    with pytest.raises(backup.BackupError, match=message):
        backup.load(connection, document)
