"""Make cohorts and the learners in them, for the cohort tests (API, pages, browser)."""

from __future__ import annotations

from typing import Any

from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID

AUTHOR_TOKEN = "author-secret-token"


def bearer(token: str) -> dict[str, str]:
    """Return the Authorization header that carries ``token``."""
    return {"Authorization": f"Bearer {token}"}


def make_cohort(client: Any, name: str = "Class A", lesson: str = LESSON_ID) -> dict[str, Any]:
    """Make a cohort through the author API; return its JSON (secrets included)."""
    response = client.post("/api/author/cohorts", json={"lesson": lesson, "name": name},
                           headers=bearer(AUTHOR_TOKEN))
    assert response.status_code == 201, response.json
    return dict(response.json)


def join(browser: ApiBrowser, cohort: dict[str, Any], name: str, share: bool = False) -> Any:
    """Join ``cohort`` from ``browser`` under ``name``; return the response."""
    return browser.post("/api/memberships", json={
        "code": cohort["join_code"], "display_name": name, "share_explanations": share})


def report(client: Any, cohort: dict[str, Any], token: str | None = None) -> Any:
    """Read a cohort's report as its instructor (or with ``token``)."""
    return client.get(f"/api/cohorts/{cohort['id']}/report",
                      headers=bearer(token or cohort["instructor_token"]))


def answer_quiz(study: Study, right: bool, explanation: str | None = None) -> None:
    """Answer a two-question closed-book quiz, every answer right or every one wrong (and
    explained, when ``explanation`` is given)."""
    session = study.start(LESSON_ID, mode="quiz", size=2)
    for _ in range(2):
        variant_id = study.next(session["id"])["question"]["variant_id"]
        answer = study.right_answer(variant_id) if right else study.wrong_answer(variant_id)
        result = study.answer(variant_id, answer)
        assert result.status_code == 201, result.json
        if explanation is not None and not right:
            explained = study.browser.explain(result.json, explanation=explanation)
            assert explained.status_code == 200, explained.json


def live_cohort(live_server: Any, name: str) -> Any:
    """Make a cohort of the live server's lesson straight through the use case (the live app
    has no author token); return the ``IssuedCohort`` with its secrets."""
    from datetime import UTC, datetime

    from quizsvc.store.database import make_engine
    from quizsvc.store.unit_of_work import UnitOfWork
    from quizsvc.study import cohorts
    from quizsvc.study.bank_index import BankIndex

    engine = make_engine(live_server.database_url)
    try:
        with UnitOfWork(engine=engine) as uow:
            return cohorts.create_cohort(uow, BankIndex.of(live_server.app.config["BANK"]),
                                         live_server.lesson.id, name, datetime.now(UTC))
    finally:
        engine.dispose()
