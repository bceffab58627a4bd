"""A graded answer is one read and one write (issue 21): what it sends the database, counted.

On PostgreSQL the write is one statement (``quizsvc.store.answer_statement``); on SQLite it is
one statement per row (the learner's counter, the variant's claim, the attempt, its card and
review log). The browser comes from the signed identity cookie, so nothing else is read.
"""

from __future__ import annotations

from typing import Any

from tests.support.browsers import Study
from tests.support.fake_bank import LESSON_ID
from tests.support.statements import sent


def answered(study: Study, connection: Any, right: bool) -> list[str]:
    """Answer a fresh question of a quiz; return the statements the answer sent."""
    session = study.start(LESSON_ID, mode="quiz", size=2)
    variant_id = study.next(session["id"])["question"]["variant_id"]
    answer = study.right_answer(variant_id) if right else study.wrong_answer(variant_id)
    response, statements = sent(connection, lambda: study.answer(variant_id, answer))
    assert response.status_code == 201, response.json
    return statements


def test_a_graded_answer_is_one_read_and_one_write(study: Study, connection: Any) -> None:
    for right in (True, False):
        statements = answered(study, connection, right)
        reads = [s for s in statements if s.startswith("SELECT")]
        assert len(reads) == 1 and "FROM served_variant" in reads[0], statements
        writes = [s for s in statements if not s.startswith("SELECT")]
        if connection.dialect.name == "postgresql":
            assert len(writes) == 1 and writes[0].startswith("WITH"), statements
        else:  # review_seq, the claim, the attempt, the new card, its review log
            assert [s.split()[0] for s in writes] == ["UPDATE", "UPDATE", "INSERT", "INSERT",
                                                      "INSERT"], statements


def test_serving_a_question_is_two_reads_and_one_write(study: Study, connection: Any) -> None:
    """The session with its items, then what to steer away from (the learner's revealed
    mistakes and the exported contents, in one statement), then the serving write; a question
    served already is the first read alone."""
    session = study.start(LESSON_ID, mode="quiz", size=2)
    response, statements = sent(connection, lambda: study.browser.get(
        f"/api/sessions/{session['id']}/next"))
    assert response.status_code == 200, response.json
    reads = [s for s in statements if s.startswith("SELECT")]
    assert len(reads) == 2 and "FROM study_session" in reads[0], statements
    assert "FROM exported_variant" in reads[1] and "FROM attempt" in reads[1], statements
    writes = [s.split()[0] for s in statements if not s.startswith("SELECT")]
    if connection.dialect.name == "postgresql":
        assert writes == ["WITH"], statements
    else:  # the variant, then the item's claim on it
        assert writes == ["INSERT", "UPDATE"], statements
    again, statements = sent(connection, lambda: study.browser.get(
        f"/api/sessions/{session['id']}/next"))
    assert again.json["question"]["variant_id"] == response.json["question"]["variant_id"]
    assert len(statements) == 1 and "FROM study_session" in statements[0], statements
