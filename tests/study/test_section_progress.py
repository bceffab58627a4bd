"""Progress by lesson section: mastery and closed-book accuracy, the weakest questions with
where their rules are taught, accuracy day by day, and the calibration read in words."""

from __future__ import annotations

from typing import Any

from quizsvc.review.calibration import Calibration, ReliabilityRow, in_words
from tests.support.browsers import ApiBrowser, Study
from tests.support.fake_bank import LESSON_ID


def answer_numeric(study: Study, right: bool) -> None:
    """Take a one-question quiz on the numeric question (the first in teaching order)."""
    session = study.start(LESSON_ID, mode="quiz", size=2)
    question = study.next(session["id"])["question"]
    assert question["question_id"] == "budget-split"
    vid = question["variant_id"]
    study.answer(vid, study.right_answer(vid) if right else study.wrong_answer(vid))


def test_sections_weakest_and_history(study: Study, browser: ApiBrowser, clock: Any) -> None:
    answer_numeric(study, right=False)
    clock.advance(days=1)
    answer_numeric(study, right=False)
    clock.advance(minutes=5)
    session = study.start(LESSON_ID, mode="quiz", size=2)
    for _ in range(2):
        question = study.next(session["id"])["question"]
        vid = question["variant_id"]
        study.answer(vid, study.right_answer(vid))
    report = browser.get("/api/progress/sections").json
    sections = {row["section"]: row for row in report["sections"]}
    assert list(sections) == ["budget", "spec"], "in the lesson's order"
    assert (sections["budget"]["questions"], sections["budget"]["answers"],
            sections["budget"]["correct"]) == (2, 4, 2)
    assert sections["budget"]["accuracy"] == 0.5
    assert (sections["spec"]["answers"], sections["spec"]["accuracy"]) == (0, None)
    assert [item["question_id"] for item in report["weakest"]] == ["budget-split"]
    assert report["weakest"][0] | {"title": None} == {
        "question_id": "budget-split", "title": None, "answers": 3, "correct": 1,
        "taught_at": f"/lessons/{LESSON_ID}#rule-running-first"}  # its first rule
    assert [(day["answers"], day["correct"]) for day in report["history"]] == [(1, 0), (3, 2)]


def test_open_book_answers_count_for_nothing_here(study: Study, browser: ApiBrowser) -> None:
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    assert browser.post(f"/api/lessons/{LESSON_ID}/open-book").status_code == 200
    study.answer(vid, study.wrong_answer(vid))
    report = browser.get("/api/progress/sections").json
    assert all(row["answers"] == 0 for row in report["sections"])
    assert report["weakest"] == [] and report["history"] == []


def test_the_progress_page_shows_sections_and_weakest(app: Any, study: Study,
                                                     browser: ApiBrowser) -> None:
    answer_numeric(study, right=False)
    page = browser.get("/progress").get_data(as_text=True)
    assert 'id="by-section"' in page and 'id="weakest"' in page
    assert f'href="/lessons/{LESSON_ID}#budget"' in page
    assert "闭卷答对 0 / 1 次" in page


def row(rating: int, predicted: float, attempts: int, observed: float | None
        ) -> ReliabilityRow:
    return ReliabilityRow(rating, predicted, attempts, observed)


def test_calibration_in_words() -> None:
    assert in_words(Calibration(0, None, ())).verdict is None
    assert in_words(Calibration(10, 0.05, ())).verdict == "well"
    assert in_words(Calibration(10, 0.2, ())).verdict == "fairly"
    table = (row(3, 0.7, 5, 0.6), row(4, 0.9, 4, 0.25), row(2, 0.4, 2, 0.0))
    words = in_words(Calibration(11, 0.4, table))
    assert words.verdict == "poorly"
    assert words.overconfident is not None and words.overconfident.rating == 4, (
        "the rating that claims most above its results, among those with 3+ answers")
