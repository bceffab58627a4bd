"""The cohort report reads the member set in a fixed number of queries, however many learners
the cohort has (never a query per learner), and withholds pooled self-reports below the
minimum."""

from __future__ import annotations

from sqlalchemy import event

from quizsvc.study.bank_index import BankIndex
from quizsvc.study.cohorts import build_report
from tests.support.browsers import ApiBrowser, Study
from tests.support.cohorts import answer_quiz, join, make_cohort


def statements(connection, run):
    """Return ``run()`` and how many statements it sent."""
    sent = []

    def count(*_args):
        sent.append(1)

    event.listen(connection, "before_cursor_execute", count)
    try:
        result = run()
    finally:
        event.remove(connection, "before_cursor_execute", count)
    return result, len(sent)


def test_the_report_costs_the_same_queries_for_one_learner_or_many(
        author_app, connection, uow, db, bank, clock):
    index = BankIndex.of(bank)
    small, large = make_cohort(author_app.test_client(), "S"), make_cohort(
        author_app.test_client(), "L")
    for number in range(5):
        browser = ApiBrowser(author_app)
        answer_quiz(Study(browser, db, bank), right=number % 2 == 0,
                    explanation="I mixed up the budgets")
        browser.put("/api/self-assessments/budget", json={"rating": 2})
        join(browser, large, f"L{number}", share=True)
        if number == 0:
            join(browser, small, "S0", share=True)

    def report_of(cohort):
        with uow.read():
            return build_report(uow, index, cohort["id"], cohort["name"], cohort["lesson"],
                                clock())

    one, few = statements(connection, lambda: report_of(small))
    five, many = statements(connection, lambda: report_of(large))
    assert len(one.learners) == 1 and len(five.learners) == 5
    assert few == many
    assert five.self_reported.calibration is not None
    assert one.self_reported.calibration is None
    assert all(row.explanations for row in five.learners if row.answers and row.correct == 0)
