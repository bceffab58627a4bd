"""The attempt page's explanation form asks for a diagnosis, without JavaScript, zh and en.

A wrong answer's page offers a radio group of rules and a textarea; a refused form comes back
(422) as it was filled in, naming the field; the reveal says whether the named rule is the one
the matched wrong model breaks and links to that rule's section either way.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.browsers import FormBrowser
from tests.support.fake_bank import LESSON_ID
from tests.web.test_pages import Learner

RULES = re.compile(r'<input type="radio" name="rule" value="([^"]+)"')


@pytest.fixture
def learner(app: Any) -> Learner:
    return Learner(app)


def wrong_choice(learner: Learner, lang: str = "zh") -> str:
    """Answer questions until the choice one, answer it with the FIFO wrong model; return the
    attempt page's URL."""
    session_url = learner.start(size=5)
    for _ in range(5):
        page, hidden = learner.question(session_url)
        if 'value="waiting"' in page:
            answered = learner.post(f"{session_url}/answer", **hidden, answer="waiting")
            return f"{answered.headers['Location']}?lang={lang}"
        learner.post(f"{session_url}/answer", **hidden, **{"answer.0": "0", "answer.1": "0"})
        learner.explain(f"{session_url}/attempts/1")
    raise AssertionError("no choice question served")


def text(response: Any) -> str:
    return str(response.get_data(as_text=True))


@pytest.mark.parametrize(("lang", "legend", "hint"), [
    ("zh", "你认为自己违反了课程中的哪条规则？", "至少 3 个词，或 6 个汉字"),
    ("en", "Which rule of the lesson do you think you broke?", "at least 3 words, or 6 Chinese"),
])
def test_a_wrong_answer_asks_for_a_rule_and_a_sentence(learner: Learner, lang: str,
                                                      legend: str, hint: str) -> None:
    page = text(learner.get(wrong_choice(learner, lang)))
    assert RULES.findall(page) == ["running-first", "two-budgets"]
    assert legend in page and hint in page
    assert '<textarea id="explanation" name="explanation" required' in page
    assert 'id="diagnosis"' not in page and 'id="reveal"' not in page


def test_a_refused_diagnosis_comes_back_filled_in_and_names_the_field(learner: Learner) -> None:
    url = wrong_choice(learner, "en").split("?")[0]
    short = learner.post(f"{url}/explanation?lang=en", explanation="?", rule="two-budgets")
    assert short.status_code == 422
    page = text(short)
    error = page[page.index('id="explain-error"'):]
    assert error.index("Why was it wrong?") < error.index("3 words") < error.index("</div>")
    assert 'aria-invalid="true"' in page
    assert 'value="two-budgets" required checked' in page
    unknown = learner.post(f"{url}/explanation?lang=en", explanation="I served FIFO first",
                           rule="rollback")
    assert unknown.status_code == 422
    page = text(unknown)
    error = page[page.index('id="explain-error"'):page.index("</div>", page.index("explain-error"))]
    assert "Which rule of the lesson do you think you broke? pick one of the rules" in error
    assert ">I served FIFO first</textarea>" in page
    assert 'id="reveal"' not in page


def test_the_reveal_grades_the_diagnosis_and_links_the_broken_rule(learner: Learner) -> None:
    url = wrong_choice(learner, "en").split("?")[0]
    explained = learner.explain(url, rule="two-budgets", explanation="I served FIFO first")
    assert explained.status_code == 303 and explained.headers["Location"].endswith("#reveal")
    page = text(learner.get(f"{url}?lang=en"))
    assert 'id="diagnosis"' in page and "Not this one" in page
    assert f'href="/lessons/{LESSON_ID}#rule-two-budgets">Two budgets</a>' in page
    assert f'href="/lessons/{LESSON_ID}#rule-running-first">Running first</a>' in page


def test_naming_the_broken_rule_is_said_right_in_chinese(app: Any) -> None:
    learner = Learner(app)
    url = wrong_choice(learner).split("?")[0]
    learner.explain(url, rule="running-first", explanation="我以为先服务等待队列")
    page = text(learner.get(url))
    assert "你的诊断" in page and 'class="result-good" id="diagnosis-verdict"' in page
    assert f'href="/lessons/{LESSON_ID}#rule-running-first">' in page


def test_the_form_posts_without_javascript(app: Any) -> None:
    """The form is a plain POST with the CSRF field: the FormBrowser sends nothing else."""
    learner = Learner(app)
    url = wrong_choice(learner).split("?")[0]
    page = text(learner.get(url))
    form = re.search(r'<form method="post" action="([^"]+)" id="explain-form">', page)
    assert form and form.group(1) == f"{url}/explanation"
    assert isinstance(learner, FormBrowser)
    assert learner.explain(url).status_code == 303
