"""Know who asks from the signed identity cookie, not a database read on every request
(issue 21), and never trust one that is not this browser's."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, event

from quizsvc.store.models import Browser, Learner
from tests.support.browsers import ApiBrowser
from tests.support.history import learner_and_browser


def browser_lookups(connection: Any, send: Any) -> int:
    """Count the statements that read the browser table while ``send()`` runs."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if "FROM browser" in statement:
            seen.append(statement)

    event.listen(connection, "before_cursor_execute", record)
    try:
        send()
    finally:
        event.remove(connection, "before_cursor_execute", record)
    return len(seen)


def test_a_known_browser_is_known_without_reading_the_browser_table(browser, connection):
    assert browser.client.get_cookie("quizsvc_identity") is not None  # set when first stored
    assert browser_lookups(connection, lambda: browser.get("/api/reviews/due")) == 0
    assert browser_lookups(connection, lambda: browser.post(
        "/api/sessions", json={"lesson": "27-vllm-v1-ledger", "mode": "quiz", "size": 1})) == 0


def test_an_identity_cookie_from_another_browser_is_not_believed(new_browser, db, connection):
    alice, mallory = new_browser(), new_browser()
    alices = alice.client.get_cookie("quizsvc_identity").value
    mallory.client.set_cookie("quizsvc_identity", alices)
    # Mallory's own browser id is looked up instead: the cookie is bound to its browser token
    assert browser_lookups(connection, lambda: mallory.get("/api/reviews/due")) == 1
    assert learner_and_browser(db, mallory) != learner_and_browser(db, alice)
    forged = "1.1." + "0" * 32
    mallory.client.set_cookie("quizsvc_identity", forged)
    assert mallory.get("/api/export").json["learner"] == mallory.get("/api/export").json[
        "learner"]
    exported = mallory.get("/api/export").json
    assert exported["learner"] != alice.get("/api/export").json["learner"]


def test_linking_moves_the_identity_cookie_to_the_new_learner(new_browser, db):
    home, phone = new_browser(), new_browser()
    code = home.post("/api/link-codes").json["code"]
    assert phone.post("/api/link", json={"code": code}).status_code == 200
    home_learner, _ = learner_and_browser(db, home)
    phone_learner, phone_browser = learner_and_browser(db, phone)
    assert phone_learner == home_learner
    assert phone.client.get_cookie("quizsvc_identity").value.startswith(
        f"{phone_browser}.{home_learner}.")
    assert phone.get("/api/export").json["learner"] == home.get("/api/export").json["learner"]


def test_a_browser_whose_learner_was_removed_is_told_and_starts_afresh(browser, db):
    learner, _ = learner_and_browser(db, browser)
    db.execute(delete(Browser).where(Browser.learner_id == learner))
    db.execute(delete(Learner).where(Learner.id == learner))
    db.commit()
    body = {"lesson": "27-vllm-v1-ledger", "mode": "quiz", "size": 1}
    refused = browser.post("/api/sessions", json=body)
    assert refused.status_code == 409 and refused.json["reason"] == "browser_forgotten"
    assert browser.client.get_cookie("quizsvc_identity") is None
    again = browser.post("/api/sessions", json=body)
    assert again.status_code == 201, again.json
    assert learner_and_browser(db, browser)  # stored again, as a new learner's browser
    assert browser.client.get_cookie("quizsvc_identity") is not None


def test_a_browser_that_stored_nothing_gets_no_identity_cookie(app: Any) -> None:
    reader = ApiBrowser(app, stored=False)
    assert reader.client.get_cookie("quizsvc_identity") is None
