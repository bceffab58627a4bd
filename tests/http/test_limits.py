"""Limits that one client cannot step around: by learner and address together, new browsers
counted per address, the author never locked out by strangers (issue 21)."""

from __future__ import annotations

from typing import Any

from quizsvc import create_app
from tests.support.browsers import ApiBrowser

SPLIT = {"name": "split", "config": {"max_num_batched_tokens": 8, "max_num_seqs": 8},
         "requests": [{"id": "A", "prompt_len": 9, "max_tokens": 2},
                      {"id": "B", "prompt_len": 5, "max_tokens": 2}]}


def app_with(app_config: dict[str, Any], connection: Any, **settings: Any) -> Any:
    app = create_app({**app_config, **settings})
    app.extensions["quizsvc.db"].bind_to_connection(connection)
    return app


def learners(connection: Any) -> int:
    from sqlalchemy import text

    return int(connection.execute(text("SELECT count(*) FROM learner")).scalar_one())


def test_a_fresh_browser_per_request_does_not_start_a_fresh_count(app_config, connection):
    """The address's count holds across browsers: 490 replays in 15 s no longer go through."""
    app = app_with(app_config, connection, SIMULATE_RATE_LIMIT="3/minute",
                   SIMULATE_ADDRESS_RATE_LIMIT="5/minute")
    statuses = [ApiBrowser(app).post("/api/simulate", json=SPLIT).status_code
                for _ in range(8)]
    assert statuses == [200] * 5 + [429] * 3


def test_one_browser_keeps_to_its_own_share_below_the_address_s(app_config, connection):
    app = app_with(app_config, connection, SIMULATE_RATE_LIMIT="3/minute",
                   SIMULATE_ADDRESS_RATE_LIMIT="50/minute")
    flooder, other = ApiBrowser(app), ApiBrowser(app)
    statuses = [flooder.post("/api/simulate", json=SPLIT).status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]
    assert other.post("/api/simulate", json=SPLIT).status_code == 200  # behind the same address


def test_new_browsers_are_counted_per_address(app_config, connection):
    """A fresh browser per POST made a learner and its rows each time; now the address has a
    budget of new learners, and a known browser is never refused by it."""
    app = app_with(app_config, connection, NEW_BROWSER_RATE_LIMIT="3/minute")
    known = ApiBrowser(app)  # the first new browser
    made = [ApiBrowser(app, stored=False) for _ in range(3)]
    statuses = [browser.delete("/api/self-assessments").status_code for browser in made]
    assert statuses == [200, 200, 429]
    refused = made[-1].delete("/api/self-assessments")
    assert refused.json["reason"] == "new_browsers" and "Retry-After" in refused.headers
    assert known.delete("/api/self-assessments").status_code == 200
    assert made[0].get("/api/me").status_code == 200  # reading creates nothing


def test_a_request_refused_by_a_limit_stores_no_browser(app_config, connection):
    """A new browser is stored when its use case first runs, after the view's limits: a
    refused request from a browser the service has not stored makes no learner."""
    app = app_with(app_config, connection, IMPORT_RATE_LIMIT="50/minute",
                   IMPORT_ADDRESS_RATE_LIMIT="2/minute")
    before = learners(connection)
    statuses = [ApiBrowser(app, stored=False).post("/api/import", json={"format": "nope"}
                                                   ).status_code for _ in range(4)]
    assert statuses == [422, 422, 429, 429]
    assert learners(connection) - before == 2  # the two let through reached their use case


def test_a_request_refused_by_a_limit_reads_nothing(app_config, connection):
    """A refusal is counted by the cookie and the address alone: a flood of requests from a
    browser that was never stored costs no database read each."""
    from sqlalchemy import event

    app = app_with(app_config, connection, SIMULATE_RATE_LIMIT="1/minute")
    visitor = ApiBrowser(app, stored=False)
    assert visitor.get("/simulator").status_code == 200
    statements: list[str] = []

    def seen(_connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    event.listen(connection, "before_cursor_execute", seen)
    try:
        assert visitor.get("/simulator").status_code == 429
    finally:
        event.remove(connection, "before_cursor_execute", seen)
    assert statements == []


def test_a_malformed_first_write_stores_no_browser_and_a_good_one_does(app_config, connection):
    app = app_with(app_config, connection)
    browser = ApiBrowser(app, stored=False)
    before = learners(connection)
    assert browser.post("/api/sessions", json={"lesson": 7}).status_code == 422
    assert learners(connection) == before
    assert browser.put("/api/self-assessments/no-such-card", json={}).status_code == 422
    assert learners(connection) == before
    assert browser.delete("/api/self-assessments").status_code == 200
    assert learners(connection) == before + 1
    assert browser.get("/api/me").json["learner"] is not None


def test_strangers_guessing_the_author_token_never_lock_the_author_out(app_config, connection):
    app = app_with(app_config, connection, AUTHOR_TOKEN="s3cret", AUTHOR_RATE_LIMIT="2/minute")
    client = app.test_client()
    guesses = [client.get("/api/author/bank", headers={"Authorization": f"Bearer guess{n}"}
                          ).status_code for n in range(4)]
    assert guesses == [401, 401, 429, 429]
    author = client.get("/api/author/bank", headers={"Authorization": "Bearer s3cret"})
    assert author.status_code == 200


def test_imports_are_limited_per_browser(app_config, connection):
    app = app_with(app_config, connection, IMPORT_RATE_LIMIT="2/minute")
    browser = ApiBrowser(app)
    bodies = [browser.post("/api/import", json={"format": "nope"}).status_code
              for _ in range(3)]
    assert bodies == [422, 422, 429]


def test_an_import_larger_than_its_bound_is_refused_before_it_is_read(app_config, connection):
    app = app_with(app_config, connection, IMPORT_MAX_CONTENT_LENGTH=1000)
    browser = ApiBrowser(app)
    response = browser.client.post("/api/import", data=b"{" + b" " * 2000 + b"}", headers={
        "Content-Type": "application/json", "X-CSRF-Token": browser.csrf})
    assert response.status_code == 413


def test_deck_downloads_are_limited_and_built_once(app_config, connection, monkeypatch):
    from quizsvc.study import anki_export

    built: list[str] = []
    real = anki_export.deck_job

    def counting(lesson_id: str, lang: str, built_at: float) -> Any:
        built.append(lang)
        return real(lesson_id, lang, built_at)

    monkeypatch.setattr(anki_export, "deck_job", counting)
    app = app_with(app_config, connection, ANKI_RATE_LIMIT="3/minute")
    browser = ApiBrowser(app)
    url = "/api/lessons/27-vllm-v1-ledger/anki.apkg?lang=en"
    statuses = [browser.get(url).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert built == ["en"]  # built once, handed out again from the kept package


def test_desired_retention_changes_are_limited_per_browser_and_reads_are_not(app_config,
                                                                            connection):
    """Each change replays the learner's whole review log: 46 a second from one browser held
    the database's writer; a few a minute is all a learner needs."""
    app = app_with(app_config, connection, RETENTION_RATE_LIMIT="2/minute")
    browser = ApiBrowser(app)
    changes = [browser.put("/api/scheduling", json={"desired_retention": 0.85}).status_code
               for _ in range(3)]
    assert changes == [200, 200, 429]
    assert [browser.get("/api/scheduling").status_code for _ in range(3)] == [200] * 3
    page = browser.client.post("/progress/retention", data={
        "desired_retention": "0.8", "csrf_token": browser.csrf})
    assert page.status_code == 429  # the page's form counts with the API
