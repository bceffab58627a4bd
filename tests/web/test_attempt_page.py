"""The attempt page shows the question it answered through ``services.attempt_question``."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID


@pytest.fixture
def study(app: Any, db: Any, bank: Any) -> Study:
    """Return a study helper for one browser."""
    return Study(ApiBrowser(app), db, bank)


def test_the_attempt_page_shows_the_prompt_it_answered(study: Study) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=2)
    served = study.next(session["id"])["question"]
    result = study.answer(served["variant_id"], study.wrong_answer(served["variant_id"])).json
    page = study.browser.get(f"/study/{session['id']}/attempts/{result['id']}")
    page = page.get_data(as_text=True)
    assert served["prompt"]["zh"] in page
    assert study.variant(served["variant_id"]).solution.zh not in page


def test_the_attempt_page_reads_the_attempt_once(study: Study, engine: Any) -> None:
    """The result, the question, the intervals and the wrong model's step come from one
    read of the attempt row (quizsvc.study.attempt_page)."""
    from sqlalchemy import event

    session = study.start(LESSON_ID, mode="quiz", size=2)
    served = study.next(session["id"])["question"]
    result = study.answer(served["variant_id"], study.right_answer(served["variant_id"])).json
    reads: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and " attempt." in statement:
            reads.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        page = study.browser.get(f"/study/{session['id']}/attempts/{result['id']}")
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert page.status_code == 200 and 'data-rating="good"' in page.get_data(as_text=True)
    assert len([s for s in reads if "FROM attempt" in s]) == 1, reads
