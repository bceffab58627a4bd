"""After the reveal of a wrong answer that matches a named wrong model: which model, what it
believes, the learner's numbers beside the scheduler's, and the rule it breaks, linked."""

from __future__ import annotations

from typing import Any

from tests.support.browsers import ApiBrowser, FormBrowser, Study
from tests.support.fake_bank import LESSON_ID
from tests.support.fake_study import FakeStudy


def explained(study: Study, browser: ApiBrowser, wrong: Any | None = None) -> dict:
    """Answer the numeric question wrong (its misconception's answer by default), explain."""
    session = study.start(LESSON_ID, mode="quiz", size=1)
    vid = study.next(session["id"])["question"]["variant_id"]
    answer = study.wrong_answer(vid) if wrong is None else wrong
    attempt = study.answer(vid, answer).json
    response = browser.explain(attempt, explanation="I split it evenly")
    assert response.status_code == 200, response.json
    return response.json


def test_the_reveal_names_the_wrong_model_and_the_rule_it_breaks(study: Study,
                                                                 browser: ApiBrowser) -> None:
    model = explained(study, browser)["reveal"]["wrong_model"]
    assert model == {
        "id": "even-split", "name": {"zh": "平分", "en": "Split evenly"},
        "believes": {"zh": "把预算平分给每个请求。",
                     "en": "Splits the budget evenly between requests."},
        "breaks": "running-first", "breaks_title": {"zh": "先 running", "en": "Running first"},
        "taught_at": f"/lessons/{LESSON_ID}#rule-running-first"}


def test_a_wrong_answer_matching_no_model_has_none(learner: FakeStudy) -> None:
    session = learner.start(LESSON_ID, mode="quiz", size=1)
    vid = learner.next(session.id).question.variant_id
    attempt = learner.answer(vid, [0, 0])
    reveal = learner.explain(attempt.id, "I gave nothing to anyone").reveal
    assert reveal is not None and reveal.misconception is None and reveal.wrong_model is None


def test_the_attempt_page_sets_the_numbers_side_by_side(app: Any, study: Study,
                                                        browser: ApiBrowser) -> None:
    """The page marks the boxes where the learner's numbers leave the scheduler's."""
    attempt = explained(study, browser)
    page = FormBrowser(app)
    page.client = browser.client  # the same learner, on the pages
    html = page.get(f"/study/any/attempts/{attempt['id']}").get_data(as_text=True)
    assert 'id="wrong-model"' in html and "把预算平分给每个请求。" in html
    assert f'href="/lessons/{LESSON_ID}#rule-running-first"' in html
    yours, real = attempt["submitted_answer"], attempt["reveal"]["correct_answer"]
    rows = html.split('<table class="compare">')[1].split("</table>")[0]
    assert rows.count('class="diverges"') == sum(a != b for a, b in zip(yours, real, strict=True))
    for label, mine, theirs in zip(("A", "B"), yours, real, strict=True):
        assert f'<th scope="row">{label}</th>' in rows
        assert f"{mine}" in rows and f"<td>{theirs}</td>" in rows
